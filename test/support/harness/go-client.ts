/**
 * The Go control-API client (test/support/go-control-client), built with the machine's `go`
 * into a directory named by the hash of its sources, so that a second run reuses the binary.
 * It uses Go's standard library only: nothing is downloaded (`GOFLAGS=-mod=mod`, no
 * requirements; `GOTOOLCHAIN=local`). Without `go` it fails saying how to install it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SOURCE = fileURLToPath(new URL('../go-control-client/', import.meta.url));

function goBinary(): string {
  const go = process.env.GO_BIN ?? 'go';
  try {
    execFileSync(go, ['version'], { stdio: 'pipe', timeout: 30_000 });
  } catch {
    throw new Error(
      `the Go client test needs Go (${go} did not run): install it from go.dev/dl (any Go ≥ 1.21) ` +
        'and put it on PATH, or set GO_BIN to the go binary',
    );
  }
  return go;
}

/** The built client's path (built now when its sources changed). */
export async function buildGoClient(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of readdirSync(SOURCE).sort()) {
    hash.update(file).update(readFileSync(join(SOURCE, file)));
  }
  const dir = join(tmpdir(), `mock-istiod-go-client-${hash.digest('hex').slice(0, 16)}`);
  const binary = join(dir, 'go-control-client');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.part`;
  await run(goBinary(), ['build', '-o', partial, '.'], {
    cwd: SOURCE,
    env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', GOPROXY: 'off' },
    timeout: 120_000,
  });
  renameSync(partial, binary);
  return binary;
}

export interface GoClientFigures {
  requests: number;
  failures: number;
  errors: string[];
  pauses: number;
  newConnections: number;
  elapsedMs: number;
  lastVersion: string;
}

/** Runs the client against a control API and returns what it counted. */
export async function runGoClient(
  binary: string,
  options: { url: string; token?: string; requests: number; pauses: readonly string[] },
): Promise<GoClientFigures> {
  const args = ['-url', options.url, '-requests', String(options.requests)];
  if (options.token) args.push('-token', options.token);
  if (options.pauses.length > 0) args.push('-pauses', options.pauses.join(','));
  const { stdout } = await run(binary, args, { timeout: 120_000 });
  return JSON.parse(stdout) as GoClientFigures;
}
