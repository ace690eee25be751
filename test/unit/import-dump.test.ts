/**
 * Importing a config_dump (the istioctl-shaped fixture of a bookinfo productpage sidecar):
 * what is served, each rewrite and what it reports, the validation an import shares with
 * resource files (paths in the dump), kept versions, and the resource file it writes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importConfigDump, type ImportOptions } from '../../src/import/import-dump.js';
import { formatResourceFile } from '../../src/import/resource-file.js';
import type { ListenerRewrite } from '../../src/import/rewrite-listeners.js';
import { loadAndValidate } from '../../src/resources/file-source.js';
import { createSnapshotStore } from '../../src/snapshot/store.js';
import { CLUSTER_TYPE, LISTENER_TYPE, ROUTE_TYPE, SECRET_TYPE } from '../../src/xds/type-urls.js';
import { isObject } from '../../src/util/guards.js';
import { ISTIOCTL_FIXTURE } from '../support/harness/import-lab.js';
import { duplicateAddresses } from '../../src/import/rewrite-listeners.js';

type Json = Record<string, unknown>;

const fixture = () => JSON.parse(readFileSync(ISTIOCTL_FIXTURE, 'utf8')) as Json;

/** The value at a path such as `filter_chains[0].transport_socket` (undefined when absent). */
function at(value: unknown, path: string): unknown {
  return path
    .split(/\.|(?=\[)/)
    .filter(Boolean)
    .reduce<unknown>((v, key) => {
      const index = /^\[(\d+)\]$/.exec(key);
      if (index) return Array.isArray(v) ? (v[Number(index[1])] as unknown) : undefined;
      return isObject(v) ? v[key] : undefined;
    }, value);
}

const list = (value: unknown) => (Array.isArray(value) ? (value as unknown[]) : []);

/** The worked example of docs/import.md. */
const LOCAL: Partial<ImportOptions> = {
  endpoints: { upstream: { address: '127.0.0.1', port: 8080 } },
  listeners: { loopback: true, portOffset: 20000, ports: new Map(), bindVirtual: true },
  sds: { mode: 'plaintext' },
  originalDstToUpstream: true,
  dropUnknownExtensions: true,
};

function imported(dump: unknown = fixture(), options: Partial<ImportOptions> = LOCAL) {
  const result = importConfigDump(dump, options);
  if (!result.ok) throw new Error(`import failed: ${JSON.stringify(result.problems, null, 1)}`);
  return result.value;
}

const ENDPOINTS = 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment';

function resource(dump: ReturnType<typeof imported>, type: string, name: string): Json {
  const found = dump.spec.resources.find(
    (r) => at(r, '@type') === type && (at(r, 'name') ?? at(r, 'cluster_name')) === name,
  );
  if (!isObject(found)) throw new Error(`no ${type} ${name}`);
  return found;
}

describe('importing a config_dump', () => {
  it('serves the dynamic resources and reports the rest', () => {
    const { report } = imported();
    expect(report.counts).toEqual({ CDS: 6, EDS: 2, LDS: 4, RDS: 1 });
    const notImported = report.notImported.map((p) => p.path);
    expect(notImported).toEqual([
      'configs[0].bootstrap',
      'configs[1].static_clusters',
      'configs[2].static_listeners',
      'configs[5]',
      'configs[6].dynamic_endpoint_configs',
    ]);
    expect(report.inFlight.map((p) => p.message)).toEqual([
      expect.stringContaining('multiple filter chains with the same matching rules'),
      'listener 0.0.0.0_9091 was warming (no active version): the warming one is served',
      'listener 0.0.0.0_9411 was draining (being removed): not served',
    ]);
  });

  it('refuses extensions upstream Envoy lacks, naming each, unless asked to drop them', () => {
    const result = importConfigDump(fixture(), { ...LOCAL, dropUnknownExtensions: false });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems[0]).toEqual({
      path: 'configs[1].dynamic_active_clusters[4].cluster.filters[0]',
      message:
        "istio.metadata_exchange (envoy.tcp.metadataexchange.config.MetadataExchange): an extension upstream Envoy does not have (Istio's own build?); --drop-unknown-extensions removes it",
    });
    expect(new Set(problems.map((p) => /\((\S+)\)/.exec(p.message)?.[1]))).toEqual(
      new Set([
        'envoy.tcp.metadataexchange.config.MetadataExchange',
        'io.istio.http.peer_metadata.Config',
        'istio.envoy.config.filter.http.alpn.v2alpha1.FilterConfig',
        'stats.PluginConfig',
      ]),
    );
    const outbound = resource(imported(), LISTENER_TYPE, '0.0.0.0_9080');
    const filters = list(at(outbound, 'filter_chains[0].filters[0].typed_config.http_filters'));
    expect(filters.map((f) => at(f, 'name'))).toEqual([
      'envoy.filters.http.grpc_stats',
      'envoy.filters.http.fault',
      'envoy.filters.http.cors',
      'envoy.filters.http.router',
    ]);
  });

  it('rewrites endpoints, listeners, original-destination clusters and SDS as asked', () => {
    const dump = imported();
    const reviews = resource(dump, ENDPOINTS, 'outbound|9080||reviews.default.svc.cluster.local');
    const addresses = list(at(reviews, 'endpoints[0].lb_endpoints')).map((e) =>
      at(e, 'endpoint.address.socket_address'),
    );
    expect(addresses).toEqual(Array(3).fill({ address: '127.0.0.1', port_value: 8080 }));
    const outbound = resource(dump, LISTENER_TYPE, '0.0.0.0_9080');
    expect(at(outbound, 'address.socket_address')).toEqual({
      address: '127.0.0.1',
      port_value: 29080,
    });
    expect(outbound.bind_to_port).toBeUndefined();
    const passthrough = resource(dump, CLUSTER_TYPE, 'PassthroughCluster');
    expect(passthrough).toMatchObject({
      type: 'STATIC',
      load_assignment: { cluster_name: 'PassthroughCluster' },
    });
    expect(passthrough.lb_policy).toBeUndefined();
    const reviewsCluster = resource(
      dump,
      CLUSTER_TYPE,
      'outbound|9080||reviews.default.svc.cluster.local',
    );
    expect(reviewsCluster.transport_socket_matches).toEqual([
      expect.objectContaining({ name: 'tlsMode-disabled' }),
    ]);
    const inbound = resource(dump, LISTENER_TYPE, 'virtualInbound');
    expect(at(inbound, 'filter_chains[0].transport_socket')).toBeUndefined();
    expect(dump.report.cannotWork.map((p) => p.path)).toEqual([
      'configs[2].dynamic_listeners[1].active_state.listener.use_original_dst',
      'configs[2].dynamic_listeners[2].active_state.listener.listener_filters[0]',
      'configs[2].dynamic_listeners[2].active_state.listener.filter_chains[0].filter_chain_match.transport_protocol',
    ]);
  });

  it('without rewrites, names what cannot work here and why', () => {
    const { report } = imported(fixture(), { dropUnknownExtensions: true });
    const messages = report.cannotWork.map((p) => p.message).join('\n');
    expect(messages).toContain('PassthroughCluster is ORIGINAL_DST');
    expect(messages).toContain('0.0.0.0_9080 is not bound: only iptables');
    expect(messages).toContain("secret default comes from sds-grpc (pilot-agent's SDS)");
    expect(report.rewrites.every((r) => r.message.includes('dropped'))).toBe(true);
  });

  it('--sds ca: references become Secrets of the CA files, served over ADS', () => {
    const files = {
      rootCert: '/ca/root-cert.pem',
      certChain: '/ca/cert-chain.pem',
      key: '/ca/key.pem',
    };
    const dump = imported(fixture(), { ...LOCAL, sds: { mode: 'ca', files } });
    expect(dump.report.counts.SDS).toBe(2);
    expect(resource(dump, SECRET_TYPE, 'default').tls_certificate).toEqual({
      certificate_chain: { filename: '/ca/cert-chain.pem' },
      private_key: { filename: '/ca/key.pem' },
    });
    expect(resource(dump, SECRET_TYPE, 'ROOTCA').validation_context).toEqual({
      trusted_ca: { filename: '/ca/root-cert.pem' },
    });
    const tls = at(
      resource(dump, LISTENER_TYPE, 'virtualInbound'),
      'filter_chains[0].transport_socket.typed_config.common_tls_context',
    );
    expect(at(tls, 'tls_certificate_sds_secret_configs')).toEqual([
      { name: 'default', sds_config: { ads: {}, resource_api_version: 'V3' } },
    ]);
    expect(at(tls, 'combined_validation_context.default_validation_context')).toEqual({});
  });

  it('maps endpoints by cluster, address:port or address, and names the ones left', () => {
    const map = new Map([
      ['outbound|9080||details.default.svc.cluster.local', { address: '127.0.0.1', port: 9001 }],
      ['10.244.0.15:9080', { address: '127.0.0.1', port: 9002 }],
      ['10.244.0.16', { address: '127.0.0.1', port: 9003 }],
    ]);
    const dump = imported(fixture(), { ...LOCAL, endpoints: { map } });
    const ports = (cluster: string) =>
      list(at(resource(dump, ENDPOINTS, cluster), 'endpoints[0].lb_endpoints')).map((e) =>
        at(e, 'endpoint.address.socket_address.port_value'),
      );
    expect(ports('outbound|9080||details.default.svc.cluster.local')).toEqual([9001]);
    expect(ports('outbound|9080||reviews.default.svc.cluster.local')).toEqual([9002, 9003, 9080]);
    expect(dump.report.cannotWork).toContainEqual({
      path: 'configs[6].dynamic_endpoint_configs[1].endpoint_config.endpoints[0].lb_endpoints[2].endpoint.address.socket_address',
      message:
        '10.244.0.17:9080 of outbound|9080||reviews.default.svc.cluster.local: not in the upstream map, kept (reachable from here?)',
    });
  });

  it('refuses what Envoy would reject, at its path in the dump', () => {
    const dump = fixture();
    const clusters = list(at(dump, 'configs[1].dynamic_active_clusters'));
    const blackHole = at(clusters[0], 'cluster') as Json;
    blackHole.conect_timeout = '1s';
    // virtualInbound's inline route names inbound|9080||: without it Envoy NACKs the listener.
    clusters.splice(3, 1);
    const result = importConfigDump(dump, LOCAL);
    expect(result.ok ? [] : result.problems).toEqual([
      {
        path: 'configs[1].dynamic_active_clusters[0].cluster.conect_timeout',
        message: expect.stringContaining('unknown field "conect_timeout"') as unknown,
      },
    ]);
    delete blackHole.conect_timeout;
    const again = importConfigDump(dump, LOCAL);
    expect(again.ok ? [] : again.problems).toContainEqual({
      path: expect.stringMatching(
        /^configs\[2\]\.dynamic_listeners\[2\]\.active_state\.listener\.filter_chains\[0\]\..*route\.cluster$/,
      ) as unknown,
      message: "unknown cluster 'inbound|9080||'",
    });
  });

  it('refuses two bound listeners on one address, and a file that is no dump', () => {
    const result = importConfigDump(fixture(), {
      ...LOCAL,
      listeners: { ...(LOCAL.listeners as ListenerRewrite), ports: new Map([[15001, 29080]]) },
    });
    expect(result.ok ? [] : result.problems).toEqual([
      {
        path: 'configs[2].dynamic_listeners[1].active_state.listener.address',
        message:
          'virtualOutbound binds 127.0.0.1:29080 as 0.0.0.0_9080 does: Envoy refuses it (move one with --listener-port)',
      },
    ]);
    expect(importConfigDump({ listeners: [] })).toEqual({
      ok: false,
      problems: [{ path: '', message: 'expected a config_dump: { "configs": [ ... ] }' }],
    });
  });
});

