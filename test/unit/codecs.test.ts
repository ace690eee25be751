/**
 * Encoding and decoding with only the functions asked for (src/xds/codecs.ts) gives the bytes
 * and messages protobufjs's full per-type set-up gives, on the lab's resources (listeners,
 * routes, clusters and endpoints, with `Any`-typed filters inside), and leaves that set-up
 * working afterwards.
 */
import type protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { decodeOnly, encodeOnly } from '../../src/xds/codecs.js';
import { fromJson, toJson } from '../../src/xds/json.js';
import { ENVOY_PROTO_FILES } from '../../src/xds/protos.js';
import { loadPreparedTypes } from '../../src/xds/prepared-types.js';
import { messageNameOf } from '../../src/xds/type-urls.js';

/** A root of its own, so that no other test's encoding has set its types up already. */
function freshRoot() {
  const root = loadPreparedTypes(ENVOY_PROTO_FILES);
  if (!root) throw new Error('no prepared types: run `npm run build` (or `npm test`, its pretest)');
  return root;
}

describe('codecs', () => {
  const resources = makeLabResources() as Array<{ '@type': string }>;

  it('encodes and decodes the lab as protobufjs set-up does', () => {
    const only = freshRoot();
    const full = freshRoot();
    expect(resources.length).toBeGreaterThan(3);
    const encoded: Array<[protobuf.Type, Uint8Array]> = [];
    for (const resource of resources) {
      const name = messageNameOf(resource['@type']) as string;
      const fields = Object.fromEntries(Object.entries(resource).filter(([k]) => k !== '@type'));
      const [typeOnly, typeFull] = [only.lookupType(name), full.lookupType(name)];
      const message = fromJson(typeOnly, fields);
      if (!message.ok) throw new Error(JSON.stringify(message.problems));
      const bytes = encodeOnly(typeOnly, message.value);
      expect(bytes.length).toBeGreaterThan(0);
      expect(Buffer.from(bytes)).toEqual(Buffer.from(typeFull.encode(message.value).finish()));
      // Only the functions asked for were made: protobufjs's own set-up has not run.
      expect(Object.hasOwn(typeOnly, 'verify')).toBe(false);
      const decoded = decodeOnly(typeOnly, bytes);
      expect(toJson(typeOnly, decoded)).toEqual(toJson(typeFull, typeFull.decode(bytes)));
      encoded.push([typeOnly, bytes]);
    }
    // protobufjs's own set-up still works on top, with the same bytes.
    for (const [type, bytes] of encoded) {
      expect(Buffer.from(type.setup().encode(type.decode(bytes)).finish())).toEqual(
        Buffer.from(bytes),
      );
    }
  });

  it('reports malformed bytes as protobufjs does', () => {
    const type = freshRoot().lookupType('envoy.config.cluster.v3.Cluster');
    const bad = Uint8Array.from([0x0a, 0x05, 0x61]); // a name of 5 bytes, with 1 there
    expect(() => decodeOnly(type, bad)).toThrow(/index out of range/);
  });
});
