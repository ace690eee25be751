/**
 * A minimal ADS client for tests and examples, independent of the server's encoder: it
 * loads Envoy's protos with @grpc/proto-loader and lets grpc-js decode every response the
 * standard way. It plays the proxy's part by hand: each request is explicit.
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcJs } from '../util/grpc-js.js';
import type * as ProtoLoader from '@grpc/proto-loader';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { MockIstiodError } from '../util/errors.js';

const require = createRequire(import.meta.url);

export interface ClientRequest {
  version_info?: string;
  node?: { id: string; cluster?: string; metadata?: Record<string, unknown> };
  resource_names?: string[];
  type_url: string;
  response_nonce?: string;
  error_detail?: { code: number; message: string };
}

/** A delta request, as proto-loader takes it. */
export interface ClientDeltaRequest {
  node?: { id: string; cluster?: string; metadata?: Record<string, unknown> };
  type_url: string;
  resource_names_subscribe?: string[];
  resource_names_unsubscribe?: string[];
  initial_resource_versions?: Record<string, string>;
  response_nonce?: string;
  error_detail?: { code: number; message: string };
}

export interface ClientDeltaResponse {
  system_version_info: string;
  type_url: string;
  nonce: string;
  resources: { name: string; version: string; resource: { type_url: string; value: Buffer } }[];
  removed_resources: string[];
}

export interface ClientResponse {
  version_info: string;
  type_url: string;
  nonce: string;
  resources: { type_url: string; value: Buffer }[];
  control_plane?: { identifier: string };
}

type AdsStream = grpc.ClientDuplexStream<unknown, ClientResponse>;
type AdsClientConstructor = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ChannelOptions,
) => grpc.Client & {
  StreamAggregatedResources(metadata: grpc.Metadata): AdsStream;
  DeltaAggregatedResources(metadata: grpc.Metadata): AdsStream;
};

let constructorCache: AdsClientConstructor | undefined;

function adsClientConstructor(): AdsClientConstructor {
  if (constructorCache) return constructorCache;
  const deps = join(dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
  // Loaded here, on first use, rather than at import (it costs about 25 ms).
  const protoLoader = require('@grpc/proto-loader') as typeof ProtoLoader;
  const definition = protoLoader.loadSync('envoy/service/discovery/v3/ads.proto', {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
    json: true,
    includeDirs: ['envoy-api', 'googleapis', 'protoc-gen-validate', 'xds'].map((d) =>
      join(deps, d),
    ),
  });
  const loaded = grpcJs().loadPackageDefinition(definition) as unknown as {
    envoy: { service: { discovery: { v3: { AggregatedDiscoveryService: AdsClientConstructor } } } };
  };
  constructorCache = loaded.envoy.service.discovery.v3.AggregatedDiscoveryService;
  return constructorCache;
}

/**
 * Converts plain JSON metadata to the `Struct` shape proto-loader expects. protobufjs defines
 * the well-known types itself, with camelCase field names even under `keepCase`.
 */
function toStruct(value: Record<string, unknown>): unknown {
  const toValue = (v: unknown): unknown => {
    if (v === null) return { nullValue: 'NULL_VALUE' };
    if (typeof v === 'string') return { stringValue: v };
    if (typeof v === 'number') return { numberValue: v };
    if (typeof v === 'boolean') return { boolValue: v };
    if (Array.isArray(v)) return { listValue: { values: v.map(toValue) } };
    return { structValue: toStruct(v as Record<string, unknown>) };
  };
  return { fields: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toValue(v)])) };
}

export interface StreamEnd {
  code: number;
  details: string;
}

/** One ADS stream: send requests, await responses in order, await the stream's end. */
export class AdsTestStream {
  private readonly responses: ClientResponse[] = [];
  private readonly waiters: ((r: ClientResponse | StreamEnd) => void)[] = [];
  private ended: StreamEnd | undefined;
  readonly done: Promise<StreamEnd>;

