/**
 * The requests' own decoder (xds/wire-read.ts) against protobufjs's, the decoder it replaces:
 * for any request protobufjs encodes, both read the same fields, the metadata `Struct` as
 * google-protobuf's `toJavaScript()` makes it. And malformed bytes are refused with an Error,
 * never a crash, a hang or a stack overflow.
 */
import structPb from 'google-protobuf/google/protobuf/struct_pb.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { envoyRoot } from '../../src/xds/protos.js';
import { decodeDiscoveryRequest, encodeDiscoveryRequest } from '../../src/xds/wire.js';
import { decodeDeltaRequest } from '../../src/xds/wire-delta.js';
import { heldStructEntries, MAX_STRUCT_DEPTH } from '../../src/xds/wire-read.js';
import { lengthField } from '../support/wire-bytes.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const key = text.filter((k) => k !== '__proto__');
const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true }),
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const metadata = fc.dictionary(key, json, { maxKeys: 8 });
const node = fc.record({
  id: text,
  cluster: text,
  metadata,
  user_agent_name: text,
  user_agent_version: text,
});

/** A node's fields but its metadata. */
const NODE = { id: 'n', cluster: '', user_agent_name: '', user_agent_version: '' };

/** What protobufjs and google-protobuf make of the same bytes: the old decoder's reading. */
function reference(typeName: string, bytes: Uint8Array): Record<string, unknown> {
  const type = envoyRoot().lookupType(typeName);
  const raw = type.toObject(type.decode(bytes), { defaults: true, arrays: true, objects: true });
  const nodeRaw = raw['node'] as Record<string, unknown> | undefined;
  if (nodeRaw) {
    const struct = envoyRoot().lookupType('google.protobuf.Struct');
    const meta = (type.decode(bytes) as unknown as { node: { metadata?: object } }).node.metadata;
    const metaBytes = meta ? struct.encode(meta).finish() : new Uint8Array();
    raw['node'] = {
      id: nodeRaw['id'],
      cluster: nodeRaw['cluster'],
      metadata: structPb.Struct.deserializeBinary(metaBytes).toJavaScript(),
      user_agent_name: nodeRaw['user_agent_name'],
      user_agent_version: nodeRaw['user_agent_version'] ?? '',
    };
  }
  return raw;
}

