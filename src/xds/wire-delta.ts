/**
 * The bytes of delta xDS: decoding `DeltaDiscoveryRequest`s and assembling
 * `DeltaDiscoveryResponse`s. A response is written straight into one buffer of its size:
 * one may carry 100,000 resources (one per name a request subscribed), and building it with
 * protobufjs's writer, or caching each `Resource` entry, cost several times more than copying
 * each resource's bytes (which an entry mostly is). Responses several streams are owed alike
 * are shared whole (src/server/delta-stream.ts).
 */
import protobuf from 'protobufjs';
import { envoyRoot } from './protos.js';
import { internTypeUrl } from './type-urls.js';
import { fieldSize, writeTag } from './field-bytes.js';
import { utf8Length, writeUtf8 } from './utf8.js';
import { NO_NAMES, type DecodedNode } from './wire.js';
import { asBuffer, readNode, readStatus, WireReader } from './wire-read.js';

export interface DeltaDiscoveryRequest {
  node: DecodedNode | undefined;
  type_url: string;
  resource_names_subscribe: readonly string[];
  resource_names_unsubscribe: readonly string[];
  initial_resource_versions: Readonly<Record<string, string>>;
  response_nonce: string;
  error_detail: { code: number; message: string } | undefined;
}

/** The versions of a request that carries none: frozen, shared by all of them. */
const NO_VERSIONS: Readonly<Record<string, string>> = Object.freeze({});

/** Decodes a delta request from its bytes (xds/wire-read.ts); throws on malformed bytes. */
export function decodeDeltaRequest(bytes: Uint8Array): DeltaDiscoveryRequest {
  const r = new WireReader(asBuffer(bytes));
  const end = r.buf.length;
  const request: DeltaDiscoveryRequest = {
    node: undefined,
    type_url: '',
    resource_names_subscribe: NO_NAMES,
    resource_names_unsubscribe: NO_NAMES,
    initial_resource_versions: NO_VERSIONS,
    response_nonce: '',
    error_detail: undefined,
  };
  // Each made when its first entry comes: most requests (ACKs) carry none.
  let subscribe: string[] | undefined;
  let unsubscribe: string[] | undefined;
  let versions: Record<string, string> | undefined;
  while (r.pos < end) {
    const key = r.uint32();
    switch (key) {
      case (1 << 3) | 2:
        request.node = readNode(r, r.end(end));
        break;
      case (2 << 3) | 2:
        request.type_url = internTypeUrl(r.string(end));
        break;
      case (3 << 3) | 2:
        (subscribe ??= request.resource_names_subscribe = []).push(r.string(end));
        break;
      case (4 << 3) | 2:
        (unsubscribe ??= request.resource_names_unsubscribe = []).push(r.string(end));
        break;
      case (5 << 3) | 2:
        readVersionEntry(r, r.end(end), (versions ??= request.initial_resource_versions = {}));
        break;
      case (6 << 3) | 2:
        request.response_nonce = r.uniqueString(end);
        break;
      case (7 << 3) | 2:
        request.error_detail = readStatus(r, r.end(end));
        break;
      default:
        r.skip(key & 7, end);
    }
  }
  return request;
}

