#!/usr/bin/env node
// Entry point of the published package: runs the compiled CLI, as one bundled file when the
// build made it (scripts/bundle-cli.mjs), else module by module.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/src/cli/main.bundle.js', import.meta.url);
await import(existsSync(bundle) ? bundle.href : '../dist/src/cli/main.js');
