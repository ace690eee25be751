/**
 * One browser's server-sent event stream. Frames are written as they come while the socket
 * drains; once more than `softLimitBytes` wait in its buffer, the client is *behind*: every
 * frame is dropped (counted) instead of queued, and when the socket drains it gets a `gap`
 * event and a fresh snapshot, which makes the dropped frames unnecessary. So a page that
 * stops reading holds at most the soft limit plus one frame, and never slows the sender; one
 * that stays stuck past `hardLimitBytes` is disconnected (EventSource reconnects by itself).
 */
import type { ServerResponse } from 'node:http';
import type { UiEventType } from './ui-events.js';

export interface UiClientOptions {
  /** Above this many buffered bytes, drop frames until the socket drains (default 256 KiB). */
  softLimitBytes?: number;
  /** Above this many, end the connection (default 8 MiB). */
  hardLimitBytes?: number;
  /** EventSource's reconnect delay (default 2 s). */
  retryMs?: number;
  /** A comment line this often keeps proxies from closing an idle stream (default 15 s). */
  heartbeatMs?: number;
  /**
   * A failure in this client's own callbacks (catching up after a drain): the page's stream
   * is ended (EventSource reconnects) and the failure reported here, never thrown.
   */
  onError?: (what: string, err: unknown) => void;
}

/** A page's default hard limit: more than this waiting in its buffer ends its stream. */
export const UI_HARD_LIMIT_BYTES = 8 * 1024 * 1024;

/** One SSE frame: the event name and its JSON data on one line. */
export function sseFrame(type: UiEventType, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** What `GET /ui/clients` shows of a client. */
export interface UiClientInfo {
  id: number;
  peer: string;
  connectedAt: string;
  bufferedBytes: number;
  behind: boolean;
  /** Frames dropped since it connected. */
  dropped: number;
  /** Snapshots sent after falling behind. */
  catchUps: number;
}

export class UiClient {
  private behind = false;
  private dropped = 0;
  private droppedSinceGap = 0;
  private catchUps = 0;
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly softLimit: number;
  private readonly hardLimit: number;
  private readonly onError: UiClientOptions['onError'];
  readonly connectedAt = new Date();

  constructor(
    readonly id: number,
    private readonly res: ServerResponse,
    /** A fresh snapshot frame, for catching up. */
    private readonly snapshot: () => string,
    options: UiClientOptions = {},
  ) {
    this.softLimit = options.softLimitBytes ?? 256 * 1024;
    this.hardLimit = options.hardLimitBytes ?? UI_HARD_LIMIT_BYTES;
    this.onError = options.onError;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${options.retryMs ?? 2_000}\n\n`);
    this.heartbeat = setInterval(() => {
      if (!this.behind) this.offer(': heartbeat\n\n');
    }, options.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
    res.on('close', () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Writes a frame now, or drops it when the socket is not keeping up. */
  offer(frame: string): void {
    if (this.closed) return;
    if (this.behind) {
      this.drop();
      return;
    }
    const buffered = this.res.writableLength;
    if (buffered > 0 && buffered + frame.length > this.softLimit && this.res.writableNeedDrain) {
      this.behind = true;
      this.drop();
      this.res.once('drain', () => this.safeCatchUp());
      return;
    }
    this.res.write(frame);
    if (this.res.writableLength > this.hardLimit) this.res.destroy();
  }

  info(): UiClientInfo {
    return {
      id: this.id,
      peer: `${this.res.socket?.remoteAddress ?? ''}:${this.res.socket?.remotePort ?? ''}`,
      connectedAt: this.connectedAt.toISOString(),
      bufferedBytes: this.res.writableLength,
      behind: this.behind,
      dropped: this.dropped,
      catchUps: this.catchUps,
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    if (!this.res.writableEnded) this.res.end();
  }

  private drop(): void {
    this.dropped += 1;
    this.droppedSinceGap += 1;
  }

  /** From the socket's 'drain': the snapshot is built from what clients sent. */
  private safeCatchUp(): void {
    try {
      this.catchUp();
    } catch (err) {
      this.res.destroy();
      this.onError?.('catching up a page', err);
    }
  }

  private catchUp(): void {
    if (this.closed) return;
    this.behind = false;
    this.catchUps += 1;
    const dropped = this.droppedSinceGap;
    this.droppedSinceGap = 0;
    this.res.write(sseFrame('gap', { dropped }));
    this.offer(this.snapshot());
  }
}
