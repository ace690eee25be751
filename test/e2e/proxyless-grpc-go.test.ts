/**
 * grpc-go's own xDS client and server (`xds.NewGRPCServer`) against the mock, end to end:
 * Kubernetes YAML for a `grpc-agent` pod → `generate` (istiod's gRPC generator) → the mock
 * serves it → `bootstrap --grpc` files → a grpc-go server that takes its listener from the
 * mock and a grpc-go client that dials `xds:///…` through it. Then the faults as a proxyless
 * pod meets them: withheld configuration, a NACK and an outage of the control plane; and the
 * live page, in Chromium, showing those pods for what they are.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { makeGrpcBootstrap } from '../../src/bootstrap/grpc.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { freePort } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import { LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { useCli } from '../support/fixtures/cli.js';
import { useBrowser } from '../support/harness/browser.js';
import {
  buildGrpcXdsGo,
  runGrpcClient,
  serving,
  startGrpcXdsGo,
  stopAllGrpcXdsGo,
} from '../support/harness/grpc-go.js';

const cli = useCli();
const browser = useBrowser();
const HOST = 'echo.default.svc.cluster.local';
const SERVER_POD = { podName: 'echo-0', podIp: '10.1.0.7', serviceAccount: 'echo' };
const CLIENT_POD = { podName: 'client-0', podIp: '10.1.0.9', serviceAccount: 'client' };

/** Mutual TLS for the namespace, as a mesh turns it on for proxyless pods. */
const MTLS = `---
apiVersion: security.istio.io/v1
kind: PeerAuthentication
metadata: {name: default, namespace: default}
spec: {mtls: {mode: STRICT}}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: echo, namespace: default}
spec:
  host: echo.default.svc.cluster.local
  trafficPolicy: {tls: {mode: ISTIO_MUTUAL}}
`;

/** The echo Service on `port`, its grpc-agent pod, and the pod's endpoint. */
function yaml(port: number): string {
  return `apiVersion: v1
kind: Service
metadata: {name: echo, namespace: default}
spec:
  selector: {app: echo}
  ports: [{name: grpc, port: ${port}, targetPort: ${port}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: echo, namespace: default}
spec:
  selector: {matchLabels: {app: echo}}
  template:
    metadata:
      labels: {app: echo}
      annotations: {inject.istio.io/templates: grpc-agent}
    spec:
      serviceAccountName: echo
      containers: [{name: echo, image: echo, ports: [{containerPort: ${port}}]}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: echo-1
  namespace: default
  labels: {kubernetes.io/service-name: echo}
addressType: IPv4
ports: [{name: grpc, port: ${port}, protocol: TCP}]
endpoints:
  - addresses: [${SERVER_POD.podIp}]
    conditions: {ready: true}
    targetRef: {kind: Pod, name: ${SERVER_POD.podName}, namespace: default}
`;
}

