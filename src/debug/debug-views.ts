/**
 * The JSON bodies of istiod's debug endpoints, built from stream views (istio/istio
 * pilot/pkg/xds/debug.go: `SyncStatus`, `AdsClient`, `AdsClients`). Field names, `omitempty`
 * behaviour and ordering follow istiod; times are RFC 3339 like Go's. A stream of any
 * protocol (state of the world or delta) shows the same way.
 */
import type { TypeState } from '../core/stream-state.js';
import type { StreamView, UpstreamState } from '../core/events.js';
import { rankedTypes } from '../core/types/registry.js';

type Json = Record<string, unknown>;

/** Go's zero `time.Time`, which istiod prints for a type never sent (omitempty does not drop it). */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** Drops `undefined` and empty strings, as Go's `omitempty` drops empty strings. */
function omitEmpty(fields: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

/** istiod lists connections sorted by connection id. */
export function sortedStreams(streams: readonly StreamView[]): StreamView[] {
  return [...streams].sort((a, b) => (a.connectionId < b.connectionId ? -1 : 1));
}

/** The proxy's namespace: `NAMESPACE` metadata, else from the id `<pod>.<namespace>`. */
export function namespaceOf(stream: StreamView): string {
  const fromMetadata = stream.proxy.metadata.NAMESPACE;
  if (typeof fromMetadata === 'string' && fromMetadata !== '') return fromMetadata;
  const dot = stream.proxy.id.indexOf('.');
  return dot < 0 ? '' : stream.proxy.id.slice(dot + 1);
}

/** istiod's flat `<prefix>_sent` / `<prefix>_acked` fields, in its order. */
const SYNCZ_TYPES = rankedTypes((t) => t.syncz?.rank).flatMap(({ syncz, typeUrl }) =>
  syncz ? [{ prefix: syncz.prefix, typeUrl }] : [],
);

function resourceStatus(state: Readonly<TypeState>): Json {
  return omitEmpty({
    sent: state.sent?.nonce,
    acked: state.acked?.nonce,
    sentTime: state.sent?.at.toISOString() ?? GO_ZERO_TIME,
    lastError: state.nack?.message,
  });
}

/** One entry of `/debug/syncz`: sent and acked nonces per type, and the last NACK message. */
export function syncStatus(stream: StreamView): Json {
  const fields: Json = {
    cluster_id: stream.proxy.clusterId,
    proxy: stream.proxy.id,
    proxy_type: stream.proxy.type,
    istio_version: stream.proxy.istioVersion,
  };
  for (const { prefix, typeUrl } of SYNCZ_TYPES) {
    const state = stream.types.get(typeUrl);
    fields[`${prefix}_sent`] = state?.sent?.nonce;
    fields[`${prefix}_acked`] = state?.acked?.nonce;
  }
  const resources: Json = {};
  for (const state of stream.types.values()) resources[state.typeUrl] = resourceStatus(state);
  if (stream.types.size > 0) fields.resources = resources;
  if (stream.upstream) fields.upstream = upstreamStatus(stream.upstream, stream.types);
  return omitEmpty(fields);
}

/**
 * A relayed stream's istiod (the mock's addition to istiod's `SyncStatus`): its address,
 * whether the upstream stream is open, and per type the version istiod last sent and the
 * version the proxy last ACKed. They differ while a fault withholds or replaces istiod's
 * response, or while it is on its way.
 */
function upstreamStatus(upstream: UpstreamState, states: StreamView['types']): Json {
  const types: Json = {};
  for (const [typeUrl, received] of upstream.received) {
    types[typeUrl] = omitEmpty({ received, delivered: states.get(typeUrl)?.acked?.version });
  }
  return { address: upstream.address, connected: upstream.connected, types };
}

function client(stream: StreamView): Json {
  return {
    connectionId: stream.connectionId,
    connectedAt: stream.connectedAt.toISOString(),
    address: stream.peer,
  };
}

function clients(list: Json[]): Json {
  return list.length > 0
    ? { totalClients: list.length, clients: list }
    : { totalClients: list.length };
}

/** `/debug/connections`. */
export function connectionsView(streams: readonly StreamView[]): Json {
  return clients(sortedStreams(streams).map(client));
}

function labelsOf(stream: StreamView): Json | undefined {
  const labels = stream.proxy.metadata.LABELS;
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) return undefined;
  return Object.keys(labels).length > 0 ? (labels as Json) : undefined;
}

/** `/debug/adsz`: connections with their labels, metadata and watched resource names. */
export function adszView(streams: readonly StreamView[]): Json {
  return clients(
    sortedStreams(streams).map((stream) => {
      const watches: Json = {};
      for (const state of stream.types.values()) {
        watches[state.typeUrl] = state.names === '*' ? [] : [...state.names];
      }
      return omitEmpty({
        ...client(stream),
        labels: labelsOf(stream),
        metadata: stream.proxy.metadata,
        watches,
      });
    }),
  );
}

/** Finds the stream istiod would for `proxyID`: the first whose connection id contains it. */
export function findStream(
  streams: readonly StreamView[],
  proxyId: string,
): StreamView | undefined {
  return sortedStreams(streams).find((stream) => stream.connectionId.includes(proxyId));
}
