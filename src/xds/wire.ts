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
import { asBuffer, readNode, readStatus, WireReader, type WireNode } from './wire-read.js';
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
  resource_names: readonly string[];
  type_url: string;
  response_nonce: string;
  error_detail: { code: number; message: string } | undefined;
}

/** The names of a request that names none: one list, frozen, shared by all of them. */
export const NO_NAMES: readonly string[] = Object.freeze([]);

/** The node's fields the server uses; `metadata` is the `Struct` as plain JSON. */
export type DecodedNode = WireNode;

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

/**
 * Decodes a request from its bytes (xds/wire-read.ts); throws an Error saying where the bytes
 * are malformed (the caller maps it).
 */
export function decodeDiscoveryRequest(bytes: Uint8Array): DiscoveryRequest {
  const r = new WireReader(asBuffer(bytes));
  const end = r.buf.length;
  const request: DiscoveryRequest = {
    version_info: '',
    node: undefined,
    resource_names: NO_NAMES,
    type_url: '',
    response_nonce: '',
    error_detail: undefined,
  };
  // Made for the first name: most requests (ACKs, wildcards) name none.
  let names: string[] | undefined;
  while (r.pos < end) {
    const key = r.uint32();
    switch (key) {
      case (1 << 3) | 2:
        request.version_info = r.string(end);
        break;
      case (2 << 3) | 2:
        request.node = readNode(r, r.end(end));
        break;
      case (3 << 3) | 2:
        (names ??= request.resource_names = []).push(r.string(end));
        break;
      case (4 << 3) | 2:
        request.type_url = internTypeUrl(r.string(end));
        break;
      case (5 << 3) | 2:
        request.response_nonce = r.uniqueString(end);
        break;
      case (6 << 3) | 2:
        request.error_detail = readStatus(r, r.end(end));
        break;
      default:
        r.skip(key & 7, end);
    }
  }
  return request;
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
 * one of these per stream, so it should copy the shared body once and do nothing else). With
 * `room`, the response starts that many bytes in, the bytes before it left for the writer
 * (a gRPC frame's prefix, see `FRAME_PREFIX`); the whole buffer is returned.
 */
export function appendNonceField(body: Buffer, nonce: string, room = 0): Buffer {
  const nonceLength = Buffer.byteLength(nonce);
  const lengthBytes = varintSize(nonceLength);
  const message = Buffer.allocUnsafe(room + body.length + 1 + lengthBytes + nonceLength);
  message.set(body, room);
  const offset = writeTag(message, room + body.length, 5, nonceLength);
  // The nonces the server makes (a version and a UUID) are ASCII, a byte a character: Latin-1
  // writes those bytes as they are, with no UTF-8 encoder. A nonce is a string built by
  // concatenation, and reading it a character at a time cost more than this.
  if (nonceLength === nonce.length) message.write(nonce, offset, nonceLength, 'latin1');
  else message.write(nonce, offset, nonceLength);
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
