/**
 * The gRPC listener for ADS: binds, accepts streams and hands each to a SotwStream or a DeltaStream; can be
 * closed and opened again while the snapshot store and its versions live on outside it.
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcJs } from '../util/grpc-js.js';
import { GrpcStatus } from '../core/grpc-status.js';
import { createServer, isIP, type Server as NetServer, type Socket } from 'node:net';
import { ADS_SERVICE, type AdsCall } from './ads-service.js';
import { MockIstiodError } from '../util/errors.js';
import { formatEndpoint, type Endpoint } from '../core/endpoint.js';
import { streamOfCall, type AdsStream, type StreamContext } from './ads-stream.js';
import { DeltaStream } from './delta-stream.js';
import { createH2Transport } from './h2-transport.js';
import { SotwStream } from './sotw-stream.js';
import { RelaySotwStream } from './relay-sotw-stream.js';
import { RelayDeltaStream } from './relay-delta-stream.js';
import { authenticate, type Admit } from './admission.js';
import {
  createStreamAdmission,
  RATE_WAIT_ERROR,
  type StreamRateLimiter,
} from './stream-rate-limit.js';

const SHUTDOWN_GRACE_MS = 2_000;
const MAX_RECEIVE_MESSAGE_LENGTH = 4 * 1024 * 1024;
const KEEPALIVE_TIME_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 10_000;
/**
 * The listen backlog: how many connections the kernel queues before the server accepts them.
 * grpc-js listens with Node's default (511); after an outage thousands of sidecars reconnect
 * at once, and past the backlog the kernel drops their SYNs, so they wait for TCP's 1, 3, 7 s
 * retries. Go listens with the kernel's limit (net.core.somaxconn, 4096 here), as istiod does;
 * the kernel caps a larger value at that limit.
 */
export const LISTEN_BACKLOG = 4096;

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
  close(code: number, message: string): Promise<void>;
  readonly listening: boolean;
}

/** A stream ended before it was served (rate limit, a closing server), with its status. */
function refuse(ctx: StreamContext, call: AdsCall, code: number, message: string): void {
  ctx.events.emit('stream-rejected', call.getPeer(), message);
  call.emit('error', { code, details: message });
}

/**
 * `rateLimit`: istiod's connection rate limit (stream-rate-limit.ts), applied where istiod
 * applies it, before authentication; undefined lets every stream in at once.
 */
