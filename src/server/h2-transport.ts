/**
 * gRPC over `node:http2` for a plaintext xDS port, without grpc-js: a connection costs the
 * mock about a fifth less CPU this way (docs/BENCHMARKS.md, "Where a connection's time
 * goes"). It speaks the part of gRPC the port's services use, as grpc-js's server does:
 *
 * - methods by path: the ADS streams and the unary methods of the services beside them
 *   (istiod's CA); any other path ends `UNIMPLEMENTED`, a body that is not gRPC gets 415;
 * - length-prefixed messages, up to the receive limit; as istiod's gRPC (grpc-go) refuses
 *   them, in its words (conformance: "First request"): a message over the limit
 *   (`RESOURCE_EXHAUSTED`), a call naming a `grpc-encoding` (`UNIMPLEMENTED`: istiod
 *   registers no decompressor, and neither does this), a compressed flag without one
 *   (`INTERNAL`);
 * - a call that reads nothing until it is listened to (HTTP/2 flow control holds the
 *   client's requests back meanwhile, as grpc-js does while a stream is authenticated);
 * - statuses in trailers, `grpc-message` percent-encoded as grpc-js writes it (`encodeURI`:
 *   Envoy logs the text as received, docs/envoy-facts.md);
 * - keepalive: a ping every `keepaliveTimeMs`, the connection closed when one goes
 *   `keepaliveTimeoutMs` unanswered.
 *
 * A call is shaped as grpc-js's `ServerDuplexStream` as far as the streams use it (see
 * `AdsCall`), and feeds an ADS stream directly (`CallSink`); TLS ports stay on grpc-js.
 */
import { EventEmitter } from 'node:events';
import * as http2 from 'node:http2';
import type { Socket } from 'node:net';
import type * as grpc from '@grpc/grpc-js';
import { grpcJs } from '../util/grpc-js.js';
import { GrpcStatus } from '../core/grpc-status.js';
import { cutText } from '../util/cut-text.js';
import { FRAME_PREFIX, type AdsCall, type CallSink } from './ads-service.js';

export interface H2ServiceEntry {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
}

export interface H2TransportOptions {
  /** The longest request message, in bytes. */
  maxReceiveMessageLength: number;
  keepaliveTimeMs: number;
  keepaliveTimeoutMs: number;
}

export interface H2Transport {
  /** Serves a connection accepted elsewhere (our own listener and its backlog). */
  serve(socket: Socket): void;
  /** Asks every connection to finish (GOAWAY), then ends those left after `graceMs`. */
  shutdown(graceMs: number): Promise<void>;
}

type Status = { code: number; details: string; metadata?: grpc.Metadata | undefined };

const GRPC_CONTENT_TYPE = 'application/grpc';

/** The response headers of every call, and how they are sent (Node copies what it sends). */
const RESPONSE_HEADERS = Object.freeze({
  ':status': 200,
  'content-type': 'application/grpc+proto',
});
/** No `date` header: gRPC servers send none (grpc-go's, istiod's), and Node makes one per call. */
const RESPOND_OPTIONS = Object.freeze({ waitForTrailers: true, sendDate: false });

/**
 * The call an HTTP/2 stream carries, kept on the stream under a symbol of ours, so that the
 * stream's listeners below are shared by every call (an emitter calls a listener with itself
 * as `this`) instead of being closures of each.
 */
const CALL = Symbol('mock-istiod call');
type CallStream = http2.ServerHttp2Stream & { [CALL]: H2Call };

/**
 * The socket a session was made on, kept on the session: `session.socket` is a Proxy whose
 * every property read goes through a trap, about 1.5 µs each, four of them for a peer address.
 */
const SOCKET = Symbol('mock-istiod socket');
type RawSession = http2.ServerHttp2Session & { [SOCKET]?: Socket };
/** The socket being handed to the HTTP/2 server, which makes its session synchronously. */
let accepting: Socket | undefined;

/** What a call tells its sink (`CallSink`'s methods). */
const enum Told {
  Data,
  Ended,
  Cancelled,
  Failed,
  Closed,
}

