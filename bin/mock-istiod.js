#!/usr/bin/env node
// Entry point of the published package: runs the compiled CLI, as one bundled file with its
// code cache when the build made it (scripts/bundle.ts), else module by module.
import { existsSync } from 'node:fs';

// Node 22 is the oldest supported line, 24 the one the project runs on (README, "Node versions").
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `mock-istiod: Node ${process.version} is not supported (end of life); use Node 24 or 22\n`,
  );
}

const bundle = new URL('../dist/src/cli/main.bundle.cjs', import.meta.url);
if (existsSync(bundle)) {
  const { runBundle } = await import('../dist/src/util/code-cache.js');
  runBundle(bundle);
} else {
  await import('../dist/src/cli/main.js');
}
