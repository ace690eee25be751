import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { encodeJson, fromJson, packAnyJson, toJson } from '../../src/xds/json.js';
import { type Problem, formatProblems } from '../../src/util/problems.js';
import { envoyRoot } from '../../src/xds/protos.js';

const root = envoyRoot();
const Cluster = root.lookupType('envoy.config.cluster.v3.Cluster');
const Listener = root.lookupType('envoy.config.listener.v3.Listener');
const Node = root.lookupType('envoy.config.core.v3.Node');
const Int64Range = root.lookupType('envoy.type.v3.Int64Range');
const HCM_NAME =
  'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const HCM = root.lookupType(HCM_NAME);
const PREFIX = 'type.googleapis.com/';
const HCM_URL = PREFIX + HCM_NAME;
const ROUTER_URL = PREFIX + 'envoy.extensions.filters.http.router.v3.Router';
const HPO_URL = PREFIX + 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions';

function encodeOk(type: protobuf.Type, json: unknown, r: protobuf.Root = root): Uint8Array {
  const result = encodeJson(type, json, { root: r });
  if (!result.ok) throw new Error(formatProblems(result.problems));
  return result.value;
}

/** What actually landed on the wire, as protobufjs reads it back. */
function decoded(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  return type.toObject(type.decode(bytes), { longs: String, enums: String, defaults: false });
}

function problemsOf(type: protobuf.Type, json: unknown, path?: string): Problem[] {
  const result = fromJson(type, json, { path });
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.problems;
}

/** Converts to bytes and back to canonical JSON. */
function roundTrip(type: protobuf.Type, json: unknown, r: protobuf.Root = root): unknown {
  return toJson(type, type.decode(encodeOk(type, json, r)), { root: r });
}

const cluster = {
  name: 'outbound|8080||web.default.svc.cluster.local',
  type: 'EDS',
  eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
  connect_timeout: '1s',
  per_connection_buffer_limit_bytes: 1024,
  lb_policy: 'LEAST_REQUEST',
  load_assignment: {
    cluster_name: 'web',
    endpoints: [
      {
        locality: { region: 'r1', zone: 'z1' },
        lb_endpoints: [
          {
            endpoint: { address: { socket_address: { address: '10.0.0.1', port_value: 8080 } } },
            load_balancing_weight: 1,
          },
        ],
      },
    ],
  },
  typed_extension_protocol_options: {
    'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
      '@type': HPO_URL,
      explicit_http_config: { http2_protocol_options: {} },
    },
  },
};

function listener(hcm: Record<string, unknown> = {}): Record<string, unknown> {
  const typedConfig = {
    '@type': HCM_URL,
    stat_prefix: 'inbound_8080',
    route_config: {
      name: 'local',
      virtual_hosts: [
        {
          name: 'web',
          domains: ['*'],
          routes: [{ match: { prefix: '/' }, route: { cluster: 'web', timeout: '0.250s' } }],
        },
      ],
    },
    http_filters: [{ name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER_URL } }],
    ...hcm,
  };
  return {
    name: '0.0.0.0_8080',
    address: { socket_address: { address: '0.0.0.0', port_value: 8080 } },
    filter_chains: [
      {
        filters: [
          { name: 'envoy.filters.network.http_connection_manager', typed_config: typedConfig },
        ],
      },
    ],
  };
}

/** Well-known types the Envoy root does not load, in a root of their own. */
function sampleRoot(): protobuf.Root {
  const r = new protobuf.Root();
  for (const file of 'any duration timestamp empty struct wrappers field_mask'.split(' ')) {
    r.addJSON(protobuf.common.get(`google/protobuf/${file}.proto`)?.nested ?? {});
  }
  const source = `syntax = "proto3"; package test;
    message Sample {
      google.protobuf.FieldMask mask = 1; google.protobuf.Timestamp at = 2; uint64 big = 3;
      optional int32 maybe = 4; google.protobuf.BoolValue flag = 5;
      google.protobuf.Int64Value count = 6; google.protobuf.BytesValue blob = 7;
      google.protobuf.DoubleValue ratio = 8; float small = 9; google.protobuf.Any packed = 10;
      google.protobuf.Empty nothing = 11; map<int32, string> by_id = 12; bytes raw = 13;
      repeated google.protobuf.Duration delays = 14; string label = 15;
    }`;
  protobuf.parse(source, r, { keepCase: true });
  r.resolveAll();
  return r;
}

