/**
 * Fault-suite helpers of the test library: waiting for a request, and asserting that no
 * response goes out for a while.
 */
import { displayTypeName, parseTypeName } from '../core/types/registry.js';
import type { JournalEntry, JournalKind } from '../journal/journal.js';
import type { StreamView, ResponseEvent } from '../core/events.js';
import type { MockIstiod } from '../app/mock-istiod-api.js';
import { untilRequest } from './waiters.js';
import { matchesGlob } from '../util/glob.js';

/** The requests that ask for resources (not ACKs, NACKs or stale ones). */
export const RESOURCE_REQUEST_KINDS: readonly JournalKind[] = [
  'subscribe',
  'reconnect',
  'resubscribe',
];

export interface RequestFilter {
  /** Only from nodes whose id matches this glob (`*orders*`; the journal's `node` filter). */
  node?: string;
  /** Which kinds of request count (default: subscribe, reconnect, resubscribe). */
  kind?: JournalKind | readonly JournalKind[];
  /** Only requests recorded after this journal sequence number (default: any so far). */
  since?: number;
  timeoutMs?: number;
}

function typeUrlOf(type: string): string {
  const url = parseTypeName(type);
  if (!url) throw new TypeError(`not a resource type: ${JSON.stringify(type)}`);
  return url;
}

/** The first request of `type` matching the filter, recorded or still to come. */
export function waitForRequest(
  server: Pick<MockIstiod, 'journal' | 'events'>,
  type: string,
  filter: RequestFilter = {},
): Promise<JournalEntry> {
  const typeUrl = typeUrlOf(type);
  const kind = filter.kind ?? RESOURCE_REQUEST_KINDS;
  const query = () =>
    server.journal.query({ typeUrl, node: filter.node, kind, since: filter.since ?? 0 }).at(0);
  const from = filter.node ? ` from a node matching "${filter.node}"` : '';
  const what = `a ${displayTypeName(typeUrl)} request${from}`;
  return untilRequest(server.events, what, filter.timeoutMs ?? 10_000, query);
}

/** Resolves after `ms` if no response of `type` went out meanwhile; rejects at the first one. */
export function expectNoResponse(
  server: Pick<MockIstiod, 'events'>,
  type: string,
  ms: number,
  options: { node?: string } = {},
): Promise<void> {
  const typeUrl = typeUrlOf(type);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const listener = (stream: StreamView, response: ResponseEvent) => {
      if (response.typeUrl !== typeUrl) return;
      if (!matchesGlob(options.node, stream.proxy.nodeId)) return;
      cleanup();
      reject(
        new Error(
          `expected no ${displayTypeName(typeUrl)} response for ${ms} ms, but one was sent after ` +
            `${Date.now() - started} ms to ${stream.proxy.nodeId} (version ${response.version}, nonce ${response.nonce})`,
        ),
      );
    };
    const timer = setTimeout(() => {
      cleanup();
      resolve();
    }, ms);
    const cleanup = () => {
      clearTimeout(timer);
      server.events.off('response', listener);
    };
    server.events.on('response', listener);
  });
}
