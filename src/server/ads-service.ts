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
