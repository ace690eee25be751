/**
 * What istiod answers for an EDS or RDS name it has no resource for: the type descriptor's
 * empty resource (`emptyResource` in src/core/types/: an empty ClusterLoadAssignment, or an
 * empty RouteConfiguration that does not validate clusters, as its sidecar route builder
 * makes). A name asked for is never answered with silence nor, in delta, with a removal
 * (conformance: "Delta: removals").
 *
 * A request may name 100,000 missing resources at once (the subscription limit), and each is
 * answered with one of these: packing each from its JSON (type lookup, JSON walk, protobuf
 * encode) took about 5 µs a name, half a second per request with the event loop blocked. The
 * empty resources of a type differ only in their name, field 1, which protobuf writes first;
 * so each type's is packed from JSON once, and every name's is that name's field followed by
 * the rest of those bytes (checked against a full pack when the template is made).
 */
import type { PackedResource } from '../xds/wire.js';
import { packAnyJson } from '../xds/json.js';
import { fieldSize, writeTag } from '../xds/field-bytes.js';
import { utf8Length, writeUtf8 } from '../xds/utf8.js';
import { emptyResourceOf } from './types/registry.js';

/** The content version of every empty resource: the same empty answer is not sent twice. */
export const EMPTY_RESOURCE_VERSION = 'empty';

export interface EmptyResource extends PackedResource {
  name: string;
  version: string;
}

/** A type's empty resource without its name field; null when it cannot be made so. */
interface Template {
  typeUrl: string;
  rest: Buffer;
}
const templates = new Map<string, Template | null>();

/**
 * The empty resource of `typeUrl` for `name`, or undefined for a type that sends none.
 * Made anew each time: from the template that costs about what looking it up in a cache
 * would, and no encoding is cached by the object's identity.
 */
export function emptyResource(typeUrl: string, name: string): EmptyResource | undefined {
  const packed = packEmpty(typeUrl, name);
  if (!packed) return undefined;
  return { name, typeUrl: packed.typeUrl, value: packed.value, version: EMPTY_RESOURCE_VERSION };
}

function packEmpty(typeUrl: string, name: string): PackedResource | undefined {
  let template = templates.get(typeUrl);
  if (template === undefined) {
    template = makeTemplate(typeUrl);
    templates.set(typeUrl, template);
  }
  // An empty name is left to the full pack: whether field 1 is written then is its choice.
  if (template && name !== '')
    return { typeUrl: template.typeUrl, value: withName(name, template) };
  return packFromJson(typeUrl, name);
}

function packFromJson(typeUrl: string, name: string): PackedResource | undefined {
  const json = emptyResourceOf(typeUrl, name);
  if (!json) return undefined;
  const packed = packAnyJson(json);
  // The JSON is the type descriptor's own: failing to pack it is a bug here, not bad input.
  if (!packed.ok) throw new Error(`cannot pack the empty ${typeUrl} "${name}"`);
  return { typeUrl: packed.value.typeUrl, value: packed.value.bytes };
}

/**
 * The bytes after field 1 of a packed empty resource, when two names' packs are each that
 * name's field 1 followed by the same bytes (so the name is field 1, written first, and
 * nothing else depends on it); null otherwise, and every name is then packed from JSON.
 */
function makeTemplate(typeUrl: string): Template | null {
  const a = packFromJson(typeUrl, 'a');
  const b = packFromJson(typeUrl, 'bb.c');
  if (!a || !b || a.typeUrl !== b.typeUrl) return null;
  const prefixA = nameField('a');
  const prefixB = nameField('bb.c');
  const bytesA = Buffer.from(a.value);
  const bytesB = Buffer.from(b.value);
  if (!bytesA.subarray(0, prefixA.length).equals(prefixA)) return null;
  if (!bytesB.subarray(0, prefixB.length).equals(prefixB)) return null;
  const rest = bytesA.subarray(prefixA.length);
  if (!rest.equals(bytesB.subarray(prefixB.length))) return null;
  return { typeUrl: a.typeUrl, rest: Buffer.from(rest) };
}

/** Field 1 (length-delimited) holding `name`. */
function nameField(name: string): Buffer {
  return withName(name, { typeUrl: '', rest: Buffer.alloc(0) });
}

function withName(name: string, template: Template): Buffer {
  const length = utf8Length(name);
  const bytes = Buffer.allocUnsafe(fieldSize(length) + template.rest.length);
  const offset = writeUtf8(bytes, writeTag(bytes, 0, 1, length), name, length);
  template.rest.copy(bytes, offset);
  return bytes;
}
