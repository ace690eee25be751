#!/usr/bin/env node
// Entry point of the published package: runs the compiled CLI, as one bundled file with its
// code cache when the build made it (scripts/bundle.ts), else module by module.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/src/cli/main.bundle.cjs', import.meta.url);
if (existsSync(bundle)) {
  const { runBundle } = await import('../dist/src/util/code-cache.js');
  runBundle(bundle);
} else {
  await import('../dist/src/cli/main.js');
}
