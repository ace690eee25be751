/**
 * Builds a small Go program of this repository with the machine's `go` into a directory
 * named by the hash of its sources, so that a second run reuses the binary. A program of the
 * standard library only downloads nothing (`GOPROXY=off`, `GOTOOLCHAIN=local`); one with
 * `modules: true` fetches the modules its go.sum pins from the Go module proxy the machine's
 * `go` is configured with. Without `go` it fails saying how to install it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The `go` to build with (`GO_BIN`, else `go` on PATH); throws how to install it. */
export function goBinary(needs: string): string {
  const go = process.env.GO_BIN ?? 'go';
  try {
    execFileSync(go, ['version'], { stdio: 'pipe', timeout: 30_000 });
  } catch {
    throw new Error(
      `${needs} needs Go (${go} did not run): install it from go.dev/dl (any Go ≥ 1.21) ` +
        'and put it on PATH, or set GO_BIN to the go binary',
    );
  }
  return go;
}

export interface GoProgram {
  /** The folder holding the program's go.mod and sources. */
  source: string;
  /** The binary's file name. */
  name: string;
  /** Who needs it, for the error when Go is missing ("the Go client test"). */
  needs: string;
  /** Extra build environment, e.g. `{ CGO_ENABLED: '0' }`; it is part of the cache key. */
  env?: Record<string, string>;
  /** It has module dependencies (go.sum): fetch them from the machine's module proxy. */
  modules?: boolean;
  /** How long the build may take (default 120 s; a first build with modules takes longer). */
  timeoutMs?: number;
}

/** The built program's path (built now when its sources or build environment changed). */
export async function buildGoProgram(program: GoProgram): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(program.env ?? {}));
  for (const file of readdirSync(program.source).sort()) {
    hash.update(file).update(readFileSync(join(program.source, file)));
  }
  const dir = join(tmpdir(), `mock-istiod-${program.name}-${hash.digest('hex').slice(0, 16)}`);
  const binary = join(dir, program.name);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.part`;
  const go = goBinary(program.needs);
  // The hashes are go.sum's, so the checksum database is not asked.
  const fetch = program.modules ? { GOPROXY: moduleProxy(go), GOSUMDB: 'off' } : { GOPROXY: 'off' };
  await run(go, ['build', '-trimpath', '-o', partial, '.'], {
    cwd: program.source,
    env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', ...fetch, ...program.env },
    timeout: program.timeoutMs ?? 120_000,
  });
  renameSync(partial, binary);
  return binary;
}

/** The module proxy the machine's `go` uses (its configuration or default). */
function moduleProxy(go: string): string {
  const env = { ...process.env };
  delete env['GOPROXY'];
  return execFileSync(go, ['env', 'GOPROXY'], { env, encoding: 'utf8', timeout: 30_000 }).trim();
}
