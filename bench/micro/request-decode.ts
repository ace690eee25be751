/**
 * Decoding requests, side by side in one process: the server's decoder (xds/wire-read.ts)
 * and protobufjs's, which it replaced (kept here as the baseline, with the walk that made its
 * metadata JSON). Two kinds, of 1,000 proxies each: a stream's first request (the node as
 * pilot-agent sends it, with the loadgen's metadata: its id, name and IP its own) and an ACK
 * (its nonce its own). Prints ns per request, the two decoders alternating in rounds.
 *
 *   npx tsx bench/micro/request-decode.ts [--rounds 5] [--count 20000]
 */
import { parseArgs } from 'node:util';
import { envoyRoot } from '../../src/xds/protos.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { decodeDiscoveryRequest, encodeDiscoveryRequest } from '../../src/xds/wire.js';
import { median } from '../lib/stats.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    count: { type: 'string', default: '20000' },
  },
});
const rounds = Number(values.rounds);
const count = Number(values.count);

/** 1,000 proxies' first requests, each its own pod (id, name, IP), as the loadgen's. */
const firsts = Array.from({ length: 1000 }, (_, i) => {
  const ip = `10.0.${i >> 8}.${i & 255}`;
  return Buffer.from(
    encodeDiscoveryRequest({
      type_url: CLUSTER_TYPE,
      node: {
        id: `sidecar~${ip}~pod-${i}.default~default.svc.cluster.local`,
        cluster: 'bench.default',
        metadata: {
          CLUSTER_ID: 'Kubernetes',
          ISTIO_VERSION: '1.28.0',
          MESH_ID: 'cluster.local',
          NAME: `pod-${i}`,
          NAMESPACE: 'default',
          INSTANCE_IPS: ip,
          SERVICE_ACCOUNT: 'default',
          WORKLOAD_NAME: 'bench',
          LABELS: { app: 'bench', version: 'v1' },
        },
        user_agent_name: 'envoy',
        user_agent_version: '',
      },
    }),
  );
});
/** Their ACKs, each of a nonce of its own. */
const acks = Array.from({ length: 1000 }, (_, i) =>
  Buffer.from(
    encodeDiscoveryRequest({
      type_url: CLUSTER_TYPE,
      version_info: '2026-12-05T14:00:00Z/7',
      response_nonce: `${(0x10000000 + i * 7919).toString(16)}`,
    }),
  ),
);

type RawValue = {
  kind?: string;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: { fields?: Record<string, RawValue> };
  listValue?: { values?: RawValue[] };
};

/** The replaced decoder: protobufjs's message, then its Struct walked into JSON. */
const requestType = envoyRoot().lookupType('envoy.service.discovery.v3.DiscoveryRequest');
function protobufjsDecode(bytes: Uint8Array): unknown {
  const raw = requestType.decode(bytes) as unknown as {
    node?: { id?: string; cluster?: string; metadata?: { fields?: Record<string, RawValue> } };
    type_url?: string;
    version_info?: string;
    response_nonce?: string;
    resource_names?: string[];
  };
  const struct = (s: { fields?: Record<string, RawValue> }): Record<string, unknown> => {
    const fields = s.fields ?? {};
    const json: Record<string, unknown> = {};
    for (const k of Object.keys(fields).sort()) json[k] = value(fields[k] as RawValue);
    return json;
  };
  const value = (v: RawValue): unknown => {
    switch (v.kind) {
      case 'numberValue':
        return v.numberValue;
      case 'stringValue':
        return v.stringValue;
      case 'boolValue':
        return v.boolValue;
      case 'structValue':
        return struct(v.structValue ?? {});
      case 'listValue':
        return (v.listValue?.values ?? []).map(value);
      default:
        return null;
    }
  };
  return {
    version_info: raw.version_info ?? '',
    node: raw.node
      ? { id: raw.node.id, cluster: raw.node.cluster, metadata: struct(raw.node.metadata ?? {}) }
      : undefined,
    resource_names: raw.resource_names ?? [],
    type_url: raw.type_url ?? '',
    response_nonce: raw.response_nonce ?? '',
  };
}

const decoders = {
  'wire-read': (b: Uint8Array) => decodeDiscoveryRequest(b),
  protobufjs: protobufjsDecode,
};

function measure(decode: (b: Uint8Array) => unknown, requests: readonly Buffer[]): number {
  let keep: unknown;
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) keep = decode(requests[i % requests.length] as Buffer);
  const ns = Number(process.hrtime.bigint() - started) / count;
  if (keep === undefined) throw new Error('nothing decoded');
  return ns;
}

// Warm both up, so that each round measures optimised code.
for (const decode of Object.values(decoders)) {
  for (let i = 0; i < 20_000; i++) decode(firsts[i % firsts.length] as Buffer);
}

for (const [label, requests] of [
  ['first request (node + metadata)', firsts],
  ['ACK', acks],
] as const) {
  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? Object.entries(decoders) : Object.entries(decoders).reverse();
    for (const [name, decode] of order) {
      results.set(name, [...(results.get(name) ?? []), measure(decode, requests)]);
    }
  }
  const ours = median(results.get('wire-read') ?? []);
  const theirs = median(results.get('protobufjs') ?? []);
  const size = requests[0]?.length ?? 0;
  console.log(`${label} (${size} bytes, 1,000 proxies), medians of ${rounds} rounds of ${count}:`);
  for (const [name, ns] of results) {
    console.log(`  ${name.padEnd(10)} ${median(ns).toFixed(0).padStart(6)} ns`);
  }
  console.log(`  wire-read / protobufjs: ${(ours / theirs).toFixed(2)}×`);
}
