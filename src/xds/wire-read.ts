/**
 * Reading the requests a control plane receives, straight from their protobuf bytes: the
 * fields the server uses, and the node's metadata `Struct` made plain JSON as it is read.
 * protobufjs's decoder builds an object per message (the node, its Struct, a Value per
 * metadata entry, their oneof getters), which the server then walked into JSON: the largest
 * part of a connection's own cost (docs/BENCHMARKS.md). Here nothing is made but what is kept.
 *
 * The protobuf encoding: each field is a varint key (`field << 3 | wire type`) and a value:
 * a varint (0), 8 bytes (1), a length and that many bytes (2) or 4 bytes (5). Unknown fields,
 * and known fields of an unexpected wire type, are skipped. A field read twice keeps its last
 * value, a message field its last message, as protobufjs does. Malformed bytes throw an Error
 * saying where (the stream answers `INVALID_ARGUMENT malformed request: …`).
 */

/** Wire types. */
const VARINT = 0;
const FIXED64 = 1;
const LENGTH = 2;
const FIXED32 = 5;

/**
 * How deep a metadata `Struct` may nest: past it the request is malformed, rather than a
 * stack overflow. protobuf-go (istiod) allows 10,000 levels, more than a JavaScript stack
 * holds; real metadata nests a few levels (`LABELS`, `PROXY_CONFIG`).
 */
export const MAX_STRUCT_DEPTH = 1_000;

/**
 * The strings read lately, by their bytes. Most of a request's strings were read before: type
 * URLs, versions, metadata keys and the values every proxy of a mesh shares (`Kubernetes`,
 * the Istio version, the namespace). Found by a hash of their bytes, they cost neither a call
 * into Buffer's decoder nor a new string, and every stream keeps the same copy. A slot holds
 * the last string that hashed to it: 1,024 slots of at most 64 bytes, whatever clients send.
 */
const CACHED_BYTES = 64;
const SLOTS = 1024;
/** Each slot's bytes, at `slot * CACHED_BYTES`: copied in, never a new array per string. */
const slotBytes = Buffer.alloc(SLOTS * CACHED_BYTES);
const slotLength = new Int32Array(SLOTS).fill(-1);
const slotText: string[] = new Array<string>(SLOTS).fill('');

function cachedText(buf: Buffer, start: number, end: number): string {
  const length = end - start;
  // FNV-1a over the bytes.
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (buf[i] as number), 0x01000193);
  const slot = hash & (SLOTS - 1);
  const base = slot * CACHED_BYTES;
  if (slotLength[slot] === length) {
    let i = 0;
    while (i < length && slotBytes[base + i] === buf[start + i]) i++;
    if (i === length) return slotText[slot] as string;
  }
  const text = buf.toString('utf8', start, end);
  for (let i = 0; i < length; i++) slotBytes[base + i] = buf[start + i] as number;
  slotLength[slot] = length;
  slotText[slot] = text;
  return text;
}

/** A cursor over one buffer; `end` bounds the message being read. */
export class WireReader {
  pos = 0;

  constructor(readonly buf: Buffer) {}

