/**
 * Remembers, per stream and type, which resources the last response carried: a reference to
 * the (immutable, shared) type snapshot it was drawn from and the subscribed names, never a
 * copy. `/debug/config_dump` renders from here, so it shows what the proxy was actually
 * sent, including a response a fault replaced, not what the mock would send now.
 */
import type { TypeSnapshot } from '../core/snapshot.js';
import type { ResponseEvent, ServerEventEmitter, StreamView } from '../core/events.js';

export interface SentType {
  typeUrl: string;
  version: string;
  nonce: string;
  at: Date;
  snapshot: TypeSnapshot;
  /** The names sent; undefined: every resource of `snapshot`. */
  names: readonly string[] | undefined;
}

/** One type's last response; its time kept as a number, made a `Date` when read. */
class Sent implements SentType {
  constructor(
    readonly typeUrl: string,
    readonly version: string,
    readonly nonce: string,
    private readonly atMs: number,
    readonly snapshot: TypeSnapshot,
    readonly names: readonly string[] | undefined,
  ) {}

  get at(): Date {
    return new Date(this.atMs);
  }
}

export class SentResources {
  /**
   * The last response of each type, by stream. A small array per stream, not a map: a stream
   * has a few types, and an idle stream's map cost 180 bytes where the array costs 64
   * (docs/BENCHMARKS.md). A response replaces its type's entry in place.
   */
  private readonly byStream = new Map<string, Sent[]>();

  constructor(events: ServerEventEmitter) {
    const onResponse = (stream: StreamView, response: ResponseEvent) => {
      const { typeUrl, version, nonce, snapshot, names } = response;
      const sent = new Sent(typeUrl, version, nonce, Date.now(), snapshot, names);
      const types = this.byStream.get(stream.connectionId);
      const index = types ? types.findIndex((t) => t.typeUrl === typeUrl) : -1;
      if (types && index >= 0) types[index] = sent;
      // `concat`, not a spread: V8 gives a spread array room for 17 more (136 bytes).
      else this.byStream.set(stream.connectionId, types ? types.concat([sent]) : [sent]);
    };
    const onClose = (stream: StreamView) => this.byStream.delete(stream.connectionId);
    events.on('response', onResponse);
    events.on('stream-close', onClose);
  }

  /** What was last sent to a stream, by type URL (empty when nothing was sent yet). */
  get(connectionId: string): ReadonlyMap<string, SentType> {
    return new Map((this.byStream.get(connectionId) ?? []).map((t) => [t.typeUrl, t]));
  }
}
