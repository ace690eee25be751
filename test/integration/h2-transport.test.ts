/**
 * The plaintext xDS port's own gRPC over HTTP/2 (src/server/h2-transport.ts), seen through a
 * bare `node:http2` client: what a gRPC library would never send, and how the port answers.
 * Every case ends with a real gRPC client still served.
 */
import * as http2 from 'node:http2';
import { expect } from 'vitest';
import { encodeDiscoveryRequest, decodeDiscoveryResponse } from '../../src/xds/wire.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { waitFor } from '../../src/util/wait.js';
import { requestClustersOnce } from '../support/fixtures/handshake.js';
import { it } from '../support/fixtures/test.js';

const SOTW = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';

interface Answer {
  status: number | undefined;
  contentType: string | undefined;
  /** The response's header names, pseudo-headers aside. */
  headerNames: string[];
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

/** One request on its own connection: `chunks` written one by one, then the side ended (or not). */
function call(
  port: number,
  path: string,
  chunks: Buffer[],
  options: {
    contentType?: string;
    end?: boolean;
    until?: (body: Buffer) => boolean;
    headers?: http2.OutgoingHttpHeaders;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': options.contentType ?? 'application/grpc',
      te: 'trailers',
      ...options.headers,
    });
    const answer: Answer = {
      status: undefined,
      contentType: undefined,
      headerNames: [],
      trailers: {},
      body: Buffer.alloc(0),
    };
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no answer within 10 s on ${path}`));
    }, 10_000);
    const done = () => {
      clearTimeout(timer);
      session.destroy();
      resolve(answer);
    };
    stream.on('response', (headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader) => {
      answer.status = headers[':status'];
      answer.contentType = headers['content-type'];
      answer.headerNames = Object.keys(headers).filter((name) => !name.startsWith(':'));
    });
    stream.on('trailers', (trailers: http2.IncomingHttpHeaders) => {
      answer.trailers = trailers;
    });
    stream.on('data', (chunk: Buffer) => {
      answer.body = Buffer.concat([answer.body, chunk]);
      if (options.until?.(answer.body)) done();
    });
    stream.on('end', done);
    stream.on('error', () => undefined);
    for (const chunk of chunks) stream.write(chunk);
    if (options.end ?? true) stream.end();
  });
}

/** A SotW ADS stream on `session`, its errors ignored (the cases end connections on purpose). */
function openSotw(session: http2.ClientHttp2Session): http2.ClientHttp2Stream {
  const stream = session.request({
    ':method': 'POST',
    ':path': SOTW,
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  stream.on('error', () => undefined);
  return stream;
}

function frame(message: Uint8Array, compressed = false): Buffer {
  const out = Buffer.alloc(message.length + 5);
  out[0] = compressed ? 1 : 0;
  out.writeUInt32BE(message.length, 1);
  Buffer.from(message).copy(out, 5);
  return out;
}

const cdsRequest = () =>
  encodeDiscoveryRequest({
    node: {
      id: 'sidecar~10.0.0.1~h2.default~default.svc.cluster.local',
      cluster: 'h2.default',
      metadata: {},
      user_agent_name: 'envoy',
      user_agent_version: '',
    },
    type_url: CLUSTER_TYPE,
  });

it('reads a request split anywhere across DATA frames, and answers it', async ({ mock }) => {
  const bytes = frame(cdsRequest());
  // Byte by byte for the prefix, then the rest in two pieces.
  const chunks = [
    ...[0, 1, 2, 3, 4].map((i) => bytes.subarray(i, i + 1)),
    bytes.subarray(5, 40),
    bytes.subarray(40),
  ];
  const answer = await call(mock.addresses.xds.port, SOTW, chunks, {
    end: false,
    until: (body) => body.length >= 5 && body.length >= 5 + body.readUInt32BE(1),
  });
  expect(answer.status).toBe(200);
  expect(answer.contentType).toMatch(/^application\/grpc/);
  // As grpc-go (istiod) answers: the content type alone, no `date`.
  expect(answer.headerNames).toEqual(['content-type']);
  const response = decodeDiscoveryResponse(
    answer.body.subarray(5, 5 + answer.body.readUInt32BE(1)),
  );
  expect(response.type_url).toBe(CLUSTER_TYPE);
  expect(response.resources.length).toBeGreaterThan(0);
});

/** The messages of a gRPC body, each after its 5-byte prefix. */
function messages(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at + 5 <= body.length;) {
    const end = at + 5 + body.readUInt32BE(at + 1);
    if (end > body.length) break;
    out.push(body.subarray(at + 5, end));
    at = end;
  }
  return out;
}

it('reads requests that share a DATA frame, whole or cut across two, and answers each', async ({
  mock,
}) => {
  const lds = frame(encodeDiscoveryRequest({ type_url: LISTENER_TYPE }));
  const both = Buffer.concat([frame(cdsRequest()), lds]);
  for (const chunks of [
    [both],
    [both.subarray(0, both.length - lds.length + 3), lds.subarray(3)],
  ]) {
    const answer = await call(mock.addresses.xds.port, SOTW, chunks, {
      end: false,
      until: (body) => messages(body).length >= 2,
    });
    const types = messages(answer.body).map((m) => decodeDiscoveryResponse(m).type_url);
    expect(types).toEqual([CLUSTER_TYPE, LISTENER_TYPE]);
  }
});

it("journals the client's address and port as the stream's peer", async ({ mock }) => {
  const session = http2.connect(`http://127.0.0.1:${mock.addresses.xds.port}`);
  try {
    await new Promise<void>((resolve, reject) => {
      session.once('connect', () => resolve());
      session.once('error', reject);
    });
    const { localPort } = session.socket;
    const stream = openSotw(session);
    stream.write(frame(cdsRequest()));
    const open = await waitFor(() => mock.journal.query({ kind: 'open' }).at(0), {
      description: 'the stream journaled as open',
    });
    expect(open.peer).toBe(`127.0.0.1:${localPort}`);
    expect(mock.streams()[0]?.peer).toBe(`127.0.0.1:${localPort}`);
  } finally {
    session.destroy();
  }
});

