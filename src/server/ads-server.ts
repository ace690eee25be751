/**
 * The gRPC listener for ADS: binds, accepts streams and hands each to a SotwStream or a DeltaStream; can be
 * closed and opened again while the snapshot store and its versions live on outside it.
 */
import * as grpc from '@grpc/grpc-js';
import { ADS_SERVICE, type AdsCall } from './ads-service.js';
import { MockIstiodError } from './errors.js';
import type { Endpoint } from './options.js';
import type { AdsStream, StreamContext } from './ads-stream.js';
import { DeltaStream } from './delta-stream.js';
import { SotwStream } from './sotw-stream.js';

const SHUTDOWN_GRACE_MS = 2_000;

export interface AdsServer {
  /** Binds and returns the port actually bound (port 0 picks a free one). */
  listen(endpoint: Endpoint): Promise<number>;
  /** Ends every stream with `code`/`message`, then stops the listener. Idempotent. */
  close(code: grpc.status, message: string): Promise<void>;
  readonly listening: boolean;
}

function formatAddress({ host, port }: Endpoint): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function createAdsServer(ctx: StreamContext, streams: () => Iterable<AdsStream>): AdsServer {
  let server: grpc.Server | undefined;
  const pending = new Set<AdsStream>();

  /** Streams without an accepted node yet are not registered; close() must end them too. */
  const track = (stream: AdsStream, call: AdsCall) => {
    pending.add(stream);
    call.on('close', () => pending.delete(stream));
  };

  const handlers = {
    StreamAggregatedResources(call: AdsCall) {
      track(new SotwStream(call, ctx), call);
    },
    DeltaAggregatedResources(call: AdsCall) {
      track(new DeltaStream(call, ctx), call);
    },
  };

  return {
    get listening() {
      return server !== undefined;
    },
    async listen(endpoint) {
      if (server) throw new MockIstiodError('LISTEN_FAILED', 'the ADS server is already listening');
      const candidate = new grpc.Server({ 'grpc.max_receive_message_length': 4 * 1024 * 1024 });
      candidate.addService(ADS_SERVICE, handlers);
      const address = formatAddress(endpoint);
      const port = await new Promise<number>((resolve, reject) => {
        candidate.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, bound) => {
          if (err) {
            reject(
              new MockIstiodError(
                'LISTEN_FAILED',
                `cannot listen for xDS on ${address} (${err.message}): is the port in use? choose another with --port`,
                [],
                {
                  cause: err,
                },
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