/** One entry of `initial_resource_versions` (a map of name → version; the last one wins). */
function readVersionEntry(r: WireReader, end: number, into: Record<string, string>): void {
  let name = '';
  let version = '';
  while (r.pos < end) {
    const key = r.uint32();
    if (key === ((1 << 3) | 2)) name = r.string(end);
    else if (key === ((2 << 3) | 2)) version = r.string(end);
    else r.skip(key & 7, end);
  }
  // A name from the client may be `__proto__`: defined, never set, so it stays an entry.
  Object.defineProperty(into, name, {
    value: version,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

export interface DeltaResourceInput {
  name: string;
  version: string;
  /** A version the set pins: written whatever `versioned` says. */
  wireVersion?: string;
  typeUrl: string;
  value: Uint8Array;
}

/** The byte lengths of one `Resource` message's parts (see `writeResource`). */
interface ResourceSizes {
  /** -1: no version field. */
  version: number;
  /** The `Any`'s type URL field, whole. */
  typeUrl: Buffer;
  name: number;
  /** The `Any` (field 2). */
  any: number;
  /** The whole `Resource`. */
  total: number;
}

/** The version a `Resource` carries, if any (see `encodeDeltaResponseBody`). */
function versionOf(resource: DeltaResourceInput, versioned: boolean): string | undefined {
  return resource.wireVersion ?? (versioned ? resource.version : undefined);
}

/** The last type URL field written: a response's resources all have the same. */
let lastTypeUrl = { text: '', field: Buffer.from([(1 << 3) | 2, 0]) };

/** Field 1 of an `Any`: its type URL, tag and length included. */
function typeUrlField(typeUrl: string): Buffer {
  if (lastTypeUrl.text !== typeUrl) {
    const length = utf8Length(typeUrl);
    const field = Buffer.allocUnsafe(fieldSize(length));
    writeString(field, 0, 1, typeUrl, length);
    lastTypeUrl = { text: typeUrl, field };
  }
  return lastTypeUrl.field;
}

function sizesOf(resource: DeltaResourceInput, versioned: boolean): ResourceSizes {
  const version = versionOf(resource, versioned);
  const versionLength = version === undefined ? -1 : utf8Length(version);
  const typeUrl = typeUrlField(resource.typeUrl);
  const any = typeUrl.length + fieldSize(resource.value.length);
  const name = utf8Length(resource.name);
  const total =
    (versionLength < 0 ? 0 : fieldSize(versionLength)) + fieldSize(any) + fieldSize(name);
  return { version: versionLength, typeUrl, name, any, total };
}

/** Writes the `Resource` message (version = 1, resource = 2, name = 3) at `at`. */
function writeResource(
  bytes: Buffer,
  at: number,
  resource: DeltaResourceInput,
  sizes: ResourceSizes,
  versioned: boolean,
): number {
  const version = versionOf(resource, versioned);
  if (version !== undefined) at = writeString(bytes, at, 1, version, sizes.version);
  at = writeTag(bytes, at, 2, sizes.any);
  bytes.set(sizes.typeUrl, at);
  at += sizes.typeUrl.length;
  at = writeTag(bytes, at, 2, resource.value.length);
  bytes.set(resource.value, at);
  at += resource.value.length;
  return writeString(bytes, at, 3, resource.name, sizes.name);
}

function writeString(bytes: Buffer, at: number, field: number, text: string, length: number) {
  return writeUtf8(bytes, writeTag(bytes, at, field, length), text, length);
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
  const versioned = parts.versioned === true;
  const sizes = parts.resources.map((r) => sizesOf(r, versioned));
  const removed = parts.removed.map((name) => utf8Length(name));
  const versionLength = utf8Length(parts.systemVersion);
  const typeUrlLength = utf8Length(parts.typeUrl);
  const idLength = utf8Length(parts.controlPlaneId);
  const identifier = fieldSize(idLength);
  let size = fieldSize(versionLength) + fieldSize(typeUrlLength);
  if (parts.controlPlaneId !== '') size += fieldSize(identifier);
  for (const s of sizes) size += fieldSize(s.total);
  for (const length of removed) size += fieldSize(length);
  const bytes = Buffer.allocUnsafe(size);
  let at = writeString(bytes, 0, 1, parts.systemVersion, versionLength);
  parts.resources.forEach((resource, i) => {
    const s = sizes[i] as ResourceSizes;
    at = writeResource(bytes, writeTag(bytes, at, 2, s.total), resource, s, versioned);
  });
  at = writeString(bytes, at, 4, parts.typeUrl, typeUrlLength);
  parts.removed.forEach((name, i) => {
    at = writeString(bytes, at, 6, name, removed[i] as number);
  });
  if (parts.controlPlaneId !== '') {
    at = writeTag(bytes, at, 7, identifier);
    writeString(bytes, at, 1, parts.controlPlaneId, idLength);
  }
  return bytes;
}

/** A delta response as a relay reads it: its parts, each resource's value still encoded. */
export interface DecodedDeltaResponse {
  systemVersion: string;
  typeUrl: string;
  nonce: string;
  resources: DeltaResourceInput[];
  removed: string[];
}

let responseType: protobuf.Type | undefined;

export function decodeDeltaResponse(bytes: Uint8Array): DecodedDeltaResponse {
  responseType ??= envoyRoot().lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse');
  const raw = responseType.decode(bytes) as unknown as {
    system_version_info?: string;
    type_url?: string;
    nonce?: string;
    removed_resources?: string[];
    resources?: {
      name?: string;
      version?: string;
      resource?: { type_url?: string; value?: Uint8Array };
    }[];
  };
  return {
    systemVersion: raw.system_version_info ?? '',
    typeUrl: raw.type_url ?? '',
    nonce: raw.nonce ?? '',
    removed: raw.removed_resources ?? [],
    resources: (raw.resources ?? []).map((r) => ({
      name: r.name ?? '',
      version: r.version ?? '',
      typeUrl: r.resource?.type_url ?? '',
      value: r.resource?.value ?? new Uint8Array(),
    })),
  };
}

let requestType: protobuf.Type | undefined;

/** A delta request, encoded (what a relay writes when it rewrites one). */
export function encodeDeltaRequest(request: Partial<DeltaDiscoveryRequest>): Uint8Array {
  requestType ??= envoyRoot().lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
  // Without the node: a relay's rewritten request is never a stream's first.
  const rest = { ...request, node: undefined };
  return requestType.encode(requestType.create(rest)).finish();
}