  constructor(private readonly call: AdsStream) {
    call.on('data', (response: ClientResponse) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(response);
      else this.responses.push(response);
    });
    this.done = new Promise((resolve) => {
      call.on('error', (err: grpc.ServiceError) =>
        this.finish({ code: err.code, details: err.details }, resolve),
      );
      call.on('status', (s: grpc.StatusObject) =>
        this.finish({ code: s.code, details: s.details }, resolve),
      );
    });
  }

  private finish(end: StreamEnd, resolve: (e: StreamEnd) => void): void {
    if (this.ended) return;
    this.ended = end;
    resolve(end);
    for (const waiter of this.waiters.splice(0)) waiter(end);
  }

  send(request: ClientRequest | ClientDeltaRequest): void {
    const node = request.node && {
      ...request.node,
      metadata: toStruct(request.node.metadata ?? {}),
    };
    this.call.write({ ...request, node });
  }

  /**
   * The next response; a rejection if the stream ends first, or `WAIT_TIMEOUT` (as every wait)
   * if `timeoutMs` passes first.
   */
  next(timeoutMs = 5_000): Promise<ClientResponse> {
    const queued = this.responses.shift();
    if (queued) return Promise.resolve(queued);
    if (this.ended)
      return Promise.reject(new Error(`stream ended: ${this.ended.code} ${this.ended.details}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        const message = `timed out after ${timeoutMs} ms waiting for a response on this stream`;
        reject(new MockIstiodError('WAIT_TIMEOUT', message, { details: { lastValue: undefined } }));
      }, timeoutMs);
      const waiter = (r: ClientResponse | StreamEnd) => {
        clearTimeout(timer);
        if ('nonce' in r) resolve(r);
        else reject(new Error(`stream ended: ${r.code} ${r.details}`));
      };
      this.waiters.push(waiter);
    });
  }

  /** Stops reading from the network (HTTP/2 flow control then holds the server back). */
  pause(): void {
    this.call.pause();
  }

  resume(): void {
    this.call.resume();
  }

  /** The next response of a delta stream. */
  async nextDelta(timeoutMs = 5_000): Promise<ClientDeltaResponse> {
    return (await this.next(timeoutMs)) as unknown as ClientDeltaResponse;
  }

  /** Half-closes the stream and waits for the server to end it (no RST_STREAM). */
  async halfClose(): Promise<StreamEnd> {
    this.call.end();
    return this.done;
  }

  close(): void {
    this.call.end();
    this.call.cancel();
  }
}

export class AdsTestClient {
  private readonly client: InstanceType<AdsClientConstructor>;
  /** Open streams only: a stream leaves the set when it ends, so long runs do not pile up. */
  private readonly streams = new Set<AdsTestStream>();

  /**
   * `credentials`: plaintext by default; `grpc.credentials.createSsl(rootCert)` for a TLS mock.
   * `options`: grpc-js channel options, e.g. `grpc.ssl_target_name_override`.
   */
  constructor(
    address: string,
    credentials = grpcJs().credentials.createInsecure(),
    options: grpc.ChannelOptions = {},
  ) {
    const Client = adsClientConstructor();
    this.client = new Client(address, credentials, options);
  }

  /**
   * Opens a state-of-the-world stream. `metadata` goes with it, e.g. the pod's token
   * (`authorization: Bearer <token>`) a TLS mock with xDS authentication asks for.
   */
  sotw(metadata = new (grpcJs().Metadata)()): AdsTestStream {
    return this.track(new AdsTestStream(this.client.StreamAggregatedResources(metadata)));
  }

  /** Opens a delta stream, with `metadata` as for {@link sotw}. */
  delta(metadata = new (grpcJs().Metadata)()): AdsTestStream {
    return this.track(new AdsTestStream(this.client.DeltaAggregatedResources(metadata)));
  }

  private track(stream: AdsTestStream): AdsTestStream {
    this.streams.add(stream);
    void stream.done.then(() => this.streams.delete(stream));
    return stream;
  }

  close(): void {
    for (const stream of this.streams) stream.close();
    this.client.close();
  }
}