describe('--keep-versions', () => {
  // Conformance "Pushes": istiod's push version is shared by every type, so the first
  // change gives every type a new one; with versioning 'per-type' unchanged types keep theirs.
  it('serves the captured versions until a change, which gives every type the new one', () => {
    const dump = imported(fixture(), { ...LOCAL, keepVersions: true });
    expect(dump.report.versions).toEqual({
      CDS: '2026-11-30T10:00:00Z/42',
      LDS: '2026-11-30T10:00:00Z/42',
      RDS: '2026-11-30T10:00:00Z/42',
    });
    const store = createSnapshotStore([dump.validated]);
    expect(store.current().get(CLUSTER_TYPE).version).toBe('2026-11-30T10:00:00Z/42');
    expect(store.current().get(ROUTE_TYPE).version).toBe('2026-11-30T10:00:00Z/42');
    const fewer = dump.spec.resources.filter((r) => at(r, 'name') !== 'BlackHoleCluster');
    expect(store.set(fewer).ok).toBe(true);
    expect(store.current().get(CLUSTER_TYPE).version).not.toBe('2026-11-30T10:00:00Z/42');
    expect(store.current().get(ROUTE_TYPE).version).toBe(store.current().get(CLUSTER_TYPE).version);
  });

  it("with versioning 'per-type', serves each type at the captured version until it changes", () => {
    const dump = imported(fixture(), { ...LOCAL, keepVersions: true });
    const store = createSnapshotStore([dump.validated], { versioning: 'per-type' });
    const fewer = dump.spec.resources.filter((r) => at(r, 'name') !== 'BlackHoleCluster');
    expect(store.set(fewer).ok).toBe(true);
    expect(store.current().get(CLUSTER_TYPE).version).not.toBe('2026-11-30T10:00:00Z/42');
    expect(store.current().get(ROUTE_TYPE).version).toBe('2026-11-30T10:00:00Z/42');
  });
});

