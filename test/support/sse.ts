/**
 * A server-sent events reader for tests of the live page's stream (`GET /ui/events`), on
 * node:http so that a test can also stop reading (`pause()`) like a frozen browser tab.
 * Events are parsed as they arrive; `next()` waits, with a deadline, for the first one not yet
 * taken that matches.
 */
import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import { waitFor } from '../../src/util/wait.js';

export interface SseEvent {
  type: string;
  data: unknown;
}

export class SseReader {
  readonly events: SseEvent[] = [];
  private taken = 0;
  private text = '';
  bytes = 0;

  private constructor(
    private readonly request: ClientRequest,
    readonly response: IncomingMessage,
  ) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      this.bytes += Buffer.byteLength(chunk);
      this.text += chunk;
      this.parse();
    });
    response.on('error', () => undefined);
  }

  /** Opens `url`; resolves with the reader once the response head arrived (any status). */
  static open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    return new Promise((resolve, reject) => {
      const request = get(url, { headers }, (response) =>
        resolve(new SseReader(request, response)),
      );
      request.on('error', reject);
    });
  }

  get status(): number {
    return this.response.statusCode ?? 0;
  }

  /** The first event of `type` after those already taken, matching `predicate`. */
  async next<T = unknown>(
    type: string,
    predicate: (data: T) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<T> {
    return waitFor(
      () => {
        for (let i = this.taken; i < this.events.length; i++) {
          const event = this.events[i] as SseEvent;
          if (event.type === type && predicate(event.data as T)) {
            this.taken = i + 1;
            return { data: event.data as T };
          }
        }
        return undefined;
      },
      {
        timeoutMs,
        intervalMs: 10,
        description: `a "${type}" event matching the test`,
        explain: () =>
          `events seen: ${this.events.map((e) => e.type).join(' ')}\nlast: ${JSON.stringify(this.events.at(-1)).slice(0, 2000)}`,
      },
    ).then((found) => found.data);
  }

  /** Stops reading from the socket (the server's writes pile up in the kernel, then in Node). */
  pause(): void {
    this.response.pause();
    this.response.socket.pause();
  }

  resume(): void {
    this.response.socket.resume();
    this.response.resume();
  }

  close(): void {
    this.request.destroy();
  }

  private parse(): void {
    let end = this.text.indexOf('\n\n');
    while (end >= 0) {
      const block = this.text.slice(0, end);
      this.text = this.text.slice(end + 2);
      let type = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) type = line.slice('event: '.length);
        else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
      }
      if (data.length > 0) this.events.push({ type, data: JSON.parse(data.join('\n')) });
      end = this.text.indexOf('\n\n');
    }
  }
}
