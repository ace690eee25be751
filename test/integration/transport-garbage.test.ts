/**
 * What reaches the xDS port below gRPC: garbage bytes and plain HTTP/1.1. The connection is
 * refused at the HTTP/2 layer (SETTINGS, then GOAWAY); the server keeps serving everyone else.
 */
import { connect } from 'node:net';
import { expect } from 'vitest';
import { requestClustersOnce } from '../support/fixtures/handshake.js';
import { it } from '../support/fixtures/test.js';

/** Writes `bytes`, then resolves with what came back once the server closed the socket. */
function exchange(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error('the server did not close the connection within 10 s'));
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

it('closes connections that do not speak HTTP/2, and keeps serving gRPC clients', async ({
  mock: server,
}) => {
  const port = server.addresses.xds.port;
  const http1 = await exchange(port, Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
  for (const answer of [http1, await exchange(port, garbage)]) {
    // The HTTP/2 server's SETTINGS frame (type 4), then GOAWAY (type 7) for stream 0, then close.
    expect(answer.length).toBe(26);
    expect([answer[3], answer[12], answer.readUInt32BE(18)]).toEqual([4, 7, 0]);
  }
  expect(server.streams()).toEqual([]);

  expect((await requestClustersOnce(server.xdsAddress)).resources).toHaveLength(2);
});
