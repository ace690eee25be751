#!/usr/bin/env bash
# Builds the live page (ui/ → dist/ui/) when the build is missing or older than any of its
# sources (ui/, the event contract src/live/ui-events.ts, the lock file), so that a fresh
# clone's `npm start`, `npm run demo` and `npm test` serve it. Otherwise does nothing, in a few
# milliseconds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly built='dist/ui/index.html'

if [[ -f "$built" ]] && [[ -z "$(find ui src/live/ui-events.ts package-lock.json -newer "$built" -type f -print -quit)" ]]; then
  exit 0
fi
echo "ensure-ui: building the live page into dist/ui (npm run build:ui)" >&2
npm run --silent build:ui >&2
