/**
 * The clients of a soak (soak.ts), each a loop that runs until told to stop: steady streams
 * that ACK every push (and time it), fault streams that the faults aim at (they NACK what
 * the `nack` fault serves and reconnect after a `reset`), a slow consumer that stops reading
 * for a while and must catch up, and churn (a stream opened, answered and half-closed, on a
 * fresh connection every so often). Every way a stream ends is classified: injected by a
 * fault, or not (an error of the server).
 */
import * as grpc from '@grpc/grpc-js';
import type {
  AdsTestClient,
  AdsTestStream,
  ClientResponse,
} from '../../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import { sidecarNode } from '../fixtures/nodes.js';
import { GrpcStatus } from '../../../src/core/grpc-status.js';

/** What every loop reports into: errors are injected (by a fault) or unexpected. */
export interface SoakTally {
  stopping: boolean;
  /** Called when the soak stops: a loop waiting for a response stops waiting. (Not a
   * promise raced against every wait: each race would hold its response until the end.) */
  onStop: Set<() => void>;
  stop(): void;
  injected: Map<string, number>;
  unexpected: string[];
  unexpectedCount: number;
  churnCycles: number;
  slowCatchUps: number;
}

export const STOPPED = Symbol('stopped');

export function newTally(): SoakTally {
  return {
    stopping: false,
    onStop: new Set(),
    stop() {
      this.stopping = true;
      for (const listener of this.onStop) listener();
    },
    injected: new Map(),
    unexpected: [],
    unexpectedCount: 0,
    churnCycles: 0,
    slowCatchUps: 0,
  };
}

export function unexpected(tally: SoakTally, what: string): void {
  tally.unexpectedCount += 1;
  if (tally.unexpected.length < 20) tally.unexpected.push(what);
}

/** The message the `reset` fault's `not-ready` preset ends streams with (istiod's). */
const RESET_MESSAGE = 'server is not ready to serve discovery information';

/** `stream ended: <code> <details>` (AdsTestStream's rejection), or undefined for a timeout. */
function endOf(err: unknown): { code: number; details: string } | undefined {
  const match = /^stream ended: (\d+) (.*)$/s.exec((err as Error).message);
  return match ? { code: Number(match[1]), details: match[2] ?? '' } : undefined;
}

function open(client: AdsTestClient, pod: string): AdsTestStream {
  const stream = client.sotw();
  stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode(pod) });
  return stream;
}

/** The next response, or STOPPED when the soak stops first. */
function next(
  stream: AdsTestStream,
  tally: SoakTally,
  ms: number,
): Promise<ClientResponse | typeof STOPPED> {
  if (tally.stopping) return Promise.resolve(STOPPED);
  return new Promise((resolve, reject) => {
    const stop = () => resolve(STOPPED);
    tally.onStop.add(stop);
    stream
      .next(ms)
      .then(resolve, reject)
      .finally(() => tally.onStop.delete(stop));
  });
}

function ack(stream: AdsTestStream, response: ClientResponse): void {
  stream.send({
    type_url: CLUSTER_TYPE,
    version_info: response.version_info,
    response_nonce: response.nonce,
  });
}

/**
 * A steady stream: ACKs everything, reports each response (the soak times pushes by them).
 * Any end or a silence of `silenceMs` while not stopping is unexpected.
 */
export async function steadyStream(
  client: AdsTestClient,
  pod: string,
  tally: SoakTally,
  onResponse: (pod: string, response: ClientResponse) => void,
  silenceMs = 30_000,
): Promise<void> {
  const stream = open(client, pod);
  try {
    for (;;) {
      const response = await next(stream, tally, silenceMs);
      if (response === STOPPED) break;
      onResponse(pod, response);
      ack(stream, response);
    }
    await stream.halfClose();
  } catch (err) {
    if (!tally.stopping) unexpected(tally, `steady ${pod}: ${(err as Error).message}`);
    stream.close();
  }
}