describe('fromJson / toJson on Envoy resources', () => {
  it('round-trips a Cluster with durations, wrappers, endpoints and a typed Any map', () => {
    const bytes = encodeOk(Cluster, cluster);
    const wire = decoded(Cluster, bytes);
    expect(wire).toMatchObject({
      connect_timeout: { seconds: '1' },
      per_connection_buffer_limit_bytes: { value: 1024 },
      lb_policy: 'LEAST_REQUEST',
      load_assignment: { endpoints: [{ lb_endpoints: [{ load_balancing_weight: { value: 1 } }] }] },
    });
    const options = Object.values(wire['typed_extension_protocol_options'] as object);
    expect(options).toMatchObject([{ type_url: HPO_URL }]);
    expect(toJson(Cluster, Cluster.decode(bytes))).toEqual(cluster);
  });

  it('packs the HTTP connection manager and router inside a Listener, at any depth', () => {
    const bytes = encodeOk(Listener, listener());
    const filter = decoded(Listener, bytes) as {
      filter_chains: { filters: { typed_config: { type_url: string; value: Uint8Array } }[] }[];
    };
    const packed = filter.filter_chains[0]?.filters[0]?.typed_config;
    expect(packed?.type_url).toBe(HCM_URL);
    const hcm = decoded(HCM, packed?.value ?? new Uint8Array());
    expect(hcm).toMatchObject({
      route_config: {
        virtual_hosts: [
          { domains: ['*'], routes: [{ route: { timeout: { nanos: 250_000_000 } } }] },
        ],
      },
      http_filters: [{ typed_config: { type_url: ROUTER_URL } }],
    });
    expect(toJson(Listener, Listener.decode(bytes))).toEqual(listener());
  });

  it('packAnyJson returns the type URL and the bare message bytes', () => {
    const result = packAnyJson({ '@type': PREFIX + 'envoy.config.cluster.v3.Cluster', ...cluster });
    expect(result).toEqual({
      ok: true,
      value: {
        typeUrl: PREFIX + 'envoy.config.cluster.v3.Cluster',
        bytes: encodeOk(Cluster, cluster),
      },
    });
    expect(packAnyJson({ name: 'x' })).toMatchObject({
      ok: false,
      problems: [{ path: '@type', message: 'missing "@type" (google.protobuf.Any)' }],
    });
  });

  it('keeps Node metadata as plain JSON (Struct), nulls included', () => {
    const node = {
      id: 'sidecar~10.0.0.1~web-0.default~default.svc.cluster.local',
      cluster: 'web.default',
      metadata: {
        LABELS: { app: 'web' },
        PROXY_CONFIG: { concurrency: 2, tags: ['a', null, true] },
      },
    };
    const { fields } = decoded(Node, encodeOk(Node, node))['metadata'] as {
      fields: Record<string, { structValue: { fields: Record<string, unknown> } }>;
    };
    expect(fields['LABELS']?.structValue.fields).toEqual({ app: { stringValue: 'web' } });
    const values = [{ stringValue: 'a' }, { nullValue: 'NULL_VALUE' }, { boolValue: true }];
    expect(fields['PROXY_CONFIG']?.structValue.fields).toEqual({
      concurrency: { numberValue: 2 },
      tags: { listValue: { values } },
    });
    expect(roundTrip(Node, node)).toEqual(node);
  });

  it('accepts lowerCamelCase names and prints snake_case', () => {
    const json = { name: 'c', connectTimeout: '2.5s', loadAssignment: { clusterName: 'c' } };
    expect(decoded(Cluster, encodeOk(Cluster, json))).toEqual({
      name: 'c',
      connect_timeout: { seconds: '2', nanos: 500_000_000 },
      load_assignment: { cluster_name: 'c' },
    });
    expect(roundTrip(Cluster, json)).toEqual({
      name: 'c',
      connect_timeout: '2.500s',
      load_assignment: { cluster_name: 'c' },
    });
  });

  it('reads enums by name or number and prints them by name', () => {
    const wire = decoded(Cluster, encodeOk(Cluster, { type: 'STRICT_DNS', lb_policy: 2 }));
    expect(wire).toEqual({ type: 'STRICT_DNS', lb_policy: 'RING_HASH' });
  });

  it('keeps set messages and oneof members at default, drops implicit defaults, null = absent', () => {
    const json = { name: 'c', type: 'STATIC', connect_timeout: '0s', respect_dns_ttl: false };
    expect(roundTrip(Cluster, { ...json, load_assignment: null })).toEqual({
      name: 'c',
      type: 'STATIC',
      connect_timeout: '0s',
    });
  });

  it('writes the canonical encoding: implicit defaults take no bytes, present wrappers do', () => {
    const defaults = { name: '', respect_dns_ttl: false, lb_policy: 'ROUND_ROBIN' };
    expect(encodeOk(Cluster, defaults)).toHaveLength(0);
    const emptyWrapper = Cluster.encode({ per_connection_buffer_limit_bytes: {} }).finish();
    expect(encodeOk(Cluster, { per_connection_buffer_limit_bytes: 0 })).toEqual(emptyWrapper);
    expect(
      roundTrip(Cluster, { per_connection_buffer_limit_bytes: 0, connect_timeout: '0s' }),
    ).toEqual({ per_connection_buffer_limit_bytes: 0, connect_timeout: '0s' });
  });

  it('keeps 64-bit integers exact, from strings or numbers', () => {
    const extremes = { start: '-9223372036854775808', end: '9223372036854775807' };
    expect(decoded(Int64Range, encodeOk(Int64Range, extremes))).toEqual(extremes);
    expect(roundTrip(Int64Range, { start: 5, end: '9007199254740993' })).toEqual({
      start: '5',
      end: '9007199254740993',
    });
    expect(problemsOf(Int64Range, { end: '9223372036854775808' })).toEqual([
      { path: 'end', message: '9223372036854775808 is out of range for int64' },
    ]);
  });
});

