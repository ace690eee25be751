/**
 * `istio.v1.auth.IstioCertificateService` from this project's `proto/istio-ca.proto` (loaded
 * with Envoy's types, src/xds/protos.ts): the service definition the server adds beside ADS,
 * and a client for tests and tools. Messages convert as @grpc/proto-loader would convert them
 * with these options: snake_case fields, int64 as a number, defaults filled in.
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcJs } from '../util/grpc-js.js';
import type protobuf from 'protobufjs';
import { envoyRoot } from '../xds/protos.js';

export const CREATE_CERTIFICATE_PATH = '/istio.v1.auth.IstioCertificateService/CreateCertificate';

/** The request as proto-loader hands it over (snake_case fields, int64 as a number). */
export interface IstioCertificateRequest {
  csr: string;
  validity_duration: number;
  metadata?: unknown;
}

export interface IstioCertificateResponse {
  cert_chain: string[];
}

export type CaClient = grpc.Client & {
  CreateCertificate(
    request: Partial<IstioCertificateRequest>,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (err: grpc.ServiceError | null, response?: IstioCertificateResponse) => void,
  ): grpc.ClientUnaryCall;
};

const TO_OBJECT: protobuf.IConversionOptions = {
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

function serialize(type: protobuf.Type) {
  return (value: object) => Buffer.from(type.encode(type.fromObject(value)).finish());
}

function deserialize<T>(type: protobuf.Type) {
  return (bytes: Buffer) => type.toObject(type.decode(bytes), TO_OBJECT) as T;
}

let definition: grpc.ServiceDefinition | undefined;

/** The service definition to add to a gRPC server. */
export function caServiceDefinition(): grpc.ServiceDefinition {
  if (definition) return definition;
  const root = envoyRoot();
  const request = root.lookupType('istio.v1.auth.IstioCertificateRequest');
  const response = root.lookupType('istio.v1.auth.IstioCertificateResponse');
  definition = {
    CreateCertificate: {
      path: CREATE_CERTIFICATE_PATH,
      requestStream: false,
      responseStream: false,
      requestSerialize: serialize(request),
      requestDeserialize: deserialize<IstioCertificateRequest>(request),
      responseSerialize: serialize(response),
      responseDeserialize: deserialize<IstioCertificateResponse>(response),
      originalName: 'createCertificate',
    },
  };
  return definition;
}

/** A client of the CA service at `address` (`host:port`). */
export function createCaClient(
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
): CaClient {
  const Client = grpcJs().makeGenericClientConstructor(
    caServiceDefinition(),
    'IstioCertificateService',
  );
  return new Client(address, credentials, options) as unknown as CaClient;
}