/**
 * What calls tell their sinks, delivered together once the event loop has read every socket
 * that was ready (`setImmediate`): sink, what, message, three slots each. Told one by one, each
 * request ran the mock's code after Node's HTTP/2 code for its socket had pushed it out of the
 * CPU's caches: decoding a request took 10 µs that way, against 3.5 right after decoding it
 * once (docs/BENCHMARKS.md). In a batch it runs while still warm. A call's own order is kept:
 * its messages, then its end.
 *
 * Except a call's first message, told at once (`H2Call.onChunk`): Node writes what its HTTP/2
 * session owes (the acknowledgement of the client's SETTINGS) before any `setImmediate`, so a
 * batched first answer took a write of its own, four writes a connection instead of three.
 * That write cost more than the warm caches saved: a reconnect storm of 5,000 sidecars took
 * 2–3 % less CPU with the first message told at once.
 */
let told: unknown[] = [];
let delivering: unknown[] = [];
let scheduled = false;

function tell(sink: CallSink, what: Told, message?: Buffer): void {
  told.push(sink, what, message);
  if (scheduled) return;
  scheduled = true;
  setImmediate(deliverTold);
}

function deliverTold(): void {
  scheduled = false;
  // What the sinks cause meanwhile (another call's end, say) waits for the next batch.
  [delivering, told] = [told, delivering];
  for (let i = 0; i < delivering.length; i += 3) {
    const sink = delivering[i] as CallSink;
    try {
      switch (delivering[i + 1] as Told) {
        case Told.Data:
          sink.callData(delivering[i + 2] as Buffer);
          break;
        case Told.Ended:
          sink.callEnded();
          break;
        case Told.Cancelled:
          sink.callCancelled();
          break;
        case Told.Failed:
          sink.callFailed();
          break;
        case Told.Closed:
          sink.callClosed();
          break;
      }
    } catch (err) {
      // As a throw from a stream's own listener would end: uncaught, once the rest are told.
      process.nextTick(() => {
        throw err;
      });
    }
  }
  delivering.length = 0;
}

function ignore(): void {}
/** A listener of any of the call's events. */
type Listener = Parameters<EventEmitter['on']>[1];
function onWantTrailers(this: CallStream): void {
  this[CALL].sendTrailers();
}
function onAborted(this: CallStream): void {
  const call = this[CALL];
  call.cancelled = true;
  if (call.sink) tell(call.sink, Told.Cancelled);
  call.emit('cancelled');
}
function onClose(this: CallStream): void {
  const call = this[CALL];
  if (call.sink) tell(call.sink, Told.Closed);
  call.emit('close');
}
function onDrain(this: CallStream): void {
  this[CALL].emit('drain');
}
function onChunk(this: CallStream, chunk: Buffer): void {
  this[CALL].onChunk(chunk);
}
function onEnd(this: CallStream): void {
  const call = this[CALL];
  if (call.sink) tell(call.sink, Told.Ended);
  call.emit('end');
}

/**
 * A gRPC call on one HTTP/2 stream. Its metadata is made from the request's headers when first
 * read: only an authenticator (a TLS port's, or a token's) and a relay read it. An ADS stream
 * is fed directly (`attach`, a `CallSink`); anything else listens to the call's events, as
 * to a grpc-js call's.
 */
class H2Call extends EventEmitter {
  cancelled = false;
  /** The stream fed directly, once attached. */
  sink: CallSink | undefined;
  private meta: grpc.Metadata | undefined;
  private headersSent = false;
  private status: Status | undefined;
  private reading = false;
  private drainPassed = false;
  /** Bytes of an unfinished message (its prefix included), in the order they came. */
  private partial: Buffer[] = [];
  private partialLength = 0;
  /** Whether the sink has had a message: the first is told at once, the rest in batches. */
  private firstTold = false;

  constructor(
    private readonly stream: CallStream,
    private readonly headers: http2.IncomingHttpHeaders,
    private readonly maxLength: number,
  ) {
    super();
    stream[CALL] = this;
    stream.on('wantTrailers', onWantTrailers);
    stream.on('aborted', onAborted);
    stream.on('close', onClose);
    // A reset or a write after the peer left: 'aborted' and 'close' say what the call needs.
    stream.on('error', ignore);
  }

