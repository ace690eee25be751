/**
 * The relay's side towards the real istiod (`serve --relay <host:port>`): one gRPC channel,
 * and on it one ADS stream for each stream a proxy opens to the mock, carrying that proxy's
 * requests as they came (bytes in, bytes out: nothing is decoded to be re-encoded).
 */
import * as grpc from '@grpc/grpc-js';
import type { NamedResource } from '../core/snapshot.js';
import { ADS_SERVICE } from './ads-service.js';

export type UpstreamCall = grpc.ClientDuplexStream<Uint8Array, Buffer>;

/**
 * What the relay changes in the resources of one of istiod's responses before the policy sees
 * them (app/relay-rewrite.ts); undefined when it changes nothing, so the response goes down as
 * it came.
 */
export type RelayTransform = (
  typeUrl: string,
  resources: readonly NamedResource[],
) => readonly NamedResource[] | undefined;

export interface RelayUpstream {
  /** `host:port` of the upstream istiod. */
  readonly address: string;
  /** What is changed in istiod's resources on their way down, if anything. */
  readonly transform: RelayTransform | undefined;
  /** What an upstream outage does to the proxy's stream (relay-link.ts). */
  readonly outage: RelayOutage;
  /** Opens the upstream stream of one downstream stream. */
  open(protocol: 'sotw' | 'delta'): UpstreamCall;
  close(): void;
}

type AdsClient = grpc.Client & {
  StreamAggregatedResources(metadata: grpc.Metadata): UpstreamCall;
  DeltaAggregatedResources(metadata: grpc.Metadata): UpstreamCall;
};

const AdsClientConstructor = grpc.makeGenericClientConstructor(
  ADS_SERVICE,
  'AggregatedDiscoveryService',
) as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options: grpc.ChannelOptions,
) => AdsClient;

/** `pass`: the proxy's stream ends as a dead istiod's would; `hold`: it stays open. */
export type RelayOutage = 'pass' | 'hold';

export const RELAY_OUTAGES: readonly RelayOutage[] = ['pass', 'hold'];

export function createRelayUpstream(
  address: string,
  transform?: RelayTransform,
  outage: RelayOutage = 'pass',
): RelayUpstream {
  const client = new AdsClientConstructor(address, grpc.credentials.createInsecure(), {
    // istiod's responses may be large (a mesh's clusters): as Envoy's own limit.
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.enable_channelz': 0,
  });
  return {
    address,
    transform,
    outage,
    open: (protocol) =>
      protocol === 'sotw'
        ? client.StreamAggregatedResources(new grpc.Metadata())
        : client.DeltaAggregatedResources(new grpc.Metadata()),
    close: () => client.close(),
  };
}
