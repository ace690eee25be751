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
  private readonly byStream = new Map<string, Map<string, SentType>>();

  constructor(events: ServerEventEmitter) {
    const onResponse = (stream: StreamView, response: ResponseEvent) => {
      let types = this.byStream.get(stream.connectionId);
      if (!types) this.byStream.set(stream.connectionId, (types = new Map<string, SentType>()));
      const { typeUrl, version, nonce, snapshot, names } = response;
      types.set(typeUrl, new Sent(typeUrl, version, nonce, Date.now(), snapshot, names));
    };
    const onClose = (stream: StreamView) => this.byStream.delete(stream.connectionId);
    events.on('response', onResponse);
    events.on('stream-close', onClose);
  }

  /** What was last sent to a stream, by type URL (empty when nothing was sent yet). */
  get(connectionId: string): ReadonlyMap<string, SentType> {
    return this.byStream.get(connectionId) ?? new Map<string, SentType>();
  }
}
