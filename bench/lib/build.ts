/**
 * Builds what the benchmark runs, into `bench/.bin/` (git-ignored): the go-control-plane peer
 * and the load generator with `go build` (Go's build cache makes a rebuild quick), and the
 * mock's bench entry with `tsc`, so that the mock runs compiled, as the published package
 * does (`dist/`), not through tsx's on-the-fly transform.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export interface BenchPrograms {
  peer: string;
  loadgen: string;
  /** The compiled bench entry of the mock (bench/servers/mock-server.ts). */
  mockServer: string;
  /** The compiled floor servers (bench/servers/floor-h2.ts, floor-grpcjs.ts). */
  floorH2: string;
  floorGrpcjs: string;
}

function run(file: string, args: string[], cwd: string, what: string): void {
  try {
    execFileSync(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: Buffer; stderr?: Buffer };
    const output = `${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`.trim();
    throw new Error(`${what} failed: ${output || String(err)}`, { cause: err });
  }
}

export function buildBenchPrograms(benchDir: string): BenchPrograms {
  const bin = join(benchDir, '.bin');
  mkdirSync(bin, { recursive: true });
  const go = (dir: string, out: string) => {
    run('go', ['build', '-o', out, '.'], join(benchDir, dir), `go build in bench/${dir}`);
    return out;
  };
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  run(
    process.execPath,
    [tsc, '-p', join(benchDir, 'tsconfig.mock-server.json')],
    benchDir,
    "compiling bench/servers/ (the mock's entry and the floors)",
  );
  return {
    peer: go('peers/go-control-plane', join(bin, 'go-control-plane-peer')),
    loadgen: go('loadgen', join(bin, 'loadgen')),
    mockServer: join(bin, 'dist/bench/servers/mock-server.js'),
    floorH2: join(bin, 'dist/bench/servers/floor-h2.js'),
    floorGrpcjs: join(bin, 'dist/bench/servers/floor-grpcjs.js'),
  };
}
