/**
 * The ADS gRPC service, defined by hand so that requests arrive as raw bytes (decoded by
 * the stream, which maps malformed input to a precise status) and responses leave as bytes
 * that were assembled from parts encoded once (see src/xds/wire.ts).
 */
import type * as grpc from '@grpc/grpc-js';

const SERVICE = '/envoy.service.discovery.v3.AggregatedDiscoveryService';

const identity = (value: Buffer): Buffer => value;
const toBuffer = (value: Uint8Array): Buffer =>
  Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);

function bidiMethod(name: string): grpc.MethodDefinition<Uint8Array, Buffer> {
  return {
    path: `${SERVICE}/${name}`,
    requestStream: true,
    responseStream: true,
    requestSerialize: toBuffer,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  };
}

export const ADS_SERVICE = {
  StreamAggregatedResources: bidiMethod('StreamAggregatedResources'),
  DeltaAggregatedResources: bidiMethod('DeltaAggregatedResources'),
} satisfies grpc.ServiceDefinition;

export type AdsCall = grpc.ServerDuplexStream<Buffer, Buffer>;

/**
 * What a stream hears from its call. grpc-js's calls tell it through their events; our own
 * transport (h2-transport.ts) calls these directly, which spares every stream five listeners
 * and every message an emit.
 */
export interface CallSink {
  /** A request message. */
  callData(bytes: Buffer): void;
  /** The client half-closed its side ('end'). */
  callEnded(): void;
  /** The client reset the stream ('cancelled'). */
  callCancelled(): void;
  /** The call ended with an error status ('error'). */
  callFailed(): void;
  /** The stream is closed ('close'). */
  callClosed(): void;
}

/** The bytes before a gRPC message on the wire: a compressed flag and the length (4 bytes). */
export const FRAME_PREFIX = 5;

/** A call that feeds a sink directly: reading starts when it is attached. */
export interface SinkCall {
  attach(sink: CallSink): void;
  /**
   * Writes a message laid out `FRAME_PREFIX` bytes into `frame`, the prefix written in place
   * (the message is not copied again); false when the stream asks to wait for 'drain'.
   */
  writeFrame(frame: Buffer): boolean;
}

export function isSinkCall(call: AdsCall): call is AdsCall & SinkCall {
  return typeof (call as Partial<SinkCall>).attach === 'function';
}
