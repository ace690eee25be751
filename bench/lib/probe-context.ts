/**
 * The context a micro probe (bench/micro/*-probe.ts) runs in: the full profile, the Go
 * programs built, a scratch folder of its own, the server on CPU 0 and the generator on CPU 1.
 * The caller removes `workDir` when it is done.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBenchPrograms } from './build.js';
import type { BenchContext } from './context.js';
import { PROFILES } from './profile.js';
import type { ServerKind } from './server-process.js';

export function probeContext(name: string, servers: ServerKind[]): BenchContext {
  const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
  return {
    rootDir: dirname(benchDir),
    workDir: mkdtempSync(join(tmpdir(), `mock-istiod-${name}-`)),
    profile: PROFILES.full,
    servers,
    bins: buildBenchPrograms(benchDir),
    pin: { server: '0', loadgen: '1' },
    log: (message) => process.stdout.write(`${message}\n`),
  };
}