let binary: string;
let dir: string;
let mock: TestMockIstiod | undefined;
beforeAll(async () => {
  binary = await buildGrpcXdsGo();
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-grpc-go-'));
}, 600_000);
afterEach(async () => {
  await stopAllGrpcXdsGo();
  await mock?.close();
  mock = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The mock serving istiod's answer for the echo pod, a grpc-go server, and the client's
 * bootstrap; with `mtls`, STRICT mutual TLS, and each pod's certificate from the mock's CA
 * written by `bootstrap --grpc --certs`.
 */
async function lab(options: { mtls?: boolean } = {}) {
  const port = await freePort();
  writeFileSync(join(dir, 'echo.yaml'), yaml(port) + (options.mtls ? MTLS : ''));
  const out = join(dir, `echo-${port}.json`);
  const generated = await cli.run(
    ['generate', join(dir, 'echo.yaml'), '-o', out, '--upstream', `127.0.0.1:${port}`],
    { timeoutMs: 60_000 },
  );
  expect(generated.code, generated.stderr).toBe(0);
  mock = await startMockIstiod({ resourcesPath: out });
  const files = {} as Record<'server' | 'client', string>;
  for (const [role, pod] of [
    ['server', SERVER_POD],
    ['client', CLIENT_POD],
  ] as const) {
    files[role] = join(dir, `${role}-${port}.json`);
    if (options.mtls) {
      const written = await cli.run(
        [
          'bootstrap',
          '--grpc',
          '--discovery-address',
          mock.xdsAddress,
          '--certs',
          join(dir, `${role}-${port}-certs`),
          '--control-port',
          String(mock.addresses.control?.port),
          '--out',
          files[role],
        ],
        {
          podEnv: {
            POD_NAME: pod.podName,
            POD_NAMESPACE: 'default',
            INSTANCE_IP: pod.podIp,
            SERVICE_ACCOUNT: pod.serviceAccount,
          },
        },
      );
      expect(written.code, written.stderr).toBe(0);
    } else {
      const { host, port: xdsPort } = mock.addresses.xds;
      const bootstrap = makeGrpcBootstrap({ ...pod, discoveryHost: host, discoveryPort: xdsPort });
      writeFileSync(files[role], JSON.stringify(bootstrap));
    }
  }
  const server = startGrpcXdsGo(binary, ['server', '-port', String(port)], files.server);
  await serving(server);
  const serverNode = `sidecar~${SERVER_POD.podIp}~${SERVER_POD.podName}.default~default.svc.cluster.local`;
  await mock.waitForAck(LISTENER_TYPE, { node: serverNode, timeoutMs: 20_000 });
  const clientNode = `sidecar~${CLIENT_POD.podIp}~${CLIENT_POD.podName}.default~default.svc.cluster.local`;
  return {
    port,
    target: `xds:///${HOST}:${port}`,
    clientFile: files.client,
    serverNode,
    clientNode,
  };
}

it('a grpc-go client reaches a grpc-go xDS server through the mock', async () => {
  const { target, clientFile, serverNode, port } = await lab();
  const results = await runGrpcClient(binary, ['-target', target, '-n', '3'], clientFile);
  expect(results.map((r) => r.reply)).toEqual([
    'echo:rpc-0 from plaintext',
    'echo:rpc-1 from plaintext',
    'echo:rpc-2 from plaintext',
  ]);
  // The server asked for its own listener by the address it listens on, as istiod names it.
  const server = mock!.streams().find((s) => s.proxy.nodeId === serverNode);
  expect(server?.types.get(LISTENER_TYPE)?.names).toEqual([
    `xds.istio.io/grpc/lds/inbound/[::]:${port}`,
  ]);
  // A client of the same namespace may dial the service by its short names, which istiod
  // resolves: generate asked for them too.
  for (const short of ['echo', 'echo.default']) {
    const [reply] = await runGrpcClient(binary, ['-target', `xds:///${short}:${port}`], clientFile);
    expect(reply?.reply ?? reply?.error).toBe('echo:rpc-0 from plaintext');
  }
});

it("with STRICT mTLS from the mock's CA, the server sees the client's SPIFFE id", async () => {
  const { target, clientFile } = await lab({ mtls: true });
  const results = await runGrpcClient(binary, ['-target', target, '-n', '2'], clientFile);
  expect(results.map((r) => r.reply ?? r.error)).toEqual([
    `echo:rpc-0 from spiffe://cluster.local/ns/default/sa/${CLIENT_POD.serviceAccount}`,
    `echo:rpc-1 from spiffe://cluster.local/ns/default/sa/${CLIENT_POD.serviceAccount}`,
  ]);
});

it('a grpc-go process that serves and calls opens two xDS streams of one node (istio#53532)', async () => {
  const { target, serverNode, port } = await lab();
  // A second process of the server's pod: it serves on another port and calls the echo service.
  const other = await freePort();
  const both = startGrpcXdsGo(
    binary,
    ['server', '-port', String(other), '-call', target],
    join(dir, `server-${port}.json`),
  );
  await waitFor(() => both.lines().length >= 4, { description: 'three RPCs', timeoutMs: 20_000 });
  const replies = both.lines().slice(1) as { ok: boolean; reply?: string }[];
  expect(replies.slice(0, 3).map((r) => r.reply)).toEqual([
    'echo:rpc-0 from plaintext',
    'echo:rpc-1 from plaintext',
    'echo:rpc-2 from plaintext',
  ]);
  const mine = (s: { proxy: { nodeId: string } }) => s.proxy.nodeId === serverNode;
  const listeners = () =>
    JSON.stringify(
      mock!
        .streams()
        .filter(mine)
        .map((s) => s.types.get(LISTENER_TYPE)?.names)
        .sort(),
    );
  // The first server's stream, and the second process's two: its server's and its channel's
  // (each asks for its listener when it gets there: waited for, not assumed).
  // Sorted as the streams' names are: the two ports are free ones, in either order.
  const expected = JSON.stringify(
    [
      [`${HOST}:${port}`],
      [`xds.istio.io/grpc/lds/inbound/[::]:${other}`],
      [`xds.istio.io/grpc/lds/inbound/[::]:${port}`],
    ].sort(),
  );
  await waitFor(() => listeners() === expected, {
    description: `three streams of ${serverNode} asking for ${expected}`,
    timeoutMs: 20_000,
    explain: () => `the streams asked for ${listeners()}`,
  });
  const syncz = await fetch(`http://127.0.0.1:${mock!.addresses.control?.port}/debug/syncz`);
  const listed = ((await syncz.json()) as { proxy: string }[]).filter(
    (entry) => entry.proxy === `${SERVER_POD.podName}.default`,
  );
  expect(listed).toHaveLength(3);
});

it('a NACK provoked on the client target: RPCs go on on the last good configuration; syncz shows it', async () => {
  const { target, clientFile, clientNode } = await lab();
  const client = startGrpcXdsGo(
    binary,
    ['client', '-target', target, '-n', '100', '-interval', '100ms'],
    clientFile,
  );
  await waitFor(() => client.lines().length >= 2, { description: 'two RPCs', timeoutMs: 20_000 });
  const fault = await mock!.control.inject({
    scenario: 'nack',
    params: { config: 'grpc-no-route' },
    scope: { node: clientNode },
  });
  const { nack } = await mock!.control.waitForAck({
    type: 'LDS',
    node: clientNode,
    version: `${mock!.snapshot().get(LISTENER_TYPE).version}+nack.grpc-no-route`,
  });
  expect(nack?.message).toMatch(
    /^error parsing "ListenerResource" response: resource ".*": no RouteSpecifier/,
  );
  const before = client.lines().length;
  await waitFor(() => client.lines().length >= before + 5, {
    description: 'five RPCs after the NACK',
    timeoutMs: 20_000,
  });
  const syncz = await fetch(`http://127.0.0.1:${mock!.addresses.control?.port}/debug/syncz`);
  const entry = (
    (await syncz.json()) as { proxy: string; resources?: Record<string, { lastError?: string }> }[]
  ).find((e) => e.proxy === `${CLIENT_POD.podName}.default`);
  expect(JSON.stringify(entry?.resources)).toContain('no RouteSpecifier');
  expect((await fault.info()).counts).toMatchObject({ sent: 1, rejected: 1 });
  await client.stop();
  expect((client.lines() as { ok: boolean }[]).filter((r) => !r.ok)).toEqual([]);
});

it('withheld: a wait-for-ready RPC waits until release, then completes', async () => {
  const { target, clientFile, clientNode } = await lab();
  await mock!.control.withhold();
  const rpc = runGrpcClient(binary, ['-target', target, '-wait', '-deadline', '20s'], clientFile);
  await mock!.waitForRequest('LDS', { node: clientNode, timeoutMs: 20_000 });
  await mock!.expectNoResponse('LDS', 500, { node: clientNode });
  await mock!.control.release();
  const [result] = await rpc;
  expect(result).toMatchObject({ ok: true, reply: 'echo:rpc-0 from plaintext' });
  expect(result?.ms).toBeGreaterThanOrEqual(500);
});

it('down: RPCs go on on the configuration the client has; it comes back after up', async () => {
  // 15 s of RPCs: grpc-go retries its xDS stream with a back-off of about 1 s, then longer.
  const { target, clientFile, clientNode } = await lab();
  const client = startGrpcXdsGo(
    binary,
    ['client', '-target', target, '-n', '150', '-interval', '100ms'],
    clientFile,
  );
  await waitFor(() => client.lines().length >= 3, { description: 'three RPCs', timeoutMs: 20_000 });
  await mock!.control.down();
  const during = client.lines().length;
  await waitFor(() => client.lines().length >= during + 5, {
    description: 'five RPCs while the mock is down',
    timeoutMs: 20_000,
  });
  const reconnects = mock!.journal.query({ kind: 'reconnect', node: clientNode }).length;
  await mock!.control.up();
  await waitFor(
    () => mock!.journal.query({ kind: 'reconnect', node: clientNode }).length > reconnects,
    { description: 'the client to reconnect after up', timeoutMs: 30_000 },
  );
  const after = client.lines().length;
  await waitFor(() => client.lines().length >= after + 3, {
    description: 'three RPCs after the client came back',
    timeoutMs: 20_000,
  });
  await client.stop();
  const results = client.lines() as { ok: boolean }[];
  expect(results.length).toBeGreaterThanOrEqual(after + 3);
  expect(results.filter((r) => !r.ok)).toEqual([]);
});

it('the live page shows each xDS stream of the grpc-go processes as a proxyless pod, and the NACK', async () => {
  const { target, clientFile, serverNode, clientNode, port } = await lab();
  // Three streams of the server's pod (its server, and a process that serves and calls), and
  // the client's one.
  const other = await freePort();
  startGrpcXdsGo(
    binary,
    ['server', '-port', String(other), '-call', target],
    join(dir, `server-${port}.json`),
  );
  const client = startGrpcXdsGo(
    binary,
    ['client', '-target', target, '-n', '1000', '-interval', '100ms'],
    clientFile,
  );
  await waitFor(() => client.lines().length >= 2, { description: 'two RPCs', timeoutMs: 20_000 });
  const page = await browser.open(`http://127.0.0.1:${mock!.addresses.control?.port}/ui/`);
  const POLL = { timeout: 20_000, interval: 200 };
  const pods = page.getByTestId('pod');
  await expect.poll(() => pods.count(), POLL).toBe(4);
  expect(await page.locator(`[data-node-id="${serverNode}"]`).count()).toBe(3);
  // Each is tagged for what it is, with no READY badge and no Envoy facts to poll.
  expect(await page.getByTestId('pod-proxyless').count()).toBe(4);
  expect(await page.getByTestId('pod-ready').count()).toBe(0);
  expect(await page.getByTestId('server-state').count()).toBe(0);
  expect(await page.getByTestId('pod-proxyless').first().getAttribute('title')).toContain(
    'no admin API',
  );
  const clientCard = page.locator(`[data-node-id="${clientNode}"]`);
  const lds = clientCard.getByTestId('type-LDS');
  await expect.poll(() => lds.getByTestId('sync-status').textContent(), POLL).toBe('SYNCED');
  expect(await lds.getByTestId('type-names').textContent()).toBe(`${HOST}:${port}`);
  expect(await clientCard.getByTestId('xds-client').textContent()).toBe(
    'gRPC (GENERATOR grpc), no Envoy',
  );

  await mock!.control.inject({
    scenario: 'nack',
    params: { config: 'grpc-no-route' },
    scope: { node: clientNode },
  });
  await expect.poll(() => lds.getByTestId('sync-status').textContent(), POLL).toBe('ERROR');
  expect(await lds.locator('.nack-text').textContent()).toContain('no RouteSpecifier');
  // The client goes on on its last good configuration.
  const before = client.lines().length;
  await waitFor(() => client.lines().length >= before + 3, {
    description: 'three RPCs after the NACK',
    timeoutMs: 20_000,
  });
  expect((client.lines() as { ok: boolean }[]).filter((r) => !r.ok)).toEqual([]);
});