/**
 * A stream the faults aim at: NACKs a version the `nack` fault made, and reconnects after
 * the `reset` fault ended it (injected). Anything else ending it is unexpected.
 */
export async function faultStream(
  client: AdsTestClient,
  pod: string,
  tally: SoakTally,
  silenceMs = 60_000,
): Promise<void> {
  while (!tally.stopping) {
    const stream = open(client, pod);
    try {
      for (;;) {
        const response = await next(stream, tally, silenceMs);
        if (response === STOPPED) break;
        if (response.version_info.includes('+nack.')) {
          stream.send({
            type_url: CLUSTER_TYPE,
            version_info: '',
            response_nonce: response.nonce,
            error_detail: { code: 3, message: 'soak: rejected the nack fault config' },
          });
          count(tally.injected, 'nack seen and NACKed');
        } else ack(stream, response);
      }
      await stream.halfClose();
    } catch (err) {
      stream.close();
      const end = endOf(err);
      if (end?.code === grpc.status.UNAVAILABLE && end.details === RESET_MESSAGE) {
        count(tally.injected, 'stream ended by the reset fault');
      } else if (!tally.stopping) {
        unexpected(tally, `fault stream ${pod}: ${(err as Error).message}`);
      }
    }
  }
}

/**
 * A slow consumer: reads for `phaseMs`, stops reading for `phaseMs` (the server must not
 * queue for it), then must get a response again within `catchUpMs` of reading again.
 */
export async function slowStream(
  client: AdsTestClient,
  pod: string,
  tally: SoakTally,
  phaseMs: number,
  catchUpMs = 15_000,
): Promise<void> {
  const stream = open(client, pod);
  try {
    while (!tally.stopping) {
      const readUntil = Date.now() + phaseMs;
      let response = await next(stream, tally, catchUpMs);
      if (response === STOPPED) break;
      tally.slowCatchUps += 1;
      ack(stream, response);
      while (Date.now() < readUntil) {
        response = await next(stream, tally, catchUpMs);
        if (response === STOPPED) break;
        ack(stream, response);
      }
      if (tally.stopping) break;
      stream.pause();
      await pace(phaseMs, tally);
      stream.resume();
    }
    await stream.halfClose();
  } catch (err) {
    if (!tally.stopping) unexpected(tally, `slow consumer ${pod}: ${(err as Error).message}`);
    stream.close();
  }
}

/**
 * Churn: open a stream (SotW and delta in turn), wait for its first response, half-close;
 * about `perSecond` cycles a second, on a new connection every `cyclesPerConnection`.
 */
export async function churnLoop(
  connect: () => AdsTestClient,
  tally: SoakTally,
  perSecond: number,
  cyclesPerConnection = 100,
): Promise<void> {
  let client = connect();
  let onConnection = 0;
  try {
    for (let i = 0; !tally.stopping; i++) {
      const started = Date.now();
      if (onConnection++ >= cyclesPerConnection) {
        client.close();
        client = connect();
        onConnection = 1;
      }
      const stream = i % 2 === 0 ? client.sotw() : client.delta();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode(`churn-${i}`) });
      try {
        await stream.next(15_000);
        const end = await stream.halfClose();
        if (end.code !== GrpcStatus.OK) unexpected(tally, `churn ${i}: ended ${end.code}`);
        tally.churnCycles += 1;
      } catch (err) {
        stream.close();
        if (!tally.stopping) unexpected(tally, `churn ${i}: ${(err as Error).message}`);
      }
      await pace(1000 / perSecond - (Date.now() - started), tally);
    }
  } finally {
    client.close();
  }
}

export function count(counts: Map<string, number>, key: string, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

/**
 * Waits out the rest of a period of the workload (a rate, not a condition: nothing is
 * waited for here), or less when the soak is stopping.
 */
export async function pace(ms: number, tally: SoakTally): Promise<void> {
  const until = Date.now() + Math.max(0, ms);
  while (!tally.stopping && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, until - Date.now())));
  }
}
