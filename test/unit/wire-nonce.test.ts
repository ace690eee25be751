import { describe, expect, test } from 'vitest';
import { envoyRoot } from '../../src/xds/protos.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { encodeDeltaResponseBody } from '../../src/xds/wire-delta.js';
import {
  appendNonceField,
  decodeDiscoveryResponse,
  encodeNonceField,
  encodeResponseBody,
} from '../../src/xds/wire.js';

describe('appendNonceField', () => {
  const body = encodeResponseBody(
    '2026-11-30T00:00:00Z/3',
    CLUSTER_TYPE,
    [{ typeUrl: CLUSTER_TYPE, value: new Uint8Array([10, 3, 97, 98, 99]) }],
    'mock-istiod',
  );

  test.each([
    ['empty', ''],
    ['a UUID', '0c9a4b6e-4c1f-4f59-9a55-0b1a8f4b3a61'],
    ['127 bytes (one-byte length)', 'n'.repeat(127)],
    ['128 bytes (two-byte length)', 'n'.repeat(128)],
    ['20,000 bytes (three-byte length)', 'n'.repeat(20_000)],
    ['non-ASCII', 'nonce-é-✓'],
    ['Latin-1 but not ASCII (two bytes in UTF-8)', 'caf\u00e9\u00ff'],
    // As the server makes them: a version and a UUID joined, a string of parts in V8.
    [
      'a version joined to a UUID',
      ['2026-11-30T00:00:00Z/3', '0c9a4b6e', '-4c1f-'].join('') + 'abc',
    ],
  ])('gives the same bytes as concatenating the nonce field: %s', (_label, nonce) => {
    const appended = appendNonceField(body, nonce);
    expect(appended.equals(Buffer.concat([body, encodeNonceField(nonce)]))).toBe(true);
    const decoded = decodeDiscoveryResponse(appended);
    expect(decoded.nonce).toBe(nonce);
    expect(decoded.version_info).toBe('2026-11-30T00:00:00Z/3');
    expect(decoded.resources).toHaveLength(1);
    // With room for a gRPC frame's prefix: the same bytes, that many bytes in.
    const framed = appendNonceField(body, nonce, 5);
    expect(framed.length).toBe(appended.length + 5);
    expect(framed.subarray(5).equals(appended)).toBe(true);
  });

  test('leaves the shared body untouched', () => {
    const before = Buffer.from(body);
    appendNonceField(body, 'x');
    expect(body.equals(before)).toBe(true);
  });
});

describe('a delta response body shared by streams', () => {
  test('plus its nonce decodes like a response encoded whole', () => {
    const resource = {
      name: 'inbound|8101||',
      version: 'abc123',
      typeUrl: CLUSTER_TYPE,
      value: new Uint8Array([10, 3, 97, 98, 99]),
    };
    const parts = {
      systemVersion: '2026-11-30T00:00:00Z/4',
      typeUrl: CLUSTER_TYPE,
      resources: [resource],
      removed: ['gone'],
      controlPlaneId: 'mock-istiod',
      // Written only with the deltaResourceVersions option (istiod writes none).
      versioned: true,
    };
    const type = envoyRoot().lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse');
    const decode = (bytes: Uint8Array) => type.toObject(type.decode(bytes), { bytes: Array });
    const body = encodeDeltaResponseBody(parts);
    const shared = decode(appendNonceField(body, 'nonce-1'));
    // The reference: the same response encoded whole by protobufjs itself.
    const whole = type.encode(
      type.fromObject({
        system_version_info: parts.systemVersion,
        resources: [
          {
            name: resource.name,
            version: resource.version,
            resource: { type_url: resource.typeUrl, value: resource.value },
          },
        ],
        type_url: parts.typeUrl,
        nonce: 'nonce-1',
        removed_resources: parts.removed,
        control_plane: { identifier: parts.controlPlaneId },
      }),
    );
    expect(shared).toEqual(decode(whole.finish()));
    expect(shared).toMatchObject({
      nonce: 'nonce-1',
      removed_resources: ['gone'],
      resources: [{ name: 'inbound|8101||', version: 'abc123' }],
    });
  });
});
