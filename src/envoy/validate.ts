/**
 * Runs `envoy --mode validate -c <file>`: Envoy loads the bootstrap (including checks such as
 * `Unknown gRPC client cluster`) without binding ports or connecting anywhere. On success it
 * prints `configuration '<file>' OK` and exits 0; otherwise it exits 1 with the reason.
 */
import { execFile } from 'node:child_process';
import { findEnvoy } from './find-envoy.js';

export interface ValidateResult {
  ok: boolean;
  /** Exit code (null when killed, for example by the timeout). */
  exitCode: number | null;
  /** stdout followed by stderr. */
  output: string;
}

export interface ValidateOptions {
  envoyBin?: string;
  timeoutMs?: number;
}

export function validateEnvoyConfig(
  configPath: string,
  options: ValidateOptions = {},
): Promise<ValidateResult> {
  const envoyBin = options.envoyBin ?? findEnvoy();
  const args = ['--mode', 'validate', '-c', configPath, '--log-level', 'warning'];
  return new Promise((resolve) => {
    execFile(
      envoyBin,
      args,
      { timeout: options.timeoutMs ?? 30_000, maxBuffer: 4 << 20 },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ ok: exitCode === 0, exitCode, output: `${stdout}${stderr}` });
      },
    );
  });
}
