/**
 * The cluster's lab app (tools/lab-app, a static Go program) answers as the seed lab's
 * upstream (scripts/lab-upstream.ts) does: the same status and the same `<mode>:<port> <path>`
 * body in each of the three modes, checked side by side against the real binary; and its
 * `fetch` subcommand prints the status and the body. Without Go it fails saying how to
 * install it.
 */
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { LAB_UPSTREAM_MODES, startLabUpstream } from '../../scripts/lab-upstream.js';
import type { LabUpstreamMode } from '../../scripts/lab-upstream.js';
import { waitFor } from '../../src/util/wait.js';
import { buildGoProgram } from '../support/harness/go-build.js';

const run = promisify(execFile);
const SOURCE = fileURLToPath(new URL('../../tools/lab-app/', import.meta.url));

let binary = '';

beforeAll(async () => {
  binary = await buildGoProgram({
    source: SOURCE,
    name: 'lab-app',
    needs: 'the lab app test',
    env: { CGO_ENABLED: '0' },
  });
}, 120_000);

/** Starts `lab-app serve` on a free loopback port; resolves to its URL once it listens. */
async function startLabApp(args: string[]): Promise<{ url: string; port: number }> {
  const child = spawn(binary, ['serve', '--host', '127.0.0.1', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    child.kill('SIGTERM');
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await waitFor(() => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1], {
    timeoutMs: 5_000,
    description: 'lab-app to print the port it listens on',
    explain: () => output,
  });
  return { url: `http://127.0.0.1:${port}`, port: Number(port) };
}

async function get(url: string) {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: await response.text() };
}

describe('lab app (tools/lab-app) against lab-upstream.ts', () => {
  it.each(LAB_UPSTREAM_MODES)('%s: the same status and body shape', async (mode) => {
    const slow = ['--slow-ms', '200'];
    const app = await startLabApp(['--mode', mode, ...(mode === 'slow' ? slow : [])]);
    const upstream = await startLabUpstream({ mode, port: 0, slowMs: 200 });
    onTestFinished(() => upstream.close());
    for (const path of ['/orders', '/a/b?x=1']) {
      const [fromApp, fromUpstream] = await Promise.all([
        get(`${app.url}${path}`),
        get(`${upstream.url}${path}`),
      ]);
      expect(fromApp).toEqual({ status: fromUpstream.status, body: `${mode}:${app.port} ${path}` });
      expect(fromUpstream.body).toBe(`${mode}:${upstream.port} ${path}`);
    }
  });

  it('slow answers only after --slow-ms', async () => {
    const app = await startLabApp(['--mode', 'slow', '--slow-ms', '300']);
    const started = performance.now();
    expect((await get(`${app.url}/x`)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("takes the lab's positional form and exits 0 on SIGTERM", async () => {
    const child = spawn(binary, ['0', 'fail', '--host', '127.0.0.1'], { stdio: 'pipe' });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const port = await waitFor(() => /:(\d+)\n/.exec(output)?.[1], {
      timeoutMs: 5_000,
      description: 'lab-app to print the port it listens on',
    });
    expect(output).toContain('lab app (fail) listening');
    expect(await get(`http://127.0.0.1:${port}/p`)).toEqual({
      status: 500,
      body: `fail:${port} /p`,
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('rejects a bad mode or port with one line and exit code 2', async () => {
    for (const [args, message] of [
      [['--mode', 'odd'], "mode must be one of ok, fail, slow, got 'odd'"],
      [['--port', '70000'], 'port must be an integer from 0 to 65535, got 70000'],
    ] as const) {
      const failed = await run(binary, [...args]).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failed).toMatchObject({ code: 2, stderr: `lab-app: ${message}\n` });
    }
  });
});

describe('lab-app fetch', () => {
  it.each<LabUpstreamMode>(['ok', 'fail'])(
    'prints the status and the body of a %s answer, exit 0',
    async (mode) => {
      const upstream = await startLabUpstream({ mode, port: 0 });
      onTestFinished(() => upstream.close());
      const { stdout } = await run(binary, ['fetch', `${upstream.url}/x?y=1`]);
      expect(stdout).toBe(`${mode === 'ok' ? 200 : 500}\n${mode}:${upstream.port} /x?y=1\n`);
    },
  );

  it('exits 1 with the error when no answer comes', async () => {
    const upstream = await startLabUpstream({ mode: 'slow', port: 0, slowMs: 5_000 });
    onTestFinished(() => upstream.close());
    const failed = await run(binary, ['fetch', '--timeout', '100ms', upstream.url]).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('context deadline exceeded');
  });
});
