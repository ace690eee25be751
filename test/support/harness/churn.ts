/**
 * Connect/disconnect churn against a mock: each cycle opens a stream (alternating SotW and
 * delta), waits for its first response, and closes it. Used by the churn test and by
 * scripts/reliability.ts, which runs it at full size and records the figures.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AdsTestClient } from '../../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import { sidecarNode } from '../fixtures/nodes.js';

export async function churn(address: string, cycles: number, concurrency = 20): Promise<void> {
  const client = new AdsTestClient(address);
  try {
    let next = 0;
    const worker = async () => {
      while (next < cycles) {
        const i = next++;
        const stream = i % 2 === 0 ? client.sotw() : client.delta();
        stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode(`churn-${i}`) });
        await stream.next(10_000);
        // A clean half-close: cancelling (RST_STREAM) thousands of streams in a tight loop
        // is what HTTP/2 servers treat as a rapid-reset attack.
        await stream.halfClose();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    client.close();
  }
}

/** A full garbage collection, made available without starting Node with --expose-gc. */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Heap in use after a full collection, in bytes. */
export function settledHeap(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}
