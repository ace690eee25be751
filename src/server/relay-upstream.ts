/**
 * The relay's side towards the real istiod (`serve --relay <host:port>`): one gRPC channel,
 * and on it one ADS stream for each stream a proxy opens to the mock, carrying that proxy's
 * requests as they came (bytes in, bytes out: nothing is decoded to be re-encoded).
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcJs } from '../util/grpc-js.js';
import type { NamedResource } from '../core/snapshot.js';
import { ADS_SERVICE } from './ads-service.js';
import type { RelayRecorder } from './relay-record.js';

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
  /** `--record`: where what istiod sends is written, if anywhere. */
  readonly recorder: RelayRecorder | undefined;
  /**
   * Opens the upstream stream of one downstream stream. Over TLS without a token of the
   * relay's own, the proxy's `authorization` (its pod's token) and `clusterid` go up with it,
   * so that istiod authorizes the proxy as itself, as it would directly.
   */
  open(protocol: 'sotw' | 'delta', caller?: grpc.Metadata): UpstreamCall;
  close(): void;
}

type AdsClient = grpc.Client & {
  StreamAggregatedResources(metadata: grpc.Metadata): UpstreamCall;
  DeltaAggregatedResources(metadata: grpc.Metadata): UpstreamCall;
};

type AdsClientConstructor = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options: grpc.ChannelOptions,
) => AdsClient;

let adsClientConstructor: AdsClientConstructor | undefined;

/** The ADS client class, made when the first relay opens (grpc-js loads then). */
function adsClient(): AdsClientConstructor {
  return (adsClientConstructor ??= grpcJs().makeGenericClientConstructor(
    ADS_SERVICE,
    'AggregatedDiscoveryService',
  ) as unknown as AdsClientConstructor);
}

/**
 * How the relay reaches istiod: plaintext (its 15010) unless `rootCert` is given, then TLS
 * (its 15012), checking istiod's certificate against that root under `serverName`, with a
 * client certificate (`cert` and `key`) and a bearer `token` when given, as pilot-agent
 * presents itself.
 */
export interface RelayTls {
  rootCert: string;
  /** The name istiod's certificate must carry (default `istiod.istio-system.svc`). */
  serverName?: string;
  cert?: string;
  key?: string;
  token?: string;
}

/** `pass`: the proxy's stream ends as a dead istiod's would; `hold`: it stays open. */
export type RelayOutage = 'pass' | 'hold';

export const RELAY_OUTAGES: readonly RelayOutage[] = ['pass', 'hold'];

export function createRelayUpstream(
  address: string,
  transform?: RelayTransform,
  outage: RelayOutage = 'pass',
  tls?: RelayTls,
  recorder?: RelayRecorder,
): RelayUpstream {
  const channel = relayChannel(tls);
  const client = new (adsClient())(address, channel.credentials, {
    // istiod's responses may be large (a mesh's clusters): as Envoy's own limit.
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    ...channel.options,
  });
  const metadata = (caller: grpc.Metadata | undefined) => {
    const md = new (grpcJs().Metadata)();
    if (tls?.token !== undefined) md.set('authorization', `Bearer ${tls.token}`);
    else if (tls && caller) {
      // Never over plaintext: a bearer token is not sent where anyone on the path reads it.
      for (const header of CALLER_HEADERS) {
        for (const value of caller.get(header)) md.add(header, value);
      }
    }
    return md;
  };
  return {
    address,
    transform,
    outage,
    recorder,
    open: (protocol, caller) =>
      protocol === 'sotw'
        ? client.StreamAggregatedResources(metadata(caller))
        : client.DeltaAggregatedResources(metadata(caller)),
    close: () => client.close(),
  };
}

/** How a channel to istiod is made: plaintext, or TLS checking istiod's name, as above. */
export function relayChannel(tls: RelayTls | undefined): {
  credentials: grpc.ChannelCredentials;
  options: grpc.ChannelOptions;
} {
  const credentials = tls
    ? grpcJs().credentials.createSsl(
        Buffer.from(tls.rootCert),
        tls.key === undefined ? null : Buffer.from(tls.key),
        tls.cert === undefined ? null : Buffer.from(tls.cert),
      )
    : grpcJs().credentials.createInsecure();
  return {
    credentials,
    options: {
      'grpc.enable_channelz': 0,
      ...(tls && { 'grpc.ssl_target_name_override': tls.serverName ?? ISTIOD_SERVICE_NAME }),
    },
  };
}

/** What of the proxy's own call metadata istiod reads to authenticate it. */
const CALLER_HEADERS = ['authorization', 'clusterid'];

/** The name istiod's certificate carries (its Service), which the relay checks. */
const ISTIOD_SERVICE_NAME = 'istiod.istio-system.svc';
