/**
 * `istio.v1.auth.IstioCertificateService` from this project's `proto/istio-ca.proto`, loaded
 * with @grpc/proto-loader (once, on first use): the service definition the server adds beside
 * ADS, and a client constructor for tests and tools.
 */
import * as grpc from '@grpc/grpc-js';
import type * as ProtoLoader from '@grpc/proto-loader';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packageRoot } from '../util/package-root.js';

const require = createRequire(import.meta.url);

export const CA_PROTO_FILE = 'istio-ca.proto';
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

interface CaClientConstructor {
  new (
    address: string,
    credentials: grpc.ChannelCredentials,
    options?: grpc.ClientOptions,
  ): CaClient;
  service: grpc.ServiceDefinition;
}

let loaded: CaClientConstructor | undefined;

function load(): CaClientConstructor {
  if (loaded) return loaded;
  const xds = dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
  // Loaded here, on first use, rather than at import (it costs about 25 ms).
  const protoLoader = require('@grpc/proto-loader') as typeof ProtoLoader;
  const definition = protoLoader.loadSync(CA_PROTO_FILE, {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
    includeDirs: [join(packageRoot(), 'proto'), join(xds, 'deps', 'googleapis')],
  });
  const root = grpc.loadPackageDefinition(definition) as unknown as {
    istio: { v1: { auth: { IstioCertificateService: CaClientConstructor } } };
  };
  loaded = root.istio.v1.auth.IstioCertificateService;
  return loaded;
}

/** The service definition to add to a gRPC server. */
export function caServiceDefinition(): grpc.ServiceDefinition {
  return load().service;
}

/** A client of the CA service at `address` (`host:port`). */
export function createCaClient(
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
): CaClient {
  const Client = load();
  return new Client(address, credentials, options);
}