describe('well-known types', () => {
  const r = sampleRoot();
  const Sample = r.lookupType('test.Sample');

  it('round-trips FieldMask, Timestamp, wrappers, bytes, maps, optional and Any-of-Duration', () => {
    const json = {
      mask: 'fooBar,baz.quxQuux',
      at: '1972-01-01T10:00:20.021Z',
      big: '18446744073709551615',
      maybe: 0,
      flag: false,
      count: '-12',
      blob: 'AQID',
      ratio: 'NaN',
      small: 0.1,
      packed: { '@type': PREFIX + 'google.protobuf.Duration', value: '-0.001s' },
      nothing: {},
      by_id: { '5': 'five' },
      raw: '_-8',
      delays: ['1s', '0.000000001s'],
    };
    const wire = decoded(Sample, encodeOk(Sample, json, r));
    expect(wire).toMatchObject({
      mask: { paths: ['foo_bar', 'baz.qux_quux'] },
      at: { seconds: '63108020', nanos: 21_000_000 },
      big: '18446744073709551615',
      flag: {},
      count: { value: '-12' },
      by_id: { '5': 'five' },
    });
    expect(roundTrip(Sample, json, r)).toEqual({ ...json, raw: '/+8=' });
  });

  it('normalizes timestamp offsets to UTC', () => {
    expect(roundTrip(Sample, { at: '1972-01-01T11:00:20+01:00' }, r)).toEqual({
      at: '1972-01-01T10:00:20Z',
    });
  });

  it('reports bad well-known values with the expected form', () => {
    const result = fromJson(Sample, { at: 'yesterday', mask: 3, by_id: { x: 'a' }, raw: '%%' });
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      'at',
      'mask',
      'by_id["x"]',
      'raw',
    ]);
  });
});

