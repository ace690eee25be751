/**
 * The bytes on the ADS wire: decoding `DiscoveryRequest`s and assembling
 * `DiscoveryResponse`s from parts encoded once.
 *
 * A response is the concatenation of protobuf fields, so the part every stream shares
 * (version, resources, type URL, control plane) is encoded once per version and only the
 * nonce field is appended per response. Protobuf decoders accept fields in any order.
 */
import protobuf from 'protobufjs';
import type structPb from 'google-protobuf/google/protobuf/struct_pb.js';
import { envoyRoot } from './protos.js';
import { varintSize, writeTag } from './field-bytes.js';
import { internTypeUrl } from './type-urls.js';
import { boundedInterner } from '../util/intern.js';
import { lazyRequire } from '../util/lazy-require.js';

/** google-protobuf's Struct, for the test-side encoder only: loaded on first use. */
const structPbPackage = lazyRequire<typeof structPb>(
  import.meta.url,
  'google-protobuf/google/protobuf/struct_pb.js',
);

/** The fields of a `DiscoveryRequest` the server uses, decoded. */
export interface DiscoveryRequest {
  version_info: string;
  node: DecodedNode | undefined;
  resource_names: string[];
  type_url: string;
  response_nonce: string;
  error_detail: { code: number; message: string } | undefined;
}

export interface DecodedNode {
  id: string;
  cluster: string;
  /** `node.metadata` as plain JSON (a protobuf `Struct`). */
  metadata: Record<string, unknown>;
  user_agent_name: string;
  user_agent_version: string;
}

interface Types {
  request: protobuf.Type;
  response: protobuf.Type;
  struct: protobuf.Type;
}

let types: Types | undefined;

function wireTypes(): Types {
  if (!types) {
    const root = envoyRoot();
    types = {
      request: root.lookupType('envoy.service.discovery.v3.DiscoveryRequest'),
      response: root.lookupType('envoy.service.discovery.v3.DiscoveryResponse'),
      struct: root.lookupType('google.protobuf.Struct'),
    };
  }
  return types;
}

/** A `Node` as protobufjs decodes it. */
export interface RawNode {
  id?: string;
  cluster?: string;
  metadata?: RawStruct;
  user_agent_name?: string;
  user_agent_version?: string;
}

type RawRequest = {
  version_info?: string;
  node?: RawNode;
  resource_names?: string[];
  type_url?: string;
  response_nonce?: string;
  error_detail?: { code?: number; message?: string };
};

/** Decodes a request; throws protobufjs's error on malformed bytes (the caller maps it). */
export function decodeDiscoveryRequest(bytes: Uint8Array): DiscoveryRequest {
  const { request } = wireTypes();
  const raw = request.decode(bytes) as unknown as RawRequest;
  return {
    version_info: raw.version_info ?? '',
    node: raw.node ? decodeNodeMessage(raw.node) : undefined,
    resource_names: raw.resource_names ?? [],
    type_url: internTypeUrl(raw.type_url ?? ''),
    response_nonce: raw.response_nonce ?? '',
    error_detail: raw.error_detail
      ? { code: raw.error_detail.code ?? 0, message: raw.error_detail.message ?? '' }
      : undefined,
  };
}

export function decodeNodeMessage(node: RawNode): DecodedNode {
  return {
    id: node.id ?? '',
    cluster: shareString(node.cluster ?? ''),
    metadata: node.metadata ? structToJson(node.metadata) : {},
    user_agent_name: node.user_agent_name ?? '',
    user_agent_version: node.user_agent_version ?? '',
  };
}

/** A `google.protobuf.Struct` as protobufjs decodes it (camelCase: protobufjs's own definition). */
export interface RawStruct {
  fields?: Record<string, RawValue>;
}

interface RawValue {
  /** The `kind` oneof: which of the fields below is set. */
  kind?: string;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: RawStruct;
  listValue?: { values?: RawValue[] };
}

/**
 * `Struct` → plain JSON, read straight from protobufjs's decoded message: the same result as
 * google-protobuf's `Struct.toJavaScript()` (a unit test holds the two together), without
 * encoding the struct again to hand it over. Every new stream's node goes through here, and
 * the round trip was the largest cost of a connect ramp (docs/BENCHMARKS.md).
 */
