/**
 * HTTP/1.1 written by hand on a TCP socket, for headers `fetch` will not send (`Host`,
 * malformed or huge ones) and requests no client library would make. The request asks the
 * server to close, so the answer is everything read until the end.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed without a status line. */
  status: number;
  head: string;
  body: string;
}

export function rawRequest(
  controlUrl: string,
  text: string | Buffer,
  timeoutMs = 10_000,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(controlUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of the answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks).toString('latin1')));
    });
    socket.write(text);
  });
}

function parse(raw: string): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const head = end >= 0 ? raw.slice(0, end) : raw;
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  return { status, head, body: end >= 0 ? raw.slice(end + 4) : '' };
}

/** A request with these headers (`Connection: close` added), and a body when given. */
export function requestText(
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): string {
  const lines = [`${method} ${path} HTTP/1.1`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (
    body !== '' &&
    !Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h))
  )
    lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  lines.push('Connection: close', '', body);
  return lines.join('\r\n');
}

/** Opens a connection and sends `partial`, then nothing: a slow client holding a socket. */
export function holdOpen(controlUrl: string, partial: string): Promise<Socket> {
  const { hostname, port } = new URL(controlUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(partial);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}
