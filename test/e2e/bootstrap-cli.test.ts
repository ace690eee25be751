/**
 * `mock-istiod bootstrap` as a user runs it: the pod's environment in, the bootstrap out
 * (the same as the committed golden files), `--validate` by the real Envoy, and one clear line
 * for a missing input.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SEED_POD_ENV } from '../../scripts/generate-envoy-configs.js';
import { packageRoot } from '../../src/util/package-root.js';
import { useCli, type CliResult } from '../support/fixtures/cli.js';

const cli = useCli();

/** Only the pod's variables (and what Node and Envoy need), as in the sidecar container. */
function bootstrapCli(args: string[], podEnv: Record<string, string>): Promise<CliResult> {
  return cli.run(['bootstrap', ...args], { podEnv, timeoutMs: 30_000 });
}

const golden = (file: string) =>
  parse(readFileSync(join(packageRoot(), 'envoy-configs', file), 'utf8')) as unknown;

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('mock-istiod bootstrap', () => {
  it('writes the golden sidecar bootstrap for the seed pod (YAML on stdout)', async () => {
    const result = await bootstrapCli([], SEED_POD_ENV);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(parse(result.stdout)).toEqual(golden('sidecar-sotw.yaml'));
  });

  it('--xds delta --out x.json writes JSON, and --validate has the real Envoy say OK', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bootstrap-cli-'));
    const out = join(dir, 'sidecar.json');
    const result = await bootstrapCli(['--xds', 'delta', '--out', out, '--validate'], SEED_POD_ENV);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toBe(`configuration '${out}' OK\n`);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(golden('sidecar-delta.yaml'));
  });

  it('--validate without --out validates a temporary copy', async () => {
    const result = await bootstrapCli(['--validate', '--format', 'json'], SEED_POD_ENV);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(golden('sidecar-sotw.yaml'));
    expect(result.stderr).toMatch(/^configuration '.*bootstrap\.json' OK\n$/);
  });

  it('a missing input: one line naming the variable, exit 2', async () => {
    const withoutIp = Object.fromEntries(
      Object.entries(SEED_POD_ENV).filter(([name]) => name !== 'INSTANCE_IP'),
    );
    const result = await bootstrapCli([], withoutIp);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^mock-istiod: environment variable INSTANCE_IP is not set \(/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a bad flag: one line naming the flag, exit 2', async () => {
    const result = await bootstrapCli(['--discovery-address', 'istiod'], SEED_POD_ENV);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'mock-istiod: --discovery-address: expected host:port (for example 127.0.0.1:15012), ' +
        'got "istiod" (see: mock-istiod --help)\n',
    );
  });
});
