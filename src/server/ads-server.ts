/**
 * The gRPC listener for ADS: binds, accepts streams and hands each to a SotwStream or a DeltaStream; can be
 * closed and opened again while the snapshot store and its versions live on outside it.
 */
import * as grpc from '@grpc/grpc-js';
import { ADS_SERVICE, type AdsCall } from './ads-service.js';
import { MockIstiodError } from '../util/errors.js';
import { formatEndpoint, type Endpoint } from '../core/endpoint.js';
import type { AdsStream, StreamContext } from './ads-stream.js';
import { DeltaStream } from './delta-stream.js';
import { SotwStream } from './sotw-stream.js';
import type { StreamCredentials } from '../core/stream-auth.js';

const SHUTDOWN_GRACE_MS = 2_000;
const KEEPALIVE_TIME_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 10_000;

/** How the port is served: TLS or plaintext, and the services beside ADS (istiod's CA). */
export interface AdsTransport {
  /** Plaintext h2c when absent. */
  credentials?: grpc.ServerCredentials;
  services?: readonly {
    definition: grpc.ServiceDefinition;
    implementation: grpc.UntypedServiceImplementation;
  }[];
}

export interface AdsServer {
  /**
   * Binds and returns the port actually bound (port 0 picks a free one). A listen without a
   * transport (the `up` after a `down`) uses the last one given, so TLS and the CA come back too.
   */
  listen(endpoint: Endpoint, transport?: AdsTransport): Promise<number>;
  /** Ends every stream with `code`/`message`, then stops the listener. Idempotent. */
  close(code: grpc.status, message: string): Promise<void>;
  readonly listening: boolean;
}

/** What the caller of a stream shows: its metadata and a client certificate TLS verified. */
/**
 * What the caller shows, each part read from the call when the authenticator first asks for
 * it: a port that authenticates nothing reads none of it (grpc-js builds the auth context
 * and the peer string on every ask; about 12 µs a connection, docs/BENCHMARKS.md).
 */
function credentialsOf(call: AdsCall): StreamCredentials {
  const strings = (key: string) =>
    call.metadata.get(key).filter((v): v is string => typeof v === 'string');
  let peer: string | undefined;
  let authorization: readonly string[] | undefined;
  let clusterId: { value: string | undefined } | undefined;
  let certificate: { value: Buffer | undefined } | undefined;
  return {
    get peer() {
      return (peer ??= call.getPeer());
    },
    get authorization() {
      return (authorization ??= strings('authorization'));
    },
    get clusterId() {
      return (clusterId ??= { value: strings('clusterid')[0] }).value;
    },
    get peerCertificate() {
      return (certificate ??= { value: call.getAuthContext().sslPeerCertificate?.raw }).value;
    },
  };
}

/**
 * istiod authenticates a stream before it reads a request: refused, the stream ends with
 * `UNAUTHENTICATED` and istiod's message, and never gets a session. Returns the identities
 * proven (empty when the port authenticates nothing), or undefined when refused.
 */
function authenticate(call: AdsCall, ctx: StreamContext): readonly string[] | undefined {
  const auth = ctx.authenticate?.(credentialsOf(call));
  if (!auth) return [];
  if (auth.ok) return auth.identities;
  const peer = call.getPeer();
  ctx.events.emit('auth-refused', { service: 'xds', reason: 'token', peer, detail: auth.reason });
  ctx.events.emit('stream-rejected', peer, auth.message);
  call.emit('error', { code: grpc.status.UNAUTHENTICATED, details: auth.message });
  return undefined;
}

export function createAdsServer(ctx: StreamContext, streams: () => Iterable<AdsStream>): AdsServer {
  let server: grpc.Server | undefined;
  let lastTransport: AdsTransport = {};
  const pending = new Set<AdsStream>();

  /** Streams without an accepted node yet are not registered; close() must end them too. */
  const track = (stream: AdsStream, call: AdsCall) => {
    pending.add(stream);
    call.on('close', () => pending.delete(stream));
  };

  const handlers = {
    StreamAggregatedResources(call: AdsCall) {
      const identities = authenticate(call, ctx);
      if (identities) track(Object.assign(new SotwStream(call, ctx), { identities }), call);
    },
    DeltaAggregatedResources(call: AdsCall) {
      const identities = authenticate(call, ctx);
      if (identities) track(Object.assign(new DeltaStream(call, ctx), { identities }), call);
    },
  };

  return {
    get listening() {
      return server !== undefined;
    },
    async listen(endpoint, transport = lastTransport) {
      if (server) throw new MockIstiodError('LISTEN_FAILED', 'the ADS server is already listening');
      lastTransport = transport;
      const candidate = new grpc.Server({
        'grpc.max_receive_message_length': 4 * 1024 * 1024,
        // istiod's keepalive (pkg/keepalive DefaultOption): a ping after 30 s without activity,
        // and the connection closed when it goes 10 s unanswered. istiod also sends GOAWAY to a
        // client pinging more often than every 15 s; grpc-js servers have no such enforcement.
        'grpc.keepalive_time_ms': KEEPALIVE_TIME_MS,
        'grpc.keepalive_timeout_ms': KEEPALIVE_TIMEOUT_MS,
        // Channelz (grpc-js's own introspection, which nothing here serves) tracks every
        // connection and call; off, a ramp of thousands of streams costs less CPU and memory
        // (docs/BENCHMARKS.md).
        'grpc.enable_channelz': 0,
      });
      candidate.addService(ADS_SERVICE, handlers);
      for (const service of transport.services ?? []) {
        candidate.addService(service.definition, service.implementation);
      }
      const address = formatEndpoint(endpoint);
      const port = await new Promise<number>((resolve, reject) => {
        const credentials = transport.credentials ?? grpc.ServerCredentials.createInsecure();
        candidate.bindAsync(address, credentials, (err, bound) => {
          if (err) {
            reject(
              new MockIstiodError(
                'LISTEN_FAILED',
                `cannot listen for xDS on ${address} (${err.message}): is the port in use? choose another with --port`,
                { cause: err },
              ),
            );
          } else resolve(bound);
        });
      });
      server = candidate;
      return port;
    },
    async close(code, message) {
      const closing = server;
      if (!closing) return;
      server = undefined;
      for (const stream of [...streams(), ...pending]) stream.end(code, message);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          closing.forceShutdown();
          resolve();
        }, SHUTDOWN_GRACE_MS);
        closing.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
