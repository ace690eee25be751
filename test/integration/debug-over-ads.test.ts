import * as grpc from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import { envoyRoot } from '../../src/xds/protos.js';
import {
  CLIENT_CONFIG_TYPE,
  CONFIG_DUMP_DEBUG_TYPE,
  DEBUG_TYPE,
  LISTENER_TYPE,
  SYNCZ_DEBUG_TYPE,
} from '../../src/xds/type-urls.js';
import { ack, handshake } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import type { AdsTestClient } from '../../src/testing/ads-client.js';
import { it } from '../support/fixtures/test.js';

const clientConfigType = envoyRoot().lookupType('envoy.service.status.v3.ClientConfig');

interface DecodedClientConfig {
  node: { id: string; metadata: unknown };
  generic_xds_configs: { type_url: string; config_status: string }[];
}

function decodeClientConfig(value: Buffer): DecodedClientConfig {
  return clientConfigType.toObject(clientConfigType.decode(value), {
    enums: String,
  }) as DecodedClientConfig;
}

/** istioctl's node: adsc's `sidecar~<ip>~test-1.<ns>~<ns>.svc.cluster.local`, no PROXY_CONFIG. */
const istioctlNode = () => ({
  id: 'sidecar~10.1.2.3~test-1.default~default.svc.cluster.local',
  metadata: { GENERATOR: 'event', ISTIO_VERSION: '65536.65536.65536' },
});

/** A proxy that has its CDS ACKed and an LDS response out, unanswered (istiod: STALE). */
async function connectedProxy(client: AdsTestClient) {
  const stream = client.sotw();
  const { lds } = await handshake(stream);
  return { stream, lds };
}

describe("istiod's debug types over ADS, without a verified identity", () => {
  // istiod's default (ENABLE_DEBUG_ENDPOINT_AUTH): conformance cases "Debug types: syncz
  // without a verified identity ends the stream" and its delta twin.
  it.for(['sotw', 'delta'] as const)(
    '%s: refused with UNAUTHENTICATED "authentication required" on a plaintext stream',
    async (protocol, { ads: client }) => {
      await connectedProxy(client);
      const debug = protocol === 'sotw' ? client.sotw() : client.delta();
      debug.send({ type_url: SYNCZ_DEBUG_TYPE, node: istioctlNode() });
      expect(await debug.done).toEqual({
        code: grpc.status.UNAUTHENTICATED,
        details: 'authentication required',
      });
    },
  );
});