  // Nothing is read until the call is listened to (or attached): meanwhile HTTP/2's flow
  // control keeps the client's requests on its side. The stream's 'drain' is passed on only
  // once someone waits for it (a stream whose writes were held back).
  override on(event: string | symbol, listener: Listener): this {
    this.listening(event);
    return super.on(event, listener);
  }

  override addListener(event: string | symbol, listener: Listener): this {
    this.listening(event);
    return super.addListener(event, listener);
  }

  override prependListener(event: string | symbol, listener: Listener): this {
    this.listening(event);
    return super.prependListener(event, listener);
  }

  private listening(event: string | symbol): void {
    if (event === 'data') this.startReading();
    else if (event === 'drain') this.passDrain();
  }

  get metadata(): grpc.Metadata {
    return (this.meta ??= grpcJs().Metadata.fromHttp2Headers(this.headers));
  }

  /** Feeds `sink` from now on: its requests, and what becomes of the call. */
  attach(sink: CallSink): void {
    this.sink = sink;
    this.startReading();
  }

  passDrain(): void {
    if (this.drainPassed) return;
    this.drainPassed = true;
    this.stream.on('drain', onDrain);
  }

  startReading(): void {
    if (this.reading) return;
    this.reading = true;
    this.stream.on('data', onChunk);
    this.stream.on('end', onEnd);
  }

  onChunk(chunk: Buffer): void {
    if (this.status) return;
    // Most often a piece is one whole message, nothing pending: passed on as it is.
    if (this.partialLength === 0 && chunk.length >= 5 && chunk[0] === 0) {
      const length = chunk.readUInt32BE(1);
      if (chunk.length === 5 + length && length <= this.maxLength) {
        this.deliver(chunk.subarray(5));
        return;
      }
    }
    this.partial.push(chunk);
    this.partialLength += chunk.length;
    while (this.partialLength >= 5 && !this.status) {
      const prefix = this.prefix();
      const length = prefix.readUInt32BE(1);
      // The length first, then the flag, as grpc-go reads them.
      if (length > this.maxLength) {
        this.fail(
          GrpcStatus.RESOURCE_EXHAUSTED,
          `grpc: received message larger than max (${length} vs. ${this.maxLength})`,
        );
        return;
      }
      const format = prefix[0] as number;
      if (format !== 0) {
        // A call naming an encoding never gets here (`encodingRefused`).
        this.fail(
          GrpcStatus.INTERNAL,
          format === 1
            ? 'grpc: compressed flag set with identity or empty encoding'
            : `grpc: received unexpected payload format ${format}`,
        );
        return;
      }
      // The pieces are joined once, when the whole message is in: a large message arriving
      // in many frames is not copied again for each.
      if (this.partialLength < 5 + length) return;
      const all =
        this.partial.length === 1
          ? (this.partial[0] as Buffer)
          : Buffer.concat(this.partial, this.partialLength);
      const restLength = all.length - 5 - length;
      const message = all.subarray(5, 5 + length);
      this.partial.length = 0;
      if (restLength > 0) this.partial.push(all.subarray(5 + length));
      this.partialLength = restLength;
      this.deliver(message);
    }
  }

  /** Hands a whole message on: to the sink, or as a 'data' event to the call's listeners. */
  private deliver(message: Buffer): void {
    if (!this.sink) super.emit('data', message);
    else if (this.firstTold) tell(this.sink, Told.Data, message);
    else {
      // The first request at once (see `tell`): its answer leaves with the session's
      // acknowledgement of the client's SETTINGS, in one write.
      this.firstTold = true;
      this.sink.callData(message);
    }
  }

  /** The next message's 5-byte prefix, read across pieces without joining them. */
  private prefix(): Buffer {
    const first = this.partial[0] as Buffer;
    if (first.length >= 5) return first;
    const prefix = Buffer.alloc(5);
    let at = 0;
    for (const piece of this.partial) {
      at += piece.copy(prefix, at, 0, Math.min(piece.length, 5 - at));
      if (at === 5) break;
    }
    return prefix;
  }

