/**
 * What the control port answers a request Node's HTTP parser refused before any route saw it
 * (headers over 16 KiB, a line that is not HTTP, framing that contradicts itself): the same
 * problem body every other refusal has, instead of Node's bare status line, so that a client
 * learns what was wrong. The connection is then closed, as Node does.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Node's parser error codes that mean "too large" rather than "malformed". */
const TOO_LARGE = new Set(['HPE_HEADER_OVERFLOW']);

export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset or timed-out connection has no one left to answer.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = TOO_LARGE.has(err.code ?? '') ? 431 : 400;
  const error =
    status === 431
      ? 'the request headers are too large (at most 16 KiB, the URL included)'
      : `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'})`;
  const body = JSON.stringify({ error, problems: [] });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
