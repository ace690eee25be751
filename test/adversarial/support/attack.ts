/**
 * Small tools the attack files share: run hostile inputs a few at a time, one ADS stream per
 * input that ends with the mock's answer or its status (never left hanging), and a plain HTTP
 * request whose answer is always read whole.
 */
import {
  AdsTestClient,
  type ClientDeltaRequest,
  type ClientRequest,
} from '../../../src/testing/ads-client.js';
import { waitFor } from '../../../src/util/wait.js';

export const MIB = 1024 * 1024;
export const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
export const LDS = 'type.googleapis.com/envoy.config.listener.v3.Listener';
export const EDS = 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment';

/** Runs `work` over `items`, `concurrency` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

export type Outcome =
  { kind: 'answered'; nonce: string } | { kind: 'ended'; details: string } | { kind: 'silent' };

/**
 * Opens one stream, sends `requests` in order (each after the answer to the one before, when
 * there is one), and reports how the last one went: answered, ended with a status, or no
 * answer within `waitMs` (then the stream is closed by the client).
 */
export async function exchange(
  client: AdsTestClient,
  mode: 'sotw' | 'delta',
  requests: readonly (ClientRequest | ClientDeltaRequest)[],
  waitMs = 3_000,
): Promise<Outcome> {
  const stream = mode === 'sotw' ? client.sotw() : client.delta();
  let outcome: Outcome = { kind: 'silent' };
  try {
    for (const request of requests) {
      stream.send(request);
      try {
        const response = await stream.next(waitMs);
        outcome = { kind: 'answered', nonce: response.nonce };
      } catch (err) {
        const message = (err as Error).message;
        outcome = message.startsWith('stream ended')
          ? { kind: 'ended', details: message }
          : { kind: 'silent' };
        if (outcome.kind === 'ended') return outcome;
      }
    }
    return outcome;
  } finally {
    stream.close();
  }
}

export interface HttpAnswer {
  status: number;
  body: string;
  contentType: string;
}

/** One request; the body is read whole, so a refused or failed answer is still seen. */
export async function request(url: string, init: RequestInit = {}): Promise<HttpAnswer> {
  const response = await fetch(url, {
    ...init,
    signal: init.signal ?? AbortSignal.timeout(15_000),
  });
  return {
    status: response.status,
    body: await response.text(),
    contentType: response.headers.get('content-type') ?? '',
  };
}

/** Waits until `check` holds, with a deadline and what was expected. */
export function until<T>(
  description: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  return waitFor(check, { timeoutMs, intervalMs: 50, description });
}
