/**
 * Canonical proto3 JSON (https://protobuf.dev/programming-guides/json/) ↔ protobufjs
 * messages, guided by reflection over the loaded protos.
 *
 * protobufjs's own `fromObject` does not implement this mapping (a Duration as "1.5s", a
 * wrapper as a bare number, a Struct as plain JSON, `@type` inside `Any` at any depth — see
 * DESIGN.md §9), and Envoy's docs, YAML configs and `config_dump` all use it. The work is
 * split over `json-from.ts` (JSON → message), `json-to.ts` (message → JSON),
 * `json-scalars*.ts`, `json-well-known*.ts`, `json-time.ts` and `json-schema.ts` (the
 * per-type lookup cache).
 */
import type protobuf from 'protobufjs';
import type { FromContext } from './json-common.js';
import { messageFromJson, packAnyFromJson } from './json-from.js';
import { encodeMessage } from './json-registry.js';
import type { PackedAny } from './json-from.js';
import { messageToJson } from './json-to.js';
import type { Result } from '../util/problems.js';
import { envoyRoot } from './protos.js';

export type { PackedAny } from './json-from.js';

export interface FromJsonOptions {
  /** Where `@type` names are looked up; defaults to the root `type` belongs to. */
  root?: protobuf.Root;
  /** Prefix of every problem path, e.g. `resources[3]`. */
  path?: string;
}

export interface ToJsonOptions {
  /** Where the type URLs of `Any` fields are looked up; defaults to the root of `type`. */
  root?: protobuf.Root;
}

/**
 * Builds a message of `type` from its canonical JSON, ready for `type.encode`. Reports every
 * problem found, each with its field path, rather than stopping at the first.
 */
export function fromJson(
  type: protobuf.Type,
  value: unknown,
  options: FromJsonOptions = {},
): Result<protobuf.Message> {
  const ctx = newContext(options.root ?? type.root);
  const message = messageFromJson(type, value, options.path ?? '', ctx);
  return finish(ctx, message);
}

/** `fromJson` then `encode`: the wire bytes of the message. */
export function encodeJson(
  type: protobuf.Type,
  value: unknown,
  options: FromJsonOptions = {},
): Result<Uint8Array> {
  const ctx = newContext(options.root ?? type.root);
  const path = options.path ?? '';
  const message = messageFromJson(type, value, path, ctx);
  const bytes =
    message === undefined || ctx.problems.length > 0
      ? undefined
      : encodeMessage(type, message, path, ctx);
  return finish(ctx, bytes);
}

/**
 * Encodes `{"@type": "type.googleapis.com/…", …fields}` as the message its `@type` names:
 * the type URL and the message's own bytes (not wrapped in an `Any`). The server encodes
 * each xDS resource once this way. The type must be loaded in `root` (Envoy's by default).
 */
export function packAnyJson(value: unknown, options: FromJsonOptions = {}): Result<PackedAny> {
  const ctx = newContext(options.root ?? envoyRoot());
  const packed = packAnyFromJson(value, options.path ?? '', ctx);
  return finish(ctx, packed);
}

/**
 * The canonical JSON of a message (decoded by protobufjs, built by `fromJson`, or a plain
 * object with the same field names): snake_case names, `@type` in `Any`, Durations as
 * strings, bare wrappers, 64-bit integers as strings, enums by name, bytes as base64, and
 * fields at their default value left out.
 */
export function toJson(
  type: protobuf.Type,
  message: protobuf.Message | object,
  options: ToJsonOptions = {},
): unknown {
  return messageToJson(type, message, { root: options.root ?? type.root });
}

function newContext(root: protobuf.Root): FromContext {
  return { root, problems: [], depth: 0 };
}

function finish<T>(ctx: FromContext, value: T | undefined): Result<T> {
  if (ctx.problems.length > 0 || value === undefined) {
    const problems = ctx.problems.length > 0 ? ctx.problems : [{ path: '', message: 'invalid' }];
    return { ok: false, problems };
  }
  return { ok: true, value };
}