describe("the requests' decoder", () => {
  it('reads any DiscoveryRequest as protobufjs and google-protobuf do', () => {
    fc.assert(
      fc.property(
        fc.record({
          version_info: text,
          node: fc.option(node, { nil: undefined }),
          resource_names: fc.array(text, { maxLength: 5 }),
          type_url: text,
          response_nonce: text,
          error_detail: fc.option(
            fc.record({ code: fc.integer({ min: -5, max: 20 }), message: text }),
            { nil: undefined },
          ),
        }),
        (request) => {
          const bytes = encodeDiscoveryRequest(request);
          const ours = decodeDiscoveryRequest(bytes);
          const theirs = reference('envoy.service.discovery.v3.DiscoveryRequest', bytes);
          expect(ours.version_info).toBe(theirs['version_info']);
          expect(ours.resource_names).toEqual(theirs['resource_names']);
          expect(ours.type_url).toBe(theirs['type_url']);
          expect(ours.response_nonce).toBe(theirs['response_nonce']);
          expect(ours.node).toEqual(theirs['node'] ?? undefined);
          expect(ours.error_detail).toEqual(
            theirs['error_detail']
              ? { code: request.error_detail?.code, message: request.error_detail?.message }
              : undefined,
          );
          // Keys inserted in sorted order at the top (the hidden-class rule of the node's
          // metadata). An object lists integer-like keys first whatever the insertion order,
          // so the expected order is that of an object built from the sorted keys.
          const keys = Object.keys(ours.node?.metadata ?? {});
          const sorted = Object.fromEntries([...keys].sort().map((k) => [k, true]));
          expect(keys).toEqual(Object.keys(sorted));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads any DeltaDiscoveryRequest as protobufjs does', () => {
    const type = envoyRoot().lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
    fc.assert(
      fc.property(
        fc.record({
          type_url: text,
          resource_names_subscribe: fc.array(text, { maxLength: 5 }),
          resource_names_unsubscribe: fc.array(text, { maxLength: 5 }),
          initial_resource_versions: fc.dictionary(key, text, { maxKeys: 5 }),
          response_nonce: text,
        }),
        (request) => {
          const bytes = type.encode(type.create(request)).finish();
          const ours = decodeDeltaRequest(bytes);
          const theirs = reference('envoy.service.discovery.v3.DeltaDiscoveryRequest', bytes);
          for (const field of [
            'type_url',
            'resource_names_subscribe',
            'resource_names_unsubscribe',
            'initial_resource_versions',
            'response_nonce',
          ] as const) {
            expect(ours[field]).toEqual(theirs[field]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses malformed bytes with an Error saying where, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        for (const decode of [decodeDiscoveryRequest, decodeDeltaRequest]) {
          try {
            decode(bytes);
          } catch (err) {
            expect(err).toBeInstanceOf(Error);
            expect((err as Error).message).toMatch(/index out of range|invalid wire type|varint/);
          }
        }
      }),
      { numRuns: 2_000 },
    );
    // A cut-short request: its last field runs past the end.
    const whole = encodeDiscoveryRequest({ type_url: 'x', response_nonce: 'nonce' });
    expect(() => decodeDiscoveryRequest(whole.subarray(0, whole.length - 2))).toThrow(
      /index out of range/,
    );
  });

  it('reads metadata of many keys, in any order, as google-protobuf does', () => {
    fc.assert(
      fc.property(fc.dictionary(key, json, { minKeys: 33, maxKeys: 80 }), (meta) => {
        const bytes = encodeDiscoveryRequest({ node: { ...NODE, metadata: meta } });
        const theirs = reference('envoy.service.discovery.v3.DiscoveryRequest', bytes);
        const ours = decodeDiscoveryRequest(bytes).node?.metadata ?? {};
        expect(ours).toEqual((theirs['node'] as { metadata: unknown }).metadata);
        expect(Object.keys(ours)).toEqual(
          Object.keys(
            Object.fromEntries(
              Object.keys(ours)
                .sort()
                .map((k) => [k, true]),
            ),
          ),
        );
      }),
      { numRuns: 50 },
    );
  });

  it('leaves nothing of a struct it refused halfway to the next request', () => {
    // metadata { a: "x", b: { c: <a field of wire type 7> } }: refused inside b's struct.
    const value = (body: Buffer) => lengthField(2, body);
    const entry = (name: string, body: Buffer) =>
      lengthField(1, Buffer.concat([lengthField(1, Buffer.from(name)), value(body)]));
    const inner = entry('c', Buffer.from([0x0f]));
    const metadata = Buffer.concat([
      entry('a', lengthField(3, Buffer.from('x'))),
      entry('b', lengthField(5, inner)),
    ]);
    const refused = lengthField(2, lengthField(3, metadata));
    expect(() => decodeDiscoveryRequest(refused)).toThrow(/invalid wire type 7/);
    expect(heldStructEntries()).toBe(0);
    const good = encodeDiscoveryRequest({
      node: { ...NODE, metadata: { z: 'last', y: { q: 1 } } },
    });
    expect(decodeDiscoveryRequest(good).node?.metadata).toEqual({ y: { q: 1 }, z: 'last' });
  });

  it(`refuses metadata nested deeper than ${MAX_STRUCT_DEPTH} levels, without a stack overflow`, () => {
    // struct_value { fields { key "a" value { struct_value { … } } } }, built from the inside.
    let struct: Buffer = Buffer.alloc(0);
    for (let i = 0; i < MAX_STRUCT_DEPTH + 5; i++) {
      const value = lengthField(5, struct); // Value.struct_value
      const entry = Buffer.concat([lengthField(1, Buffer.from('a')), lengthField(2, value)]);
      struct = lengthField(1, entry); // Struct.fields entry
    }
    const request = lengthField(2, lengthField(3, struct)); // DiscoveryRequest.node.metadata
    expect(() => decodeDiscoveryRequest(request)).toThrow(/nested more than 1000 deep/);
    expect(heldStructEntries()).toBe(0);
    // And the next request reads as if it had not come.
    const good = encodeDiscoveryRequest({ node: { ...NODE, metadata: { a: { b: 'c' } } } });
    expect(decodeDiscoveryRequest(good).node?.metadata).toEqual({ a: { b: 'c' } });
  });
});
