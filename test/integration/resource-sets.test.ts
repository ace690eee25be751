import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { makeHttpListener } from '../../src/resources/listener.js';
import type { ClientResponse } from '../../src/testing/ads-client.js';
import { waitFor } from '../../src/util/wait.js';
import { envoyRoot } from '../../src/xds/protos.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it } from '../support/fixtures/test.js';

const DURATION_MESSAGE = 'expected a duration "<seconds>s", e.g. "1.5s", found "1 minute"';
const clusterType = envoyRoot().lookupType('envoy.config.cluster.v3.Cluster');
const clusterNames = (r: ClientResponse) =>
  r.resources.map((x) => (clusterType.decode(x.value) as unknown as { name: string }).name).sort();

function nodeIn(clusterId: string, pod = 'orders-v1-0', ip = '10.0.0.1') {
  const node = sidecarNode(pod, 'default', ip);
  return { ...node, metadata: { ...node.metadata, CLUSTER_ID: clusterId } };
}

describe('resource files, hot-reloaded', () => {
  it('pushes a good change, and keeps serving the last good set when a change is bad', async ({
    startMock,
    connect,
    onTestFinished,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-reload-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'lab.json');
    writeFileSync(file, JSON.stringify(makeLabResources()));
    const server = await startMock({ resources: [], resourcesPath: file });
    const client = connect(server);
    const stream = client.sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    expect(clusterNames(await stream.next())).toEqual(['BlackHoleCluster', 'inbound|8101||']);

    writeFileSync(
      file,
      JSON.stringify([...makeLabResources(), makeStaticCluster({ name: 'extra', endpoints: [] })]),
    );
    expect(clusterNames(await stream.next())).toEqual([
      'BlackHoleCluster',
      'extra',
      'inbound|8101||',
    ]);
    const good = server.snapshot().get(CLUSTER_TYPE).version;

    const errors: string[] = [];
    server.events.on('resources-error', (_path, problems) =>
      errors.push(...problems.map((p) => `${p.path}: ${p.message}`)),
    );
    writeFileSync(
      file,
      JSON.stringify([
        { ...makeStaticCluster({ name: 'x', endpoints: [] }), connect_timeout: '1 minute' },
      ]),
    );
    await waitFor(() => errors.length > 0, { description: 'the bad reload to be reported' });
    expect(errors).toEqual([`${file}: [0].connect_timeout: ${DURATION_MESSAGE}`]);
    expect((await server.control.resourceStatus()).lastError?.problems[0]?.path).toBe(
      `${file}: [0].connect_timeout`,
    );
    expect(server.snapshot().get(CLUSTER_TYPE).version).toBe(good);
  });
});

describe('resource sets selected per node', () => {
  it('serves proxies by CLUSTER_ID, and mixes those that claim the same one, with a warning', async ({
    startMock,
    connect,
  }) => {
    const lab = makeLabResources();
    const server = await startMock({
      resources: [
        {
          name: 'east',
          match: { metadata: { CLUSTER_ID: 'east' } },
          resources: [makeStaticCluster({ name: 'east-only', endpoints: [] })],
        },
        { name: 'default', resources: lab },
      ],
    });
    const client = connect(server);
    const collisions: string[] = [];
    server.events.on('collision', (c) => collisions.push(c.key));

    const east = client.sotw();
    east.send({ type_url: CLUSTER_TYPE, node: nodeIn('east') });
    expect(clusterNames(await east.next())).toEqual(['east-only']);
    const other = client.sotw();
    other.send({ type_url: CLUSTER_TYPE, node: nodeIn('Kubernetes', 'payments-0') });
    expect(clusterNames(await other.next())).toEqual(['BlackHoleCluster', 'inbound|8101||']);
    expect(collisions).toEqual([]);

    // A proxy from another cluster that claims CLUSTER_ID east (same pod name, other IP)
    // gets east's configuration, and the mock warns that the two collide.
    const impostor = client.sotw();
    impostor.send({ type_url: CLUSTER_TYPE, node: nodeIn('east', 'orders-v1-0', '10.9.9.9') });
    expect(clusterNames(await impostor.next())).toEqual(['east-only']);
    expect(collisions).toEqual(['pod "orders-v1-0.default" in CLUSTER_ID "east"']);
  });
});