describe("istiod's debug types over ADS", () => {
  // What they answer, on the plaintext port the tests use: `debugAuth: false` (the
  // conformance option case "debugAuth: false: the mock answers syncz …").
  it.override({ mockOptions: { debugAuth: false } });

  it('istio.io/debug/syncz: one ClientConfig per proxy, answered on a first request carrying a nonce as istioctl sends it', async ({
    mock: server,
    ads: client,
  }) => {
    await connectedProxy(client);
    const debug = client.sotw();
    debug.send({
      type_url: SYNCZ_DEBUG_TYPE,
      node: istioctlNode(),
      response_nonce: String(new Date()),
    });
    const response = await debug.next();
    expect(response.type_url).toBe(SYNCZ_DEBUG_TYPE);
    expect(response.resources.map((r) => r.type_url)).toEqual([CLIENT_CONFIG_TYPE]);
    const config = decodeClientConfig(response.resources[0]?.value ?? Buffer.alloc(0));
    expect(config.node.id).toBe(sidecarNode().id.split('~')[2]);
    expect(
      config.generic_xds_configs.map((c) => [c.type_url.split('.').pop(), c.config_status]),
    ).toEqual([
      ['Cluster', 'SYNCED'],
      ['Listener', 'STALE'],
    ]);
    // istioctl reads the ISTIOD column from the control plane identifier, as istiod's JSON.
    expect(JSON.parse(response.control_plane?.identifier ?? '')).toMatchObject({
      Component: 'istiod',
      ID: 'mock-istiod',
    });
    expect(server.streams()).toHaveLength(1);
  });

  it('answers every debug request (no watch, no ACK expected), and reports NACKs as ERROR', async ({
    ads: client,
  }) => {
    const { stream, lds } = await connectedProxy(client);
    stream.send({
      type_url: LISTENER_TYPE,
      response_nonce: lds.nonce,
      error_detail: { code: 13, message: 'bad listener' },
    });
    const debug = client.sotw();
    debug.send({ type_url: SYNCZ_DEBUG_TYPE, node: istioctlNode() });
    await debug.next();
    debug.send({ type_url: SYNCZ_DEBUG_TYPE });
    const again = await debug.next();
    const config = decodeClientConfig(again.resources[0]?.value ?? Buffer.alloc(0));
    expect(config.generic_xds_configs.map((c) => c.config_status)).toEqual(['SYNCED', 'ERROR']);
  });

  it("istio.io/debug/config_dump: the named proxy's dump sections; nothing for an unknown proxy", async ({
    ads: client,
  }) => {
    const { stream, lds } = await connectedProxy(client);
    ack(stream, lds);
    const debug = client.sotw();
    debug.send({
      type_url: CONFIG_DUMP_DEBUG_TYPE,
      node: istioctlNode(),
      resource_names: ['orders-v1-0.default'],
    });
    const dump = await debug.next();
    const sections = dump.resources.map((r) => r.type_url.split('.').pop());
    expect(sections).toContain('ClustersConfigDump');
    expect(sections).toContain('ListenersConfigDump');
    const listeners = dump.resources.find((r) => r.type_url.endsWith('ListenersConfigDump'));
    expect(listeners?.value.toString('latin1')).toContain('virtualInbound');
    debug.send({ type_url: CONFIG_DUMP_DEBUG_TYPE, resource_names: ['nobody.nowhere'] });
    expect((await debug.next()).resources).toEqual([]);
  });

  it('istio.io/debug: the body of the named /debug endpoint, as istioctl x internal-debug reads it', async ({
    ads: client,
  }) => {
    await connectedProxy(client);
    const debug = client.sotw();
    debug.send({ type_url: DEBUG_TYPE, node: istioctlNode(), resource_names: ['syncz'] });
    const syncz = await debug.next();
    const body = JSON.parse(syncz.resources[0]?.value.toString('utf8') ?? '') as {
      proxy: string;
      cluster_acked?: string;
    }[];
    expect(body.map((entry) => entry.proxy)).toEqual(['orders-v1-0.default']);
    expect(body[0]?.cluster_acked).toBeTruthy();
    debug.send({ type_url: DEBUG_TYPE, resource_names: ['config_dump'] });
    expect((await debug.next()).resources[0]?.value.toString()).toContain(
      'You must provide a proxyID',
    );
    debug.send({ type_url: DEBUG_TYPE, resource_names: [] });
    expect(await debug.done).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'exactly one debug request is required',
    });
  });

  it('over delta too', async ({ ads: client }) => {
    await connectedProxy(client);
    const debug = client.delta();
    debug.send({ type_url: SYNCZ_DEBUG_TYPE, node: istioctlNode(), response_nonce: 'x' });
    const response = await debug.nextDelta();
    expect(response.resources.map((r) => [r.name, r.resource.type_url])).toEqual([
      ['orders-v1-0.default', CLIENT_CONFIG_TYPE],
    ]);
  });

  it('debug clients are no proxies: not in syncz, connections, the journal or pilot_xds', async ({
    mock: server,
    ads: client,
  }) => {
    await connectedProxy(client);
    const debug = client.sotw();
    debug.send({ type_url: SYNCZ_DEBUG_TYPE, node: istioctlNode() });
    await debug.next();
    const control = `http://127.0.0.1:${server.addresses.control?.port}`;
    const syncz = (await (await fetch(`${control}/debug/syncz`)).json()) as unknown[];
    const connections = (await (await fetch(`${control}/debug/connections`)).json()) as {
      totalClients: number;
    };
    const metrics = await (await fetch(`${control}/metrics`)).text();
    expect(syncz).toHaveLength(1);
    expect(connections.totalClients).toBe(1);
    expect(metrics).toMatch(/^pilot_xds\{[^}]*\} 1$/m);
    expect(server.journal.query().filter((e) => e.nodeId?.includes('test-1'))).toEqual([]);
  });
});
