/**
 * The Go control-API client (test/support/go-control-client), built with the machine's `go`
 * by go-build.ts (cached by the hash of its sources; Go's standard library only, nothing is
 * downloaded). Without `go` it fails saying how to install it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildGoProgram } from './go-build.js';

const run = promisify(execFile);
const SOURCE = fileURLToPath(new URL('../go-control-client/', import.meta.url));

/** The built client's path (built now when its sources changed). */
export async function buildGoClient(): Promise<string> {
  return buildGoProgram({ source: SOURCE, name: 'go-control-client', needs: 'the Go client test' });
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
