/**
 * The observability commands as a user runs them: `proxy-status` and `status` against a
 * running mock (the raw ADS client plays the proxy), and `serve --journal`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { freePort } from '../../src/util/ports.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { handshake } from '../support/fixtures/handshake.js';
import { syncProxy } from '../support/fixtures/synced-proxy.js';
import { it } from '../support/fixtures/test.js';
import { sidecarNode } from '../support/fixtures/nodes.js';

const cli = useCli();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const controlArgs = (server: TestMockIstiod) => [
  '--control-port',
  String(server.addresses.control?.port),
];

describe('mock-istiod proxy-status', () => {
  it("prints istioctl's table: SYNCED after the ACK, STALE for an unanswered response", async ({
    mock: server,
    ads,
  }) => {
    await syncProxy(server, ads);
    const run = await cli.run(['proxy-status', ...controlArgs(server)]);
    expect(run.code).toBe(0);
    const [header, row, ...rest] = run.stdout.split('\n');
    expect(header).toMatch(
      /^NAME {5,}CLUSTER {5,}CDS {5,}LDS {5,}EDS {5,}RDS {5,}ECDS {5,}ISTIOD {5,}VERSION$/,
    );
    expect(row).toMatch(
      /^orders-v1-0\.default {5}Kubernetes {5}SYNCED \(\d+s\) {5}STALE \(\d+s\) {5}IGNORED {5}IGNORED {5}IGNORED {5}127\.0\.0\.1:\d+ {5}1\.24\.0$/,
    );
    expect(rest).toEqual(['']);
  });

  it('prints JSON with -o json and keeps only the proxies named', async ({ mock: server, ads }) => {
    await syncProxy(server, ads);
    const run = await cli.run(['proxy-status', 'orders', '-o', 'json', ...controlArgs(server)]);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as {
      resources: { node: { id: string }; genericXdsConfigs: { configStatus: string }[] }[];
    };
    expect(json.resources.map((r) => r.node.id)).toEqual(['orders-v1-0.default']);
    expect(json.resources[0]?.genericXdsConfigs.map((c) => c.configStatus)).toEqual([
      'SYNCED',
      'STALE',
    ]);
    const none = await cli.run(['proxy-status', 'nobody', '-o', 'json', ...controlArgs(server)]);
    expect(none.code).toBe(0);
    expect((JSON.parse(none.stdout) as { resources: unknown[] }).resources).toEqual([]);
  });

  it('sends the control token a mock requires (--control-token or MOCK_ISTIOD_CONTROL_TOKEN)', async ({
    startMock,
  }) => {
    const server = await startMock({ controlToken: 's3cret' });
    const refused = await cli.run(['proxy-status', ...controlArgs(server)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('wants a token: --control-token or MOCK_ISTIOD_CONTROL_TOKEN');
    const allowed = await cli.run([
      'proxy-status',
      '--control-token',
      's3cret',
      ...controlArgs(server),
    ]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^NAME /);
    const status = await cli.run([
      'status',
      '-o',
      'json',
      '--control-token',
      's3cret',
      ...controlArgs(server),
    ]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ mock: { reachable: true }, proxies: [] });
  });

  it('says in one line, exit code 1, when no mock answers', async () => {
    const port = await freePort();
    const run = await cli.run(['proxy-status', '--control-port', String(port)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `mock-istiod: cannot reach mock-istiod at 127.0.0.1:${port} (ECONNREFUSED); is \`mock-istiod serve\` running there? (--control, or --control-host and --control-port)\n`,
    );
  });
});

describe('mock-istiod status', () => {
  it("shows the mock's per-type view, and the admin port it could not find", async ({
    mock: server,
    ads,
  }) => {
    await syncProxy(server, ads);
    const run = await cli.run(['status', '-o', 'json', ...controlArgs(server)]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
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
    const table = await cli.run(['status', ...controlArgs(server)]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('admin address unknown (pass --admin');
  });

  it('--watch redraws until interrupted, and keeps showing an Envoy admin that does not answer', async ({
    mock: server,
    ads,
  }) => {
    await syncProxy(server, ads);
    const deadAdmin = await freePort();
    const run = cli.start([
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
    await waitFor(() => run.lines().length >= 2, {
      timeoutMs: 15_000,
      description: 'two refreshes',
    });
    run.child.kill('SIGINT');
    expect(await run.exited()).toBe(0);
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
    const run = await cli.run(['status', '--watch', '--interval', 'fast']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'mock-istiod: --interval: expected a number of seconds >= 0.2, got "fast"',
    );
  });
});

describe('mock-istiod serve --journal', () => {
  it('writes every request and response as JSON lines, flushed on shutdown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-cli-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'journal.jsonl');
    const run = cli.start(['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS, '--journal', path]);
    const client = new AdsTestClient((await waitForServing(run)).xds);
    cleanups.push(() => client.close());
    // Subscribe CDS, its response, the ACK, subscribe LDS, its response: the entries below.
    const { cds } = await handshake(client.sotw(), { timeoutMs: 10_000 });
    run.child.kill('SIGTERM');
    expect(await run.exited()).toBe(0);
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
    const run = await cli.run([
      'serve',
      ...FREE_SERVE_PORTS,
      '--journal',
      '/nonexistent-dir/j.jsonl',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'mock-istiod: --journal: cannot write the journal to /nonexistent-dir/j.jsonl (ENOENT) (see: mock-istiod --help)',
    );
  });
});
