/**
 * Finding the message a type URL names, and encoding, for the JSON converter. A type URL
 * is checked against the loaded protos: an unknown `@type` is a problem, never an empty Any.
 *
 * @internal
 */
import type protobuf from 'protobufjs';
import { type FromContext, fail, typeName } from './json-common.js';
import { encodeOnly } from './codecs.js';
import { fullNameOf } from './json-schema.js';
import { findMessageType } from './protos.js';
import { messageNameOf } from './type-urls.js';

/** The message type a type URL names, checked against the loaded protos. */
export function resolveTypeUrl(
  typeUrl: string,
  path: string,
  ctx: FromContext,
): protobuf.Type | undefined {
  const name = messageNameOf(typeUrl);
  if (name === undefined || name === '') {
    return fail(
      ctx,
      path,
      `invalid @type ${JSON.stringify(typeUrl)}: expected "type.googleapis.com/<message name>"`,
    );
  }
  const type = lookupMessage(ctx.root, name);
  if (type === undefined) {
    return fail(ctx, path, `unknown @type ${JSON.stringify(typeUrl)}: no such message is loaded`);
  }
  return type;
}

/** Exact full-name lookup (protobufjs would otherwise also match a nested type by short name). */
export function lookupMessage(root: protobuf.Root, name: string): protobuf.Type | undefined {
  const type = findMessageType(name, root);
  return type !== undefined && fullNameOf(type) === `.${name}` ? type : undefined;
}

/** Encodes a converted message; protobufjs errors (not expected) become problems. */
export function encodeMessage(
  type: protobuf.Type,
  message: protobuf.Message,
  path: string,
  ctx: FromContext,
): Uint8Array | undefined {
  try {
    return encodeOnly(type, message);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return fail(ctx, path, `cannot encode ${typeName(type)}: ${reason}`);
  }
}