  private fail(code: number, details: string): void {
    this.partial = [];
    this.partialLength = 0;
    this.emit('error', { code, details });
  }

  private ensureHeaders(): void {
    if (this.headersSent || this.stream.destroyed) return;
    this.headersSent = true;
    this.stream.respond(RESPONSE_HEADERS, RESPOND_OPTIONS);
  }

  sendTrailers(): void {
    const status = this.status ?? { code: GrpcStatus.OK, details: '' };
    const trailers: http2.OutgoingHttpHeaders = {
      ...status.metadata?.toHttp2Headers(),
      'grpc-status': String(status.code),
    };
    if (status.details) trailers['grpc-message'] = encodeURI(status.details);
    this.stream.sendTrailers(trailers);
  }

  /** Ends the call with a status (once; later ones are ignored). */
  finishWith(status: Status): void {
    if (this.status) return;
    this.status = status;
    if (this.stream.destroyed || this.stream.closed) return;
    this.ensureHeaders();
    this.stream.end();
  }

  /** Writes one message; false when the stream asks to wait for 'drain'. */
  write(message: Buffer): boolean {
    if (this.status || this.stream.destroyed) return false;
    const frame = Buffer.allocUnsafe(FRAME_PREFIX + message.length);
    frame.set(message, FRAME_PREFIX);
    return this.writeFrame(frame);
  }

  writeFrame(frame: Buffer): boolean {
    if (this.status || this.stream.destroyed) return false;
    this.ensureHeaders();
    const length = frame.length - FRAME_PREFIX;
    frame[0] = 0;
    frame[1] = length >>> 24;
    frame[2] = (length >>> 16) & 0xff;
    frame[3] = (length >>> 8) & 0xff;
    frame[4] = length & 0xff;
    return this.stream.write(frame);
  }

  /** Ends the call with OK. */
  end(): void {
    this.finishWith({ code: GrpcStatus.OK, details: '' });
  }

  /** As on grpc-js's calls: emitting `{ code, details }` as 'error' ends the call with it. */
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'error') {
      const status = args[0] as Partial<Status> | undefined;
      if (typeof status?.code === 'number') {
        this.finishWith({ code: status.code, details: status.details ?? '' });
      }
      if (this.sink) tell(this.sink, Told.Failed);
      // A status emitted before anyone listens (a rate limit refusing the stream) is the
      // call's end, not an unhandled error.
      if (this.listenerCount('error') === 0) return false;
    }
    return super.emit(event, ...args);
  }

  getPeer(): string {
    const session = this.stream.session as RawSession | undefined;
    const socket = session?.[SOCKET] ?? session?.socket;
    const address = socket?.remoteAddress;
    if (!address) return 'unknown';
    const port = socket.remotePort;
    return port ? `${address}:${port}` : address;
  }

  getAuthContext(): Record<string, never> {
    return {};
  }
}

/** The most of an unknown `grpc-encoding` a refusal quotes. */
const ENCODING_NAME_MAX = 256;

/**
 * Why a call whose messages come compressed is refused, as istiod's gRPC refuses it before
 * its handler runs (it registers no decompressor); undefined for none or `identity`.
 */
function encodingRefused(encoding: string | string[] | undefined): string | undefined {
  const name = Array.isArray(encoding) ? encoding.join(',') : encoding;
  if (name === undefined || name === '' || name === 'identity') return undefined;
  // Go's %q, which JSON's quoting matches for the printable ASCII a header holds; a name of
  // the client's choosing is cut, so that its status stays a short trailer.
  const quoted = JSON.stringify(cutText(name, ENCODING_NAME_MAX));
  return `grpc: Decompressor is not installed for grpc-encoding ${quoted}`;
}

