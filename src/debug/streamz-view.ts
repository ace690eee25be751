/**
 * `/debug/streamz`: mock-istiod's own, complete view of every stream — what istiod's
 * endpoints spread over several shapes (nonces in syncz, metadata in adsz) plus versions,
 * times and the last NACK, in one JSON document. The `status` command reads it.
 */
import { describeNack, type NackInfo, type TypeState } from '../core/stream-state.js';
import type { StreamView } from '../core/events.js';
import { shortTypeName } from '../core/types/registry.js';
import { namespaceOf, sortedStreams } from './debug-views.js';
import { syncState, type SyncState } from '../core/sync-status.js';

export interface TypeDetail {
  /** `CDS`, `LDS`, … */
  type: string;
  typeUrl: string;
  status: SyncState;
  /** `'*'` for a wildcard subscription, else the names asked for. */
  names: '*' | string[];
  sent?: { version: string; nonce: string; at: string; count: number };
  acked?: { version: string; nonce: string; at: string };
  nack?: NackInfo;
}

export interface StreamDetail {
  connectionId: string;
  nodeId: string;
  /** istiod's proxy id, `<pod>.<namespace>`. */
  proxy: string;
  namespace: string;
  cluster: string;
  clusterId: string;
  istioVersion: string;
  protocol: string;
  peer: string;
  connectedAt: string;
  metadata: Record<string, unknown>;
  types: TypeDetail[];
}

export interface StreamzView {
  withheld: boolean;
  streams: StreamDetail[];
}

function typeDetail(state: Readonly<TypeState>): TypeDetail {
  const { sent, acked, nack } = state;
  return {
    type: shortTypeName(state.typeUrl),
    typeUrl: state.typeUrl,
    status: syncState(state),
    names: state.names === '*' ? '*' : [...state.names],
    ...(sent && { sent: { ...sent, at: sent.at.toISOString() } }),
    ...(acked && { acked: { ...acked, at: acked.at.toISOString() } }),
    ...(nack && { nack: describeNack(nack) }),
  };
}

export function streamzView(streams: readonly StreamView[], withheld: boolean): StreamzView {
  return {
    withheld,
    streams: sortedStreams(streams).map((stream) => ({
      connectionId: stream.connectionId,
      nodeId: stream.proxy.nodeId,
      proxy: stream.proxy.id,
      namespace: namespaceOf(stream),
      cluster: stream.proxy.cluster,
      clusterId: stream.proxy.clusterId,
      istioVersion: stream.proxy.istioVersion,
      protocol: stream.protocol,
      peer: stream.peer,
      connectedAt: stream.connectedAt.toISOString(),
      metadata: stream.proxy.metadata,
      types: [...stream.types.values()].map(typeDetail),
    })),
  };
}