  /** An unsigned varint of up to 32 bits (a key or a length); longer ones are cut to 32. */
  uint32(): number {
    const { buf } = this;
    let pos = this.pos;
    let byte = buf[pos++];
    if (byte === undefined) throw this.outOfRange(1);
    let value = byte & 0x7f;
    if (byte < 0x80) {
      this.pos = pos;
      return value;
    }
    for (let shift = 7; shift < 70; shift += 7) {
      byte = buf[pos++];
      if (byte === undefined) throw this.outOfRange(pos - this.pos);
      if (shift < 32) value |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        this.pos = pos;
        return value >>> 0;
      }
    }
    throw new Error(`invalid varint encoding at offset ${this.pos}`);
  }

  /** An `int32` field: a varint whose low 32 bits are the signed value. */
  int32(): number {
    return this.uint32() | 0;
  }

  /** A `bool` field. */
  bool(): boolean {
    return this.uint32() !== 0;
  }

  /** A `double` field. */
  double(): number {
    if (this.pos + 8 > this.buf.length) throw this.outOfRange(8);
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** A length-delimited field's end (its length read and checked); `pos` is at its start. */
  end(limit: number): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > limit) throw this.outOfRange(length);
    return end;
  }

  /** A `string` field; a short one from the cache of those already read (below). */
  string(limit: number): string {
    const end = this.end(limit);
    const start = this.pos;
    this.pos = end;
    if (start === end) return '';
    return end - start <= CACHED_BYTES
      ? cachedText(this.buf, start, end)
      : this.buf.toString('utf8', start, end);
  }

  /**
   * A `string` field read without the cache: for values no other request repeats (a nonce, a
   * node id), which would only push shared strings out of their slots.
   */
  uniqueString(limit: number): string {
    const end = this.end(limit);
    const start = this.pos;
    this.pos = end;
    return start === end ? '' : this.buf.toString('utf8', start, end);
  }

  /** Passes over a field of this wire type. */
  skip(wireType: number, limit: number): void {
    switch (wireType) {
      case VARINT:
        this.uint32();
        return;
      case FIXED64:
        this.advance(8, limit);
        return;
      case LENGTH:
        this.pos = this.end(limit);
        return;
      case FIXED32:
        this.advance(4, limit);
        return;
      default:
        throw new Error(`invalid wire type ${wireType} at offset ${this.pos}`);
    }
  }

  private advance(bytes: number, limit: number): void {
    if (this.pos + bytes > limit) throw this.outOfRange(bytes);
    this.pos += bytes;
  }

  private outOfRange(length: number): Error {
    return new Error(`index out of range: ${this.pos} + ${length} > ${this.buf.length}`);
  }
}

/** The same bytes as a Buffer, without a copy (grpc-js hands Buffers already). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** `google.rpc.Status` as the server keeps it: the code and the message. */
export function readStatus(r: WireReader, end: number): { code: number; message: string } {
  let code = 0;
  let message = '';
  while (r.pos < end) {
    const key = r.uint32();
    if (key === ((1 << 3) | VARINT)) code = r.int32();
    else if (key === ((2 << 3) | LENGTH)) message = r.string(end);
    else r.skip(key & 7, end);
  }
  return { code, message };
}

/** `envoy.config.core.v3.Node`'s fields the server reads, metadata made JSON. */
export interface WireNode {
  id: string;
  cluster: string;
  metadata: Record<string, unknown>;
  user_agent_name: string;
  user_agent_version: string;
}

/**
 * Reads a `Node`. Its short strings come from the cache above, so the values every proxy of a
 * mesh shares are kept once, however many streams hold them.
 */
export function readNode(r: WireReader, end: number): WireNode {
  const node: WireNode = {
    id: '',
    cluster: '',
    metadata: {},
    user_agent_name: '',
    user_agent_version: '',
  };
  while (r.pos < end) {
    const key = r.uint32();
    switch (key) {
      case (1 << 3) | LENGTH:
        node.id = r.uniqueString(end);
        break;
      case (2 << 3) | LENGTH:
        node.cluster = r.string(end);
        break;
      case (3 << 3) | LENGTH:
        node.metadata = readStruct(r, r.end(end), 0);
        break;
      case (6 << 3) | LENGTH:
        node.user_agent_name = r.string(end);
        break;
      case (7 << 3) | LENGTH:
        node.user_agent_version = r.string(end);
        break;
      default:
        r.skip(key & 7, end);
    }
  }
  return node;
}

/**
 * The entries of the structs being read, on one stack shared by every `readStruct`: a struct's
 * entries lie above those of the structs it is nested in, and are taken off once it is made.
 * A request allocates no arrays of its own for them.
 */
const entryKeys: string[] = [];
const entryValues: unknown[] = [];
/** The entries' places in key order (`sortedObject`), reused. */
const entryOrder: number[] = [];

/** How many entries the stack holds: none between requests, even refused ones (tests). */
export const heldStructEntries = (): number => entryKeys.length;

/**
 * A `google.protobuf.Struct` as plain JSON, its keys in sorted order, as Go's encoding/json
 * writes a map (istiod's debug output). A struct is a map, and clients send it in any order
 * (Go's proto.Marshal in a random one): an object built in the order received would get
 * hidden classes of its own in V8, kept as long as the stream.
 */