describe('a proxy whose set goes away', () => {
  it('is pushed the set that now matches it, with no content change to announce', async ({
    startMock,
    connect,
  }) => {
    const lab = makeLabResources();
    const east = {
      name: 'east',
      match: { metadata: { CLUSTER_ID: 'east' } },
      resources: [makeStaticCluster({ name: 'east-only', endpoints: [] })],
    };
    const server = await startMock({ resources: [east, { name: 'default', resources: lab }] });
    const client = connect(server);
    const stream = client.sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: nodeIn('east') });
    const first = await stream.next();
    expect(clusterNames(first)).toEqual(['east-only']);
    stream.send({
      type_url: CLUSTER_TYPE,
      response_nonce: first.nonce,
      version_info: first.version_info,
    });

    // Only the east set is removed: the default set's content is untouched.
    await server.control.setResources({ sets: [{ name: 'default', resources: lab }] });
    const moved = await stream.next();
    expect(clusterNames(moved)).toEqual(['BlackHoleCluster', 'inbound|8101||']);
    expect(moved.version_info).not.toBe(first.version_info);
    stream.send({
      type_url: CLUSTER_TYPE,
      response_nonce: moved.nonce,
      version_info: moved.version_info,
    });

    // A selector that now matches it again moves it back.
    await server.control.setResources({ sets: [east, { name: 'default', resources: lab }] });
    expect(clusterNames(await stream.next())).toEqual(['east-only']);
  });
});

describe('reset', () => {
  it('serves the start-up sets again, as validated at start, dropping sets added since', async ({
    startMock,
  }) => {
    const server = await startMock();
    const startup = server.snapshot().get(CLUSTER_TYPE).resources;
    const east = { name: 'east', match: { nodeId: 'east~*' }, resources: [] };
    await server.control.setResources({ sets: [east, { name: 'default', resources: [] }] });
    await server.control.reset();
    expect((await server.control.getResources()).sets.map((s) => s.name)).toEqual(['default']);
    const again = server.snapshot().get(CLUSTER_TYPE).resources;
    expect([...again.values()]).toEqual([...startup.values()]);
  });
});

describe('PUT /control/resources with references Envoy will reject', () => {
  it('serves them all the same, and answers what Envoy will NACK as warnings with paths', async ({
    startMock,
    connect,
  }) => {
    const server = await startMock();
    const client = connect(server);
    const stream = client.sotw();
    stream.send({ type_url: LISTENER_TYPE, node: sidecarNode() });
    await stream.next();
    // virtualInbound now routes to a cluster nobody defined: Envoy will NACK it.
    const broken = makeHttpListener({
      name: 'virtualInbound',
      address: '127.0.0.1',
      port: 15006,
      direction: 'INBOUND',
      cluster: 'reviews-v9',
    });
    const next = makeLabResources().map((r) => (r.name === 'virtualInbound' ? broken : r));
    const url = `http://127.0.0.1:${server.addresses.control?.port}`;
    const put = await fetch(`${url}/control/resources`, {
      method: 'PUT',
      body: JSON.stringify({ resources: next }),
    });
    const route =
      'filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[0].route';
    const warnings = [
      {
        path: `resources[2].${route}.cluster`,
        message: "unknown cluster 'reviews-v9': Envoy rejects this (NACK) whenever it is sent",
      },
    ];
    expect(put.status).toBe(200);
    const body = (await put.json()) as { version: string };
    expect(body).toMatchObject({ changed: ['LDS'], warnings });
    const pushed = await stream.next();
    expect([pushed.version_info, pushed.resources.length]).toEqual([body.version, 2]);
    const status = await fetch(`${url}/debug/resources`);
    expect(await status.json()).toMatchObject({ source: 'api', warnings });
  });
});