it('reads a 3 MiB message sent in 16 KiB pieces, within the limit, and ends the stream on its contents', async ({
  mock,
}) => {
  // Not a DiscoveryRequest: the stream ends INVALID_ARGUMENT, having read all of it.
  const body = Buffer.alloc(3 * 1024 * 1024, 0xff);
  const bytes = frame(body);
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 16 * 1024)
    pieces.push(bytes.subarray(at, at + 16 * 1024));
  const started = performance.now();
  const answer = await call(mock.addresses.xds.port, SOTW, pieces, { end: false });
  expect(answer.trailers['grpc-status']).toBe(String(3));
  expect(decodeURIComponent(String(answer.trailers['grpc-message']))).toMatch(/^malformed request/);
  expect(performance.now() - started).toBeLessThan(5_000);
  expect((await requestClustersOnce(mock.xdsAddress)).resources).toHaveLength(2);
});

it('refuses compressed messages, a message over 4 MiB, an unknown method and a body that is not gRPC', async ({
  mock,
}) => {
  const port = mock.addresses.xds.port;
  // Percent-encoded as grpc-js writes it: Envoy logs the text as received.
  const message = (a: Answer) => decodeURIComponent(String(a.trailers['grpc-message']));
  // A call naming an encoding is refused before its first message is read, as istiod's gRPC
  // refuses it (it has no decompressor); the conformance case "a stream whose requests are
  // gzip-compressed" compares the two.
  const gzip = await call(port, SOTW, [], { end: false, headers: { 'grpc-encoding': 'gzip' } });
  expect(gzip.trailers['grpc-status']).toBe(String(12));
  expect(message(gzip)).toBe('grpc: Decompressor is not installed for grpc-encoding "gzip"');
  const unary = await call(port, '/istio.v1.auth.IstioCertificateService/CreateCertificate', [], {
    end: false,
    headers: { 'grpc-encoding': 'deflate' },
  });
  expect(unary.trailers['grpc-status']).toBe(String(12));
  expect(message(unary)).toBe('grpc: Decompressor is not installed for grpc-encoding "deflate"');
  // A name of the client's choosing is quoted cut, its status a short trailer.
  const long = await call(port, SOTW, [], {
    end: false,
    headers: { 'grpc-encoding': 'z'.repeat(10_000) },
  });
  expect(long.trailers['grpc-status']).toBe(String(12));
  expect(message(long)).toBe(
    `grpc: Decompressor is not installed for grpc-encoding "${'z'.repeat(256)}…[truncated, 10000 bytes]"`,
  );
  const identity = await call(port, SOTW, [frame(cdsRequest())], {
    headers: { 'grpc-encoding': 'identity' },
    until: (body) => body.length > 5,
  });
  expect(identity.body.length).toBeGreaterThan(5);
  // A compressed flag with no encoding named, and a flag that is no format.
  const flagged = await call(port, SOTW, [frame(cdsRequest(), true)]);
  expect(flagged.trailers['grpc-status']).toBe(String(13));
  expect(message(flagged)).toBe('grpc: compressed flag set with identity or empty encoding');
  const odd = frame(cdsRequest());
  odd[0] = 7;
  const unknownFormat = await call(port, SOTW, [odd]);
  expect(unknownFormat.trailers['grpc-status']).toBe(String(13));
  expect(message(unknownFormat)).toBe('grpc: received unexpected payload format 7');

  // Only the prefix of a 64 MiB message: refused on its length, nothing buffered.
  const prefix = Buffer.from([1, 0x04, 0, 0, 0]);
  const huge = await call(port, SOTW, [prefix], { end: false });
  expect(huge.trailers['grpc-status']).toBe(String(8));
  expect(message(huge)).toBe('grpc: received message larger than max (67108864 vs. 4194304)');

  const unknown = await call(port, '/no.Such/Method', [frame(cdsRequest())]);
  expect(unknown.trailers['grpc-status']).toBe(String(12));

  const json = await call(port, SOTW, [Buffer.from('{}')], { contentType: 'application/json' });
  expect(json.status).toBe(415);

  expect(mock.streams()).toEqual([]);
  expect((await requestClustersOnce(mock.xdsAddress)).resources).toHaveLength(2);
});

