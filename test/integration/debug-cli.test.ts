/**
 * The observability commands as a user runs them: `proxy-status` and `status` against a
 * running mock (the raw ADS client plays the proxy), and `serve --journal`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { freePort } from '../../src/util/ports.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { packageRoot } from '../../src/util/package-root.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { handshake } from '../support/handshake.js';
import { sidecarNode } from '../support/nodes.js';

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

const running: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function cli(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: packageRoot(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

async function mockWithProxy(): Promise<TestMockIstiod> {
  const server = await startMockIstiod();
  const client = new AdsTestClient(server.xdsAddress);
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  // CDS is ACKed: SYNCED. LDS is answered and never ACKed: STALE.
  await handshake(client.sotw());
  await server.waitForAck(CLUSTER_TYPE);
  return server;
}

const controlArgs = (server: TestMockIstiod) => [
  '--control-port',
  String(server.addresses.control?.port),
];

describe('mock-istiod proxy-status', () => {
  it("prints istioctl's table: SYNCED after the ACK, STALE for an unanswered response", async () => {
    const server = await mockWithProxy();
    const run = cli(['proxy-status', ...controlArgs(server)]);
    expect(await run.exit).toBe(0);
    const [header, row, ...rest] = run.stdout().split('\n');
    expect(header).toMatch(
      /^NAME {5,}CLUSTER {5,}CDS {5,}LDS {5,}EDS {5,}RDS {5,}ECDS {5,}ISTIOD {5,}VERSION$/,
    );
    expect(row).toMatch(
      /^orders-v1-0\.default {5}Kubernetes {5}SYNCED \(\d+s\) {5}STALE \(\d+s\) {5}IGNORED {5}IGNORED {5}IGNORED {5}127\.0\.0\.1:\d+ {5}1\.24\.0$/,
    );
    expect(rest).toEqual(['']);
  });

  it('prints JSON with -o json and keeps only the proxies named', async () => {
    const server = await mockWithProxy();
    const run = cli(['proxy-status', 'orders', '-o', 'json', ...controlArgs(server)]);
    expect(await run.exit).toBe(0);
    const json = JSON.parse(run.stdout()) as {
      resources: { node: { id: string }; genericXdsConfigs: { configStatus: string }[] }[];
    };
    expect(json.resources.map((r) => r.node.id)).toEqual(['orders-v1-0.default']);
    expect(json.resources[0]?.genericXdsConfigs.map((c) => c.configStatus)).toEqual([
      'SYNCED',
      'STALE',
    ]);
    const none = cli(['proxy-status', 'nobody', '-o', 'json', ...controlArgs(server)]);
    expect(await none.exit).toBe(0);
    expect((JSON.parse(none.stdout()) as { resources: unknown[] }).resources).toEqual([]);
  });

  it('sends the control token a mock requires (--control-token or MOCK_ISTIOD_CONTROL_TOKEN)', async () => {
    const server = await startMockIstiod({ controlToken: 's3cret' });
    cleanups.push(() => server.close());
    const refused = cli(['proxy-status', ...controlArgs(server)]);
    expect(await refused.exit).toBe(1);
    expect(refused.stderr()).toContain('answered 401 to /debug/syncz');
    const allowed = cli(['proxy-status', '--control-token', 's3cret', ...controlArgs(server)]);
    expect(await allowed.exit).toBe(0);
    expect(allowed.stdout()).toMatch(/^NAME /);
    const status = cli([
      'status',
      '-o',
      'json',
      '--control-token',
      's3cret',
      ...controlArgs(server),
    ]);
    expect(await status.exit).toBe(0);
    expect(JSON.parse(status.stdout())).toMatchObject({ mock: { reachable: true }, proxies: [] });
  });

  it('says in one line, exit code 1, when no mock answers', async () => {
    const port = await freePort();
    const run = cli(['proxy-status', '--control-port', String(port)]);
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toBe(
      `mock-istiod: cannot reach mock-istiod at 127.0.0.1:${port} (ECONNREFUSED); is \`mock-istiod serve\` running there? (--control-host, --control-port)\n`,
    );
  });
});

describe('mock-istiod status', () => {
  it("shows the mock's per-type view, and the admin port it could not find", async () => {
    const server = await mockWithProxy();
    const run = cli(['status', '-o', 'json', ...controlArgs(server)]);
    expect(await run.exit).toBe(0);
    const report = JSON.parse(run.stdout()) as {
      mock: { reachable: boolean; withheld: boolean };
      proxies: {
        name: string;
        mock: { types: { type: string; status: string }[] };
        envoy?: unknown;
      }[];
    };
    expect(report.mock).toMatchObject({ reachable: true, withheld: false });
    expect(report.proxies).toHaveLength(1);
    expect(report.proxies[0]?.mock.types.map((t) => `${t.type} ${t.status}`)).toEqual([
      'CDS SYNCED',
      'LDS STALE',
    ]);
    expect(report.proxies[0]?.envoy).toBeUndefined();
    const table = cli(['status', ...controlArgs(server)]);
    expect(await table.exit).toBe(0);
    expect(table.stdout()).toContain('admin address unknown (pass --admin');
  });

  it('--watch redraws until interrupted, and keeps showing an Envoy admin that does not answer', async () => {
    const server = await mockWithProxy();
    const deadAdmin = await freePort();
    const run = cli([
      'status',
      '--watch',
      '--interval',
      '0.2',
      '-o',
      'json',
      '--admin',
      `127.0.0.1:${deadAdmin}`,
      ...controlArgs(server),
    ]);
    await waitFor(() => run.stdout().split('\n').filter(Boolean).length >= 2, {
      timeoutMs: 15_000,
      description: 'two refreshes',
    });
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(0);
    const last = JSON.parse(run.stdout().trim().split('\n').at(-1) ?? '') as {
      proxies: { name: string; envoy?: { reachable: boolean; error: string } }[];
    };
    expect(last.proxies.map((p) => p.name).sort()).toEqual([
      `http://127.0.0.1:${deadAdmin}`,
      'orders-v1-0.default',
    ]);
    expect(last.proxies.find((p) => p.envoy)?.envoy).toMatchObject({
      reachable: false,
      error: 'ECONNREFUSED',
    });
  });

  it('rejects a bad --interval in one line with exit code 2', async () => {
    const run = cli(['status', '--watch', '--interval', 'fast']);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain(
      'mock-istiod: --interval: expected a number of seconds >= 0.2, got "fast"',
    );
  });
});

describe('mock-istiod serve --journal', () => {
  it('writes every request and response as JSON lines, flushed on shutdown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-cli-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'journal.jsonl');
    const run = cli([
      'serve',
      '--port',
      '0',
      '--control-port',
      '0',
      '--log-format',
      'json',
      '--journal',
      path,
    ]);
    const serving = await waitFor(
      () =>
        run
          .stdout()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { msg: string; xds?: string })
          .find((l) => l.msg === 'mock istiod is serving'),
      { timeoutMs: 15_000, description: 'the "mock istiod is serving" log line' },
    );
    const client = new AdsTestClient(serving.xds as string);
    cleanups.push(() => client.close());
    // Subscribe CDS, its response, the ACK, subscribe LDS, its response: the entries below.
    const { cds } = await handshake(client.sotw(), { timeoutMs: 10_000 });
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
    const entries = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { seq: number; kind: string; nodeId?: string; version?: string },
      );
    expect(entries.map((e) => e.kind)).toEqual([
      'open',
      'subscribe',
      'response',
      'ack',
      'subscribe',
      'response',
      'close',
    ]);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(entries[3]).toMatchObject({ nodeId: sidecarNode().id, version: cds.version_info });
  });

  it('fails in one line, exit code 2, when the journal file cannot be written', async () => {
    const run = cli([
      'serve',
      '--port',
      '0',
      '--control-port',
      '0',
      '--journal',
      '/nonexistent-dir/j.jsonl',
    ]);
    expect(await run.exit).toBe(2);
    expect(run.stderr().trim()).toBe(
      'mock-istiod: --journal: cannot write the journal to /nonexistent-dir/j.jsonl (ENOENT) (see: mock-istiod --help)',
    );
  });
});