/** A unary method: one request read whole, the implementation's answer or error written. */
function serveUnary(call: H2Call, method: grpc.MethodDefinition<unknown, unknown>, impl: unknown) {
  let request: Buffer | undefined;
  call.on('data', (message: Buffer) => {
    request ??= message;
  });
  call.on('end', () => {
    if (!request) {
      call.finishWith({ code: GrpcStatus.INTERNAL, details: 'no request message' });
      return;
    }
    let decoded: unknown;
    try {
      decoded = method.requestDeserialize(request);
    } catch {
      call.finishWith({ code: GrpcStatus.INTERNAL, details: 'Error deserializing request' });
      return;
    }
    const unaryCall = Object.assign(call, { request: decoded });
    const answer: grpc.sendUnaryData<unknown> = (err, value) => {
      if (err) {
        const e = err as Partial<grpc.ServiceError>;
        call.finishWith({
          code: e.code ?? GrpcStatus.UNKNOWN,
          details: e.details ?? e.message ?? '',
          metadata: e.metadata,
        });
        return;
      }
      call.write(method.responseSerialize(value));
      call.end();
    };
    (impl as grpc.handleUnaryCall<unknown, unknown>)(
      unaryCall as unknown as grpc.ServerUnaryCall<unknown, unknown>,
      answer,
    );
  });
}

/**
 * `services`: each method routed by its definition's path, a bidirectional stream handed its
 * call (the ADS service), a unary one answered by `serveUnary`.
 */
export function createH2Transport(
  services: readonly H2ServiceEntry[],
  options: H2TransportOptions,
): H2Transport {
  const streaming = new Map<string, (call: AdsCall) => void>();
  const unary = new Map<
    string,
    { method: grpc.MethodDefinition<unknown, unknown>; impl: unknown }
  >();
  for (const { definition, implementation } of services) {
    for (const [name, method] of Object.entries(definition)) {
      const impl = implementation[name];
      if (!impl) continue;
      if (method.requestStream && method.responseStream) {
        streaming.set(method.path, impl as (call: AdsCall) => void);
      } else if (!method.requestStream && !method.responseStream) {
        unary.set(method.path, { method, impl });
      }
    }
  }

  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session: RawSession) => {
    session[SOCKET] = accepting;
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', ignore);
  });
  server.on('stream', (stream, headers) => {
    const type = headers['content-type'];
    if (typeof type !== 'string' || !type.startsWith(GRPC_CONTENT_TYPE)) {
      stream.on('error', ignore);
      stream.respond({ ':status': 415 }, { endStream: true });
      return;
    }
    const call = new H2Call(stream as CallStream, headers, options.maxReceiveMessageLength);
    const path = headers[':path'] ?? '';
    const handler = streaming.get(path);
    const method = handler ? undefined : unary.get(path);
    if (handler || method) {
      const refused = encodingRefused(headers['grpc-encoding']);
      if (refused) call.finishWith({ code: GrpcStatus.UNIMPLEMENTED, details: refused });
      else if (handler) handler(call as unknown as AdsCall);
      else if (method) serveUnary(call, method.method, method.impl);
      return;
    }
    call.finishWith({
      code: GrpcStatus.UNIMPLEMENTED,
      details: `The server does not implement the method ${path}`,
    });
  });

  // One timer for every connection: each gets a ping per period, and one that goes
  // unanswered for the timeout is closed.
  const keepalive = setInterval(() => {
    for (const session of sessions) {
      if (session.destroyed || session.closed) continue;
      const timer = setTimeout(() => session.destroy(), options.keepaliveTimeoutMs);
      timer.unref();
      const sent = session.ping((err) => {
        clearTimeout(timer);
        if (err) session.destroy();
      });
      if (!sent) clearTimeout(timer);
    }
  }, options.keepaliveTimeMs);
  keepalive.unref();

  return {
    serve(socket) {
      accepting = socket;
      try {
        server.emit('connection', socket);
      } finally {
        accepting = undefined;
      }
    },
    async shutdown(graceMs) {
      clearInterval(keepalive);
      const open = [...sessions];
      await new Promise<void>((resolve) => {
        let left = open.length;
        if (left === 0) return resolve();
        const timer = setTimeout(() => {
          for (const session of open) session.destroy();
          resolve();
        }, graceMs);
        for (const session of open) {
          session.close(() => {
            left -= 1;
            if (left === 0) {
              clearTimeout(timer);
              resolve();
            }
          });
        }
      });
    },
  };
}