it('ends a stream the client half-closes with OK, lets one whose connection drops go, and journals why each ended', async ({
  mock,
}) => {
  const port = mock.addresses.xds.port;
  // Half-closed after the request: answered, then ended cleanly.
  const halfClosed = await call(port, SOTW, [frame(cdsRequest())]);
  expect(halfClosed.trailers['grpc-status']).toBe('0');
  expect(decodeResponse(halfClosed.body).type_url).toBe(CLUSTER_TYPE);

  // The connection dropped once answered: the stream is let go, as cancelled.
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => undefined);
  try {
    const stream = openSotw(session);
    stream.write(frame(cdsRequest()));
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    session.destroy();
    await waitFor(() => mock.journal.query({ kind: 'close' }).length === 2, {
      description: 'both streams closed in the journal',
    });
  } finally {
    session.destroy();
  }
  expect(mock.journal.query({ kind: 'close' }).map((e) => e.reason)).toEqual([
    'client closed the stream',
    'client cancelled the stream',
  ]);
  expect(mock.streams()).toEqual([]);
  expect((await requestClustersOnce(mock.xdsAddress)).resources).toHaveLength(2);
});

it('answers the requests of many streams that arrive together, a malformed one ending only its own stream', async ({
  mock,
}) => {
  const port = mock.addresses.xds.port;
  // Twenty connections at once, so that the port reads their requests together.
  const bad = 7;
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      call(port, SOTW, [i === bad ? frame(Buffer.from([0xff, 0xff, 0xff])) : frame(cdsRequest())]),
    ),
  );
  answers.forEach((answer, i) => {
    if (i === bad) {
      expect(answer.trailers['grpc-status']).toBe('3');
      expect(decodeURIComponent(String(answer.trailers['grpc-message']))).toMatch(
        /^malformed request/,
      );
    } else {
      expect(answer.trailers['grpc-status']).toBe('0');
      expect(decodeResponse(answer.body).type_url).toBe(CLUSTER_TYPE);
    }
  });
  expect(mock.journal.query({ kind: 'response' })).toHaveLength(19);
});

/** The first message of a gRPC body, as a DiscoveryResponse. */
function decodeResponse(body: Buffer) {
  return decodeDiscoveryResponse(body.subarray(5, 5 + body.readUInt32BE(1)));
}
