/**
 * Node's floor for ADS: a bare `node:http2` server, no gRPC library. Each stream's gRPC
 * messages are split from the DATA frames by hand; the first request of each type is
 * answered with the pre-encoded response, everything else is read and dropped; a push writes
 * the pre-encoded CDS response (new nonce, framed once) to every open stream. Benchmark-only.
 */
import {
  createServer,
  constants,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { LISTEN_BACKLOG } from '../../src/server/ads-server.js';
import { announce, answerOnce, floorArgs, floorResponses, FloorStreams } from './floor.js';

const args = floorArgs('floor-h2');
const responses = floorResponses(args.resources);
const streams = new FloorStreams(responses);

function frame(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(5 + message.length);
  framed[0] = 0;
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  return framed;
}
const framed = {
  sotw: new Map([...responses.sotw].map(([type, bytes]) => [type, frame(bytes)])),
  delta: new Map([...responses.delta].map(([type, bytes]) => [type, frame(bytes)])),
};

/** A push's message, framed once for every stream it goes to. */
let lastPush: { message: Buffer; framed: Buffer } | undefined;
function framedPush(message: Buffer): Buffer {
  if (lastPush?.message !== message) lastPush = { message, framed: frame(message) };
  return lastPush.framed;
}

function serve(stream: ServerHttp2Stream, delta: boolean): void {
  const answer = answerOnce(delta ? framed.delta : framed.sotw, delta);
  let pending: Buffer = Buffer.alloc(0);
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  const forget = streams.add(delta, (message) => stream.write(framedPush(message)));
  stream.on('close', forget);
  stream.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 5 && pending.length >= 5 + pending.readUInt32BE(1)) {
      const length = pending.readUInt32BE(1);
      const response = answer(pending.subarray(5, 5 + length));
      pending = pending.subarray(5 + length);
      if (response) stream.write(response);
    }
  });
  stream.on('end', () => stream.end());
  stream.on('error', () => undefined);
}

const server = createServer();
server.on('stream', (stream, headers) => {
  const path = String(headers[constants.HTTP2_HEADER_PATH] ?? '');
  if (path.endsWith('/StreamAggregatedResources')) serve(stream, false);
  else if (path.endsWith('/DeltaAggregatedResources')) serve(stream, true);
  else
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' },
      { endStream: true },
    );
});
const sessions = new Set<ServerHttp2Session>();
server.on('session', (session) => {
  sessions.add(session);
  session.on('close', () => sessions.delete(session));
});
// The mock's backlog (as Go's, the kernel's limit): past Node's default of 511 a storm's SYNs
// are dropped and wait for TCP's retries.
const listen = (port: number) =>
  new Promise<void>((resolve) =>
    server.listen({ port, host: args.host, backlog: LISTEN_BACKLOG }, resolve),
  );
await listen(0);
const port = (server.address() as AddressInfo).port;
await announce(args.host, port, streams, {
  down: async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const session of sessions) session.destroy();
    await closed;
  },
  up: () => listen(port),
});