describe('problems', () => {
  it('names an unknown field with its path and the closest known name', () => {
    expect(problemsOf(Cluster, { conect_timeout: '1s' }, 'resources[2]')).toEqual([
      {
        path: 'resources[2].conect_timeout',
        message:
          'unknown field "conect_timeout" in envoy.config.cluster.v3.Cluster; did you mean "connect_timeout"?',
      },
    ]);
  });

  it('says what was expected and what was found', () => {
    expect(problemsOf(Cluster, { name: 3, respect_dns_ttl: 'yes', filters: {} })).toEqual([
      { path: 'name', message: 'expected a string, found number 3' },
      { path: 'respect_dns_ttl', message: 'expected a boolean, found string "yes"' },
      { path: 'filters', message: 'expected an array, found an object' },
    ]);
  });

  it('rejects durations not written as "<seconds>s"', () => {
    const problems = problemsOf(Cluster, { connect_timeout: '1m', dns_refresh_rate: 5 });
    expect(problems.map((p) => p.path)).toEqual(['connect_timeout', 'dns_refresh_rate']);
    for (const p of problems) expect(p.message).toContain('"<seconds>s", e.g. "1.5s"');
  });

  it('rejects an @type that names no loaded message', () => {
    const bad = listener({ '@type': PREFIX + 'envoy.nope.v3.Nope' });
    expect(problemsOf(Listener, bad)).toEqual([
      {
        path: 'filter_chains[0].filters[0].typed_config.@type',
        message:
          'unknown @type "type.googleapis.com/envoy.nope.v3.Nope": no such message is loaded',
      },
    ]);
  });

  it('lists the valid names for an unknown enum value', () => {
    const [problem] = problemsOf(Cluster, { type: 'EDSS' });
    expect(problem?.path).toBe('type');
    expect(problem?.message).toMatch(
      /unknown value "EDSS" for enum .*DiscoveryType; .*STATIC.*EDS/,
    );
  });

  it('refuses two members of one oneof', () => {
    expect(problemsOf(Cluster, { type: 'EDS', cluster_type: { name: 'x' } })).toEqual([
      {
        path: 'cluster_type',
        message:
          'oneof "cluster_discovery_type" has both "type" and "cluster_type" set; set only one',
      },
    ]);
  });

  it('collects every problem at once, each with its full path', () => {
    const bad = listener({
      route_config: {
        virtual_hosts: [
          {
            name: 'web',
            domains: '*',
            routes: [{ match: { prefix: '/' }, route: { timeout: '1m' } }],
          },
        ],
      },
      http_filters: [{ name: 'router', typed_config: { '@type': PREFIX + 'x.Unknown' } }],
    });
    const problems = problemsOf(Listener, { ...bad, per_connection_buffer_limit_bytes: -1 });
    const hcm = 'filter_chains[0].filters[0].typed_config';
    expect(problems.map((p) => p.path)).toEqual([
      `${hcm}.route_config.virtual_hosts[0].domains`,
      `${hcm}.route_config.virtual_hosts[0].routes[0].route.timeout`,
      `${hcm}.http_filters[0].typed_config.@type`,
      'per_connection_buffer_limit_bytes',
    ]);
  });

  it('rejects a field given under both of its names', () => {
    expect(problemsOf(Cluster, { connect_timeout: '1s', connectTimeout: '2s' })).toEqual([
      { path: 'connect_timeout', message: 'set twice, as "connect_timeout" and "connectTimeout"' },
    ]);
  });
});
