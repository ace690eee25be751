/**
 * Encoding and decoding a message without the rest of protobufjs's per-type set-up. The first
 * `type.encode()` or `type.decode()` of a type has protobufjs generate (with `Function()`) five
 * functions for it — encode, decode, verify, fromObject and toObject — and the same again for
 * each message type it reaches; a start that encodes the lab's resources and decodes them for
 * the reference checks spends about half of that work on functions it never calls. Here a
 * type gets only the function asked for (protobufjs's own, from `protobuf.encoder` or
 * `protobuf.decoder`), and the message types its fields hold get theirs on first use, the same
 * way. A later `type.setup()` replaces them with identical ones: the bytes and messages are
 * the same either way.
 */
import protobuf from 'protobufjs';

type Codec = 'encode' | 'decode';
type Generated = (this: protobuf.Type, ...args: unknown[]) => unknown;

/** `protobuf.encoder(type)` returns code that is then given its scope: the function. */
type Factory = (scope: Record<string, unknown>) => Generated;

const GENERATORS: Record<Codec, (type: protobuf.Type) => Factory> = {
  encode: (type) => protobuf.encoder(type) as unknown as Factory,
  decode: (type) => protobuf.decoder(type) as unknown as Factory,
};

/** Stand-ins for a type's function until the type is first encoded or decoded. */
const ON_FIRST_USE: Record<Codec, Generated> = {
  encode(...args) {
    return generate(this, 'encode').apply(this, args);
  },
  decode(...args) {
    return generate(this, 'decode').apply(this, args);
  },
};

/** Whether `type` has its own `codec` (generated, or the stand-in), not protobufjs's set-up. */
function hasOwn(type: protobuf.Type, codec: Codec): boolean {
  return Object.prototype.hasOwnProperty.call(type, codec);
}

function generate(type: protobuf.Type, codec: Codec): Generated {
  const types = type.fieldsArray.map((field) => field.resolve().resolvedType);
  for (const held of types) {
    if (held instanceof protobuf.Type && !hasOwn(held, codec)) {
      Object.assign(held, { [codec]: ON_FIRST_USE[codec] });
    }
  }
  const fn = GENERATORS[codec](type)({
    Writer: protobuf.Writer,
    Reader: protobuf.Reader,
    types,
    util: protobuf.util,
  });
  Object.assign(type, { [codec]: fn });
  return fn;
}

function own(type: protobuf.Type, codec: Codec): Generated {
  if (!hasOwn(type, codec)) return generate(type, codec);
  return (type as unknown as Record<Codec, Generated>)[codec];
}

/** The wire bytes of `message` (a message of `type`, or a plain object with its fields). */
export function encodeOnly(type: protobuf.Type, message: object): Uint8Array {
  return (own(type, 'encode').call(type, message) as protobuf.Writer).finish();
}

/** The message of `type` in `bytes`; throws as `type.decode` does on malformed input. */
export function decodeOnly(type: protobuf.Type, bytes: Uint8Array): protobuf.Message {
  return own(type, 'decode').call(type, bytes) as protobuf.Message;
}
