/**
 * The bytes of delta xDS: decoding `DeltaDiscoveryRequest`s and assembling
 * `DeltaDiscoveryResponse`s. Each resource's `Resource` entry (name, version, Any) is
 * encoded once per content and shared by every stream and response that carries it.
 */
import protobuf from 'protobufjs';
import { envoyRoot } from './protos.js';
import { internTypeUrl } from './type-urls.js';
import { decodeNodeMessage, type DecodedNode, type RawNode } from './wire.js';

export interface DeltaDiscoveryRequest {
  node: DecodedNode | undefined;
  type_url: string;
  resource_names_subscribe: string[];
  resource_names_unsubscribe: string[];
  initial_resource_versions: Record<string, string>;
  response_nonce: string;
  error_detail: { code: number; message: string } | undefined;
}

type RawDeltaRequest = Partial<Omit<DeltaDiscoveryRequest, 'node' | 'error_detail'>> & {
  node?: RawNode;
  error_detail?: { code?: number; message?: string };
};

let requestType: protobuf.Type | undefined;

export function decodeDeltaRequest(bytes: Uint8Array): DeltaDiscoveryRequest {
  requestType ??= envoyRoot().lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
  const raw = requestType.decode(bytes) as unknown as RawDeltaRequest;
  return {
    node: raw.node ? decodeNodeMessage(raw.node) : undefined,
    type_url: internTypeUrl(raw.type_url ?? ''),
    resource_names_subscribe: raw.resource_names_subscribe ?? [],
    resource_names_unsubscribe: raw.resource_names_unsubscribe ?? [],
    initial_resource_versions: raw.initial_resource_versions ?? {},
    response_nonce: raw.response_nonce ?? '',
    error_detail: raw.error_detail
      ? { code: raw.error_detail.code ?? 0, message: raw.error_detail.message ?? '' }
      : undefined,
  };
}

export interface DeltaResourceInput {
  name: string;
  version: string;
  /** A version the set pins: written whatever `versioned` says. */
  wireVersion?: string;
  typeUrl: string;
  value: Uint8Array;
}

const resourceCache = new WeakMap<DeltaResourceInput, Uint8Array>();
const versionedResourceCache = new WeakMap<DeltaResourceInput, Uint8Array>();

/**
 * The encoded `Resource` message (version = 1, resource = 2, name = 3), cached per object.
 * istiod leaves `version` empty (conformance: "Delta: subscriptions"); `versioned` writes
 * the resource's content version (the `deltaResourceVersions` option). A version the set pins
 * (`wireVersion`) is written either way.
 */
export function encodeDeltaResource(resource: DeltaResourceInput, versioned = false): Uint8Array {
  const cache = versioned ? versionedResourceCache : resourceCache;
  let bytes = cache.get(resource);
  if (!bytes) {
    const writer = protobuf.Writer.create();
    const version = resource.wireVersion ?? (versioned ? resource.version : undefined);
    if (version !== undefined) writer.uint32((1 << 3) | 2).string(version);
    writer.uint32((2 << 3) | 2).fork();
    writer.uint32((1 << 3) | 2).string(resource.typeUrl);
    writer.uint32((2 << 3) | 2).bytes(resource.value);
    writer.ldelim();
    writer.uint32((3 << 3) | 2).string(resource.name);
    bytes = writer.finish();
    cache.set(resource, bytes);
  }
  return bytes;
}

export interface DeltaResponseParts {
  systemVersion: string;
  typeUrl: string;
  resources: readonly DeltaResourceInput[];
  removed: readonly string[];
  nonce: string;
  controlPlaneId: string;
  /** Each resource's version written (see `encodeDeltaResource`); istiod writes none. */
  versioned?: boolean;
}

/**
 * A `DeltaDiscoveryResponse` without its nonce (field 5): fields may come in any order, so
 * `appendNonceField` (src/xds/wire.ts) completes it. Lets streams that are sent the same
 * resources share one encoding.
 */
export function encodeDeltaResponseBody(parts: Omit<DeltaResponseParts, 'nonce'>): Buffer {
  const writer = protobuf.Writer.create();
  writer.uint32((1 << 3) | 2).string(parts.systemVersion);
  for (const resource of parts.resources) {
    writer.uint32((2 << 3) | 2).bytes(encodeDeltaResource(resource, parts.versioned));
  }
  writer.uint32((4 << 3) | 2).string(parts.typeUrl);
  for (const name of parts.removed) writer.uint32((6 << 3) | 2).string(name);
  if (parts.controlPlaneId !== '') {
    writer.uint32((7 << 3) | 2).fork();
    writer.uint32((1 << 3) | 2).string(parts.controlPlaneId);
    writer.ldelim();
  }
  const bytes = writer.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