function structToJson(struct: RawStruct): Record<string, unknown> {
  const fields = struct.fields ?? {};
  const json: Record<string, unknown> = {};
  // In sorted order, as Go's encoding/json writes a map (istiod's debug output). A struct is
  // a map, and clients send it in any order (Go's proto.Marshal in a random one): an object
  // built in the order received gets hidden classes of its own in V8, about 700 bytes for a
  // sidecar's metadata, kept as long as the stream (docs/BENCHMARKS.md).
  for (const key of Object.keys(fields).sort()) json[key] = valueToJson(fields[key] as RawValue);
  return json;
}

/**
 * The one copy of a short metadata value (`Kubernetes`, the Istio version, the mesh id, the
 * namespace…; at most 1,024 of up to 64 characters): most are the same for every proxy of a
 * mesh, and every stream decodes its own copy, 24–32 bytes each, kept with its node.
 */
const shareString = boundedInterner(1024, 64);

function valueToJson(value: RawValue): unknown {
  switch (value.kind) {
    case 'numberValue':
      return value.numberValue;
    case 'stringValue':
      return shareString(value.stringValue ?? '');
    case 'boolValue':
      return value.boolValue;
    case 'structValue':
      return structToJson(value.structValue ?? {});
    case 'listValue':
      return (value.listValue?.values ?? []).map(valueToJson);
    default:
      return null;
  }
}

/** Encodes a request (used by tests and the load generator playing Envoy's part). */
export function encodeDiscoveryRequest(request: Partial<DiscoveryRequest>): Uint8Array {
  const { request: type, struct } = wireTypes();
  const node = request.node
    ? {
        ...request.node,
        metadata: struct.decode(
          structPbPackage()
            .Struct.fromJavaScript(
              request.node.metadata as Record<string, structPb.JavaScriptValue>,
            )
            .serializeBinary(),
        ),
      }
    : undefined;
  return type.encode(type.create({ ...request, node })).finish();
}

/** One resource, already packed: the `Any` fields of a response entry. */
export interface PackedResource {
  typeUrl: string;
  /** The encoded resource message (the `Any`'s `value`). */
  value: Uint8Array;
}

/** Counts of encoding work done, for tests and metrics: bodies should be encoded once per version. */
export const encodeStats = { responseBodies: 0 };

/**
 * Encodes the shared part of a `DiscoveryResponse`: `version_info`, `resources`, `type_url`
 * and `control_plane`. {@link appendNonceField} makes it a complete response.
 */
export function encodeResponseBody(
  version: string,
  typeUrl: string,
  resources: readonly PackedResource[],
  controlPlaneId: string,
): Buffer {
  const { response } = wireTypes();
  const message = response.create({
    version_info: version,
    type_url: typeUrl,
    resources: resources.map((r) => ({ type_url: r.typeUrl, value: r.value })),
    // istiod leaves control_plane unset; it is written only when an id was chosen.
    ...(controlPlaneId === '' ? {} : { control_plane: { identifier: controlPlaneId } }),
  });
  const bytes = response.encode(message).finish();
  encodeStats.responseBodies += 1;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Field 5 (`nonce`) of `DiscoveryResponse`, as bytes. */
export function encodeNonceField(nonce: string): Buffer {
  const bytes = protobuf.Writer.create()
    .uint32((5 << 3) | 2)
    .string(nonce)
    .finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A complete response: `body` followed by the nonce field, in one allocation (a push writes
 * one of these per stream, so it should copy the shared body once and do nothing else).
 */
export function appendNonceField(body: Buffer, nonce: string): Buffer {
  const nonceLength = Buffer.byteLength(nonce);
  const lengthBytes = varintSize(nonceLength);
  const message = Buffer.allocUnsafe(body.length + 1 + lengthBytes + nonceLength);
  body.copy(message, 0);
  const offset = writeTag(message, body.length, 5, nonceLength);
  message.write(nonce, offset);
  return message;
}

/** Decodes a response (tests and the load generator) into plain fields. */
export function decodeDiscoveryResponse(bytes: Uint8Array): {
  version_info: string;
  type_url: string;
  nonce: string;
  resources: PackedResource[];
} {
  const raw = wireTypes().response.decode(bytes) as unknown as {
    version_info?: string;
    type_url?: string;
    nonce?: string;
    resources?: { type_url?: string; value?: Uint8Array }[];
  };
  return {
    version_info: raw.version_info ?? '',
    type_url: raw.type_url ?? '',
    nonce: raw.nonce ?? '',
    resources: (raw.resources ?? []).map((r) => ({
      typeUrl: r.type_url ?? '',
      value: r.value ?? new Uint8Array(),
    })),
  };
}
