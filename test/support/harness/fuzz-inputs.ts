/**
 * Inputs for the ADS fuzz test: random bytes, valid requests of both protocols with random
 * field values (odd node ids, node metadata the mock reads given values of every protobuf
 * kind, unknown type URLs, many names, stale nonces, error details), and those requests
 * mutated (bytes flipped, truncated, spliced).
 */
import { envoyRoot } from '../../../src/xds/protos.js';
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
} from '../../../src/xds/type-urls.js';

const TYPE_URLS = [
  CLUSTER_TYPE,
  LISTENER_TYPE,
  ENDPOINT_TYPE,
  ROUTE_TYPE,
  '',
  'type.googleapis.com/nope',
  'x',
];
const NODE_IDS = [
  'sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local',
  '',
  '~~~',
  'sidecar~::1~p.ns~ns.svc.cluster.local',
  'router~10.1.2.3~gw.istio-system~istio-system.svc.cluster.local',
  'sidecar~10.0.0.1~' + 'p'.repeat(5000) + '~x',
  'sidecar~10.0.0.1~ünïcødé.ns~ns.svc.cluster.local',
  'sidecar~10.0.0.1~a.b~c\u0000d',
];

type Rand = () => number;
const pick = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;

function names(rand: Rand): string[] {
  const n = pick(rand, [0, 1, 3, 10_000]);
  return Array.from({ length: n }, (_, i) => `name-${i}-${Math.floor(rand() * 1e6)}`);
}

/** The node metadata keys the mock reads (protocol/node.ts and its readers). */
const METADATA_KEYS = [
  'NAMESPACE',
  'SERVICE_ACCOUNT',
  'LABELS',
  'CLUSTER_ID',
  'ISTIO_VERSION',
  'PROXY_CONFIG',
  'INSTANCE_IPS',
  'ENVOY_ADMIN_ADDRESS',
  'WORKLOAD_NAME',
  'ENVOY_STATUS_PORT',
  'ENVOY_PROMETHEUS_PORT',
  'GENERATOR',
];

/** A `google.protobuf.Value` of a random kind, odd values included. */
function metadataValue(rand: Rand, depth = 0): Record<string, unknown> {
  const r = depth > 3 ? rand() * 0.7 : rand();
  if (r < 0.35) {
    return {
      stringValue: pick(rand, [
        '',
        'default',
        '1.29.0',
        '::1',
        'x'.repeat(5000),
        '\u0000',
        '{"a":',
      ]),
    };
  }
  if (r < 0.5) return { numberValue: pick(rand, [0, -1, 1.5, 1e308, Number.NaN, 15000]) };
  if (r < 0.6) return { boolValue: rand() < 0.5 };
  if (r < 0.7) return { nullValue: 0 };
  if (r < 0.85) {
    const n = pick(rand, [0, 1, 3, 2000]);
    return {
      listValue: { values: Array.from({ length: n }, () => metadataValue(rand, depth + 4)) },
    };
  }
  const fields = Object.fromEntries(
    Array.from({ length: 1 + Math.floor(rand() * 3) }, () => [
      pick(rand, [...METADATA_KEYS, 'app', '']),
      metadataValue(rand, depth + 1),
    ]),
  );
  return { structValue: { fields } };
}

function metadata(rand: Rand) {
  if (rand() < 0.5) return undefined;
  const keys = METADATA_KEYS.filter(() => rand() < 0.3);
  return { fields: Object.fromEntries(keys.map((k) => [k, metadataValue(rand)])) };
}

function node(rand: Rand) {
  return rand() < 0.2
    ? undefined
    : { id: pick(rand, NODE_IDS), cluster: 'c', metadata: metadata(rand) };
}

export function sotwRequest(rand: Rand): Buffer {
  const type = envoyRoot().lookupType('envoy.service.discovery.v3.DiscoveryRequest');
  const message = type.create({
    version_info: rand() < 0.5 ? '' : 'v' + Math.floor(rand() * 10),
    node: node(rand),
    resource_names: names(rand),
    type_url: pick(rand, TYPE_URLS),
    response_nonce: rand() < 0.6 ? '' : 'nonce-' + Math.floor(rand() * 5),
    error_detail: rand() < 0.2 ? { code: 13, message: 'fuzz' } : undefined,
  });
  return Buffer.from(type.encode(message).finish());
}

export function deltaRequest(rand: Rand): Buffer {
  const type = envoyRoot().lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
  const message = type.create({
    node: node(rand),
    type_url: pick(rand, TYPE_URLS),
    resource_names_subscribe: names(rand),
    resource_names_unsubscribe: rand() < 0.3 ? ['*', 'a'] : [],
    initial_resource_versions: rand() < 0.3 ? { a: '1', b: '' } : {},
    response_nonce: rand() < 0.6 ? '' : 'nonce-' + Math.floor(rand() * 5),
    error_detail: rand() < 0.2 ? { code: 13, message: 'fuzz' } : undefined,
  });
  return Buffer.from(type.encode(message).finish());
}

export function mutate(rand: Rand, input: Buffer): Buffer {
  const out = Buffer.from(input);
  switch (Math.floor(rand() * 3)) {
    case 0:
      for (let i = 0; i < 1 + rand() * 8 && out.length > 0; i++)
        out[Math.floor(rand() * out.length)] = Math.floor(rand() * 256);
      return out;
    case 1:
      return out.subarray(0, Math.floor(rand() * out.length));
    default:
      return Buffer.concat([
        out.subarray(0, Math.floor(rand() * out.length)),
        randomBytes(rand, 16),
      ]);
  }
}

export function randomBytes(rand: Rand, max = 512): Buffer {
  return Buffer.from(
    Array.from({ length: Math.floor(rand() * max) }, () => Math.floor(rand() * 256)),
  );
}

/** One fuzz case: the protocol and 1–3 messages. */
export function fuzzCase(rand: Rand): { method: 'sotw' | 'delta'; messages: Buffer[] } {
  const method = rand() < 0.5 ? 'sotw' : 'delta';
  const valid = () => (method === 'sotw' ? sotwRequest(rand) : deltaRequest(rand));
  const count = 1 + Math.floor(rand() * 3);
  const messages = Array.from({ length: count }, () => {
    const r = rand();
    return r < 0.2 ? randomBytes(rand) : r < 0.6 ? mutate(rand, valid()) : valid();
  });
  return { method, messages };
}
