/**
 * The live page's timers catch their own errors: a poll round that throws (here the server's
 * stream list, standing in for anything a client sent that nothing checked) is reported
 * through `onError` and the page's stream stays open, instead of the error leaving the timer
 * and ending the process.
 */
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { ServerEventEmitter, StreamView } from '../../src/core/events.js';
import { UiHub } from '../../src/live/ui-hub.js';
import type { UiTarget } from '../../src/live/ui-target.js';
import { waitFor } from '../../src/util/wait.js';
import { SseReader } from '../support/fixtures/sse.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function targetWhoseStreamsThrowAfter(calls: number): UiTarget {
  let count = 0;
  return {
    events: new EventEmitter() as unknown as ServerEventEmitter,
    faults: { list: () => [], events: new EventEmitter() },
    journalStore: { addSink: () => () => undefined },
    journal: () => [],
    streams: (): StreamView[] => {
      if (++count > calls) throw new Error('streams gone wrong');
      return [];
    },
    withheld: false,
    serving: true,
  };
}

it('a poll round that throws is reported, and the page keeps its stream', async () => {
  const errors: string[] = [];
  const hub = new UiHub(targetWhoseStreamsThrowAfter(2), {
    pollMs: 20,
    onError: (what, err) => errors.push(`${what}: ${(err as Error).message}`),
  });
  const server = createServer((req, res) => hub.connect(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    hub.close();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const page = await SseReader.open(`http://127.0.0.1:${port}/`);
  cleanups.push(() => page.close());
  await page.next('snapshot');
  await waitFor(() => errors.length >= 2 || undefined, {
    timeoutMs: 5_000,
    description: 'two poll rounds reported as failed',
  });
  expect(errors[0]).toBe('a poll round: streams gone wrong');
  expect(hub.listening).toBe(true);
  expect(page.response.destroyed).toBe(false);
});
