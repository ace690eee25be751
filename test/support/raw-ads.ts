/**
 * A raw ADS client for robustness tests: writes arbitrary bytes as gRPC messages on either
 * ADS method and reports how the stream ended. Nothing here encodes or validates.
 */
import * as grpc from '@grpc/grpc-js';
import { ADS_SERVICE } from '../../src/server/ads-service.js';

export interface RawOutcome {
  /** Responses received before the end. */
  responses: number;
  code: grpc.status;
  details: string;
}

export class RawAdsClient {
  private readonly client: grpc.Client;

  constructor(address: string) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
  }

  /**
   * Opens a stream, writes the messages, and waits up to `settleMs` for an end or a
   * response; then cancels. Resolves with what was seen (CANCELLED when the server was
   * still waiting for more, which is fine).
   */
  run(method: 'sotw' | 'delta', messages: Buffer[], settleMs = 300): Promise<RawOutcome> {
    const def =
      method === 'sotw'
        ? ADS_SERVICE.StreamAggregatedResources
        : ADS_SERVICE.DeltaAggregatedResources;
    const call = this.client.makeBidiStreamRequest(
      def.path,
      (b: Buffer) => b,
      (b: Buffer) => b,
    );
    let responses = 0;
    return new Promise((resolve) => {
      const timer = setTimeout(() => call.cancel(), settleMs);
      call.on('data', () => {
        responses += 1;
        call.cancel();
      });
      call.on('error', () => undefined);
      call.on('status', (s: grpc.StatusObject) => {
        clearTimeout(timer);
        resolve({ responses, code: s.code, details: s.details });
      });
      for (const m of messages) call.write(m);
    });
  }

  close(): void {
    this.client.close();
  }
}

/** A small seeded PRNG (mulberry32): the same seed gives the same inputs on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
