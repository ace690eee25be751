/**
 * A signal that aborts when an HTTP client goes away before its answer is written. A
 * response's `close` comes once, after the answer is out or when the connection ends first;
 * only the second is a client gone. (A request's own `close` comes as soon as its body is
 * read, so it cannot tell.)
 */
import type { ServerResponse } from 'node:http';

export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