describe('the resource file an import writes', () => {
  it.each(['yaml', 'json'] as const)('loads back as the same set (%s)', (format) => {
    const dump = imported(fixture(), { ...LOCAL, keepVersions: true });
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-import-'));
    try {
      const file = join(dir, `productpage.${format}`);
      writeFileSync(file, formatResourceFile(dump, format, 'dump.json'));
      const loaded = loadAndValidate(file);
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
      const [set] = loaded.value.sets;
      expect(set?.packed).toEqual(dump.validated.packed);
      expect(set?.versions).toEqual(dump.validated.versions);
      if (format === 'yaml')
        expect(readFileSync(file, 'utf8')).toMatch(/^# Imported from dump\.json/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('listener addresses', () => {
  it('counts an API listener (a proxyless target) as binding nothing', () => {
    const socket = { socket_address: { address: '0.0.0.0', port_value: 7070 } };
    const server = { name: 'xds.istio.io/grpc/lds/inbound/0.0.0.0:7070', address: socket };
    const target = { name: 'echo:7070', address: socket, api_listener: { api_listener: {} } };
    expect(
      duplicateAddresses([
        { listener: target, path: 'a' },
        { listener: server, path: 'b' },
      ]),
    ).toEqual([]);
    expect(
      duplicateAddresses([
        { listener: server, path: 'a' },
        { listener: { ...server, name: 'other' }, path: 'b' },
      ]).map((p) => p.path),
    ).toEqual(['b.address']);
  });
});