function readStruct(r: WireReader, end: number, depth: number): Record<string, unknown> {
  if (depth > MAX_STRUCT_DEPTH) {
    throw new Error(`a Struct nested more than ${MAX_STRUCT_DEPTH} deep at offset ${r.pos}`);
  }
  const base = entryKeys.length;
  try {
    readEntries(r, end, depth);
    return sortedObject(base);
  } finally {
    // Malformed bytes throw halfway: what was pushed goes too.
    entryKeys.length = base;
    entryValues.length = base;
  }
}

/** Pushes a struct's entries (a key and its value each) onto the shared stack. */
function readEntries(r: WireReader, end: number, depth: number): void {
  while (r.pos < end) {
    const key = r.uint32();
    if (key !== ((1 << 3) | LENGTH)) {
      r.skip(key & 7, end);
      continue;
    }
    // A map entry: its key (1) and its Value (2), either missing, in any order.
    const entryEnd = r.end(end);
    let name = '';
    let value: unknown = null;
    while (r.pos < entryEnd) {
      const field = r.uint32();
      if (field === ((1 << 3) | LENGTH)) name = r.string(entryEnd);
      else if (field === ((2 << 3) | LENGTH)) value = readValue(r, r.end(entryEnd), depth);
      else r.skip(field & 7, entryEnd);
    }
    entryKeys.push(name);
    entryValues.push(value);
  }
}

/**
 * The object of the entries on the stack from `base` up, keys in sorted order; a repeated key
 * keeps its last value. A key `__proto__` is dropped: set on a plain object it would replace
 * the object's prototype.
 */
function sortedObject(base: number): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  const n = entryKeys.length - base;
  if (n === 0) return json;
  // The entries' places in key order, by a stable sort, so that of a repeated key the last
  // comes last and its value is the one kept: an insertion sort for the few keys of real
  // metadata (most often sent sorted), the engine's sort for many (a client's to choose).
  const order = entryOrder;
  if (n <= 32) {
    // Filled from 0 up (`order[i]` is written first at step i), whatever it held before.
    for (let i = 0; i < n; i++) {
      const key = entryKeys[base + i] as string;
      let at = i;
      while (at > 0 && (entryKeys[base + (order[at - 1] as number)] as string) > key) {
        order[at] = order[at - 1] as number;
        at--;
      }
      order[at] = i;
    }
  } else {
    order.length = 0;
    for (let i = 0; i < n; i++) order.push(i);
    order.sort((a, b) => {
      const x = entryKeys[base + a] as string;
      const y = entryKeys[base + b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }
  for (let i = 0; i < n; i++) {
    const at = base + (order[i] as number);
    const key = entryKeys[at] as string;
    if (key !== '__proto__') json[key] = entryValues[at];
  }
  // A client's struct of many keys is not kept after it was read.
  if (n > 32) order.length = 0;
  return json;
}

/** A `google.protobuf.Value` as JSON: its last kind on the wire wins; none is null. */
function readValue(r: WireReader, end: number, depth: number): unknown {
  let value: unknown = null;
  while (r.pos < end) {
    const key = r.uint32();
    switch (key) {
      case (1 << 3) | VARINT: // null_value
        r.uint32();
        value = null;
        break;
      case (2 << 3) | FIXED64:
        value = r.double();
        break;
      case (3 << 3) | LENGTH:
        value = r.string(end);
        break;
      case (4 << 3) | VARINT:
        value = r.bool();
        break;
      case (5 << 3) | LENGTH:
        value = readStruct(r, r.end(end), depth + 1);
        break;
      case (6 << 3) | LENGTH:
        value = readList(r, r.end(end), depth + 1);
        break;
      default:
        r.skip(key & 7, end);
    }
  }
  return value;
}

/** A `google.protobuf.ListValue` as a JSON array. */
function readList(r: WireReader, end: number, depth: number) {
  if (depth > MAX_STRUCT_DEPTH) {
    throw new Error(`a Struct nested more than ${MAX_STRUCT_DEPTH} deep at offset ${r.pos}`);
  }
  const list: unknown[] = [];
  while (r.pos < end) {
    const key = r.uint32();
    if (key === ((1 << 3) | LENGTH)) list.push(readValue(r, r.end(end), depth));
    else r.skip(key & 7, end);
  }
  return list;
}