export function createAdsServer(
  ctx: StreamContext,
  streams: () => Iterable<AdsStream>,
  rateLimit?: StreamRateLimiter,
): AdsServer {
  const admission = createStreamAdmission(rateLimit, (call, code, message) => {
    if (code === GrpcStatus.RESOURCE_EXHAUSTED) {
      // istiod's warning, word for word (ads.go).
      ctx.log.warn(`ADS: "${call.getPeer()}" exceeded rate limit: ${RATE_WAIT_ERROR}`);
    }
    refuse(ctx, call, code, message);
  });
  /** What serves the port: grpc-js (TLS, a host name), or our own HTTP/2 (plaintext). */
  let server: { shutdown(graceMs: number): Promise<void> } | undefined;
  let listener: BoundListener | undefined;
  let lastTransport: AdsTransport = {};
  const pending = new Set<AdsStream>();
  /** Calls whose authentication is still under way (a TokenReview). */
  const waiting = new Set<AdsCall>();

  /**
   * Streams without an accepted node yet are not registered; close() must end them too. One
   * listener for every call: an emitter calls it with the call as `this`.
   */
  const untrack = function (this: AdsCall) {
    const stream = streamOfCall(this);
    if (stream) pending.delete(stream);
  };
  const track = (stream: AdsStream, call: AdsCall) => {
    pending.add(stream);
    call.on('close', untrack);
  };
  const sotw: Admit = (call, identities) =>
    track(
      ctx.relay
        ? new RelaySotwStream(call, ctx, identities)
        : new SotwStream(call, ctx, identities),
      call,
    );
  const delta: Admit = (call, identities) =>
    track(
      ctx.relay
        ? new RelayDeltaStream(call, ctx, identities)
        : new DeltaStream(call, ctx, identities),
      call,
    );

  const handlers = {
    StreamAggregatedResources(call: AdsCall) {
      // istiod's order: the rate limit first, then authentication (ads.go).
      admission.admit(call, () => authenticate(call, ctx, waiting, sotw));
    },
    DeltaAggregatedResources(call: AdsCall) {
      admission.admit(call, () => authenticate(call, ctx, waiting, delta));
    },
  };

  return {
    get listening() {
      return server !== undefined;
    },
    async listen(endpoint, transport = lastTransport) {
      if (server) throw new MockIstiodError('LISTEN_FAILED', 'the ADS server is already listening');
      lastTransport = transport;
      const plaintext = !transport.credentials || !transport.credentials._isSecure();
      if (plaintext && isIP(bareHost(endpoint.host))) {
        // Plaintext on an address: served on node:http2 directly (h2-transport.ts).
        const ads = { definition: ADS_SERVICE, implementation: handlers };
        const h2 = createH2Transport([ads, ...(transport.services ?? [])], {
          maxReceiveMessageLength: MAX_RECEIVE_MESSAGE_LENGTH,
          keepaliveTimeMs: KEEPALIVE_TIME_MS,
          keepaliveTimeoutMs: KEEPALIVE_TIMEOUT_MS,
        });
        listener = await listenWithBacklog((socket) => h2.serve(socket), endpoint);
        server = h2;
        return listener.port;
      }
      const candidate = new (grpcJs().Server)({
        'grpc.max_receive_message_length': MAX_RECEIVE_MESSAGE_LENGTH,
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
      const credentials = transport.credentials ?? grpcJs().ServerCredentials.createInsecure();
      let bound: BoundListener;
      if (isIP(bareHost(endpoint.host))) {
        const injector = candidate.createConnectionInjector(credentials);
        bound = await listenWithBacklog((socket) => injector.injectConnection(socket), endpoint);
      } else {
        bound = await bindByName(candidate, credentials, endpoint);
      }
      server = grpcShutdown(candidate);
      listener = bound;
      return bound.port;
    },
    async close(code, message) {
      const closing = server;
      if (!closing) return;
      const accepting = listener;
      server = undefined;
      listener = undefined;
      accepting?.stopAccepting();
      for (const stream of [...streams(), ...pending]) stream.end(code, message);
      for (const call of waiting) call.emit('error', { code, details: message });
      waiting.clear();
      admission.endWaiting(code, message);
      await closing.shutdown(SHUTDOWN_GRACE_MS);
    },
  };
}

/** grpc-js's shutdown: the sessions asked to finish, then forced after the grace. */
function grpcShutdown(server: grpc.Server): { shutdown(graceMs: number): Promise<void> } {
  return {
    shutdown: (graceMs) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

function listenFailed(address: string, err: Error): MockIstiodError {
  return new MockIstiodError(
    'LISTEN_FAILED',
    `cannot listen for xDS on ${address} (${err.message}): is the port in use? choose another with --port`,
    { cause: err },
  );
}

/**
 * A host name (`localhost`) may stand for several addresses; grpc-js binds each of them, as
 * a Go server would, with Node's default backlog.
 */
async function bindByName(
  grpcServer: grpc.Server,
  credentials: grpc.ServerCredentials,
  endpoint: Endpoint,
): Promise<BoundListener> {
  const address = formatEndpoint(endpoint);
  const port = await new Promise<number>((resolve, reject) => {
    grpcServer.bindAsync(address, credentials, (err, bound) =>
      err ? reject(listenFailed(address, err)) : resolve(bound),
    );
  });
  return { port, stopAccepting: () => undefined };
}

interface BoundListener {
  port: number;
  /** Closes the listening socket: new connections are refused from now on. */
  stopAccepting(): void;
}

/**
 * Listens on an address with our own TCP server (and its backlog) and hands every accepted
 * connection to `serve`: grpc-js, which speaks TLS (when its credentials say so) and HTTP/2
 * on it as on a port it bound itself, or our own HTTP/2 (h2-transport.ts).
 */
async function listenWithBacklog(
  serve: (socket: Socket) => void,
  endpoint: Endpoint,
): Promise<BoundListener> {
  const tcp: NetServer = createServer(serve);
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(listenFailed(formatEndpoint(endpoint), err));
    tcp.once('error', failed);
    tcp.listen(
      { host: bareHost(endpoint.host), port: endpoint.port, backlog: LISTEN_BACKLOG },
      () => {
        tcp.off('error', failed);
        // Once listening, an error is one accept that failed (EMFILE when the process is out
        // of file descriptors in a connection storm): that client is refused and the port
        // keeps serving. Unhandled, it would end the process.
        tcp.on('error', () => undefined);
        resolve();
      },
    );
  });
  const bound = tcp.address();
  return {
    port: typeof bound === 'object' && bound ? bound.port : endpoint.port,
    // grpc-js's own shutdown (tryShutdown, then forceShutdown) ends the sessions on the
    // connections already handed over, after their streams' statuses are written.
    stopAccepting: () => tcp.close(),
  };
}
