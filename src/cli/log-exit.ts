/**
 * What a log stream does when the process exits, whatever became of its reader. pino flushes
 * its stdout stream synchronously on exit, and sonic-boom (4.x) retries a failed synchronous
 * write for ever, EPIPE included: with stdout a pipe whose reader is gone (`| head`, a log
 * shipper restarting) the process never finished exiting, and a SIGTERM never ended it. Here
 * a write error ends the flush (there is no one left to read it), and the flush has a deadline.
 */
import { writeSync } from 'node:fs';
import pino, { type Logger } from 'pino';

/** How long the exit flush may take (a reader that is there but not reading). */
export const EXIT_FLUSH_MS = 1_000;

/** The parts of sonic-boom's state the exit flush reads (sonic-boom 4.x). */
interface BoomState {
  fd: number;
  _bufs: (string | Buffer)[];
  flushSync(): void;
  on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): unknown;
}

function isBoom(stream: unknown): stream is BoomState {
  const s = stream as Partial<BoomState> | undefined;
  return typeof s?.fd === 'number' && Array.isArray(s._bufs) && typeof s.flushSync === 'function';
}

/** Makes `log`'s stream flush on exit within `EXIT_FLUSH_MS`, stopping at the first error. */
export function boundExitFlush(log: Logger): void {
  const stream: unknown = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  if (!isBoom(stream)) return;
  // A failed asynchronous write is said as an 'error' event: the log has no reader, and a
  // listener keeps the event from being thrown.
  stream.on('error', () => undefined);
  stream.flushSync = () => flushBounded(stream);
}

function flushBounded(stream: BoomState): void {
  const deadline = Date.now() + EXIT_FLUSH_MS;
  const bufs = stream._bufs;
  while (bufs.length > 0 && Date.now() < deadline) {
    const buf = bufs[0] ?? '';
    try {
      const data = typeof buf === 'string' ? Buffer.from(buf) : buf;
      const written = writeSync(stream.fd, data);
      if (written >= data.length) bufs.shift();
      else bufs[0] = data.subarray(written);
    } catch (err) {
      // A pipe that is full for now is tried again until the deadline; anything else is final.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}

/**
 * stdout and stderr themselves (what `process.stdout.write` and `console` use): a write that
 * fails because the reader is gone is an 'error' event, which unheard ends the process with
 * a stack trace, or, in the middle of a shutdown, stops it. Nothing can be said about it.
 */
export function ignoreClosedStdio(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listenerCount('error') === 0) stream.on('error', () => undefined);
  }
}
