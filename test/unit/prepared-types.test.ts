/**
 * Envoy's API types prepared at build time (src/xds/prepared-types.ts) against the same types
 * parsed from the .proto files: the same root, the same bytes on the wire, and a stale,
 * missing or broken file turned down so that the caller parses instead.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type protobuf from 'protobufjs';
import { afterAll, describe, expect, it } from 'vitest';
import { ENVOY_PROTO_FILES, loadRoot } from '../../src/xds/protos.js';
import {
  loadPreparedTypes,
  preparedTypesFresh,
  writePreparedTypes,
} from '../../src/xds/prepared-types.js';

const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The root as JSON, without enum value options: protobufjs does not read those back from JSON
 * (the mock never looks at them: they hold only `deprecated` and version annotations).
 */
function described(root: protobuf.Root): unknown {
  return JSON.parse(JSON.stringify(root.toJSON()), (key, value: unknown) =>
    key === 'valuesOptions' ? undefined : value,
  );
}

/** How many message types a root has built so far. */
function typeCount(ns: protobuf.NamespaceBase): number {
  let count = 0;
  for (const nested of ns.nestedArray) {
    if ('fieldsArray' in nested) count += 1;
    if ('nestedArray' in nested) count += typeCount(nested as protobuf.NamespaceBase);
  }
  return count;
}

describe('prepared Envoy types', () => {
  const parsed = loadRoot(ENVOY_PROTO_FILES);
  const path = join(dir, 'envoy-types.json');
  writePreparedTypes(parsed, ENVOY_PROTO_FILES, path);

  it('describe the same types as the parsed .proto files', () => {
    const prepared = loadPreparedTypes(ENVOY_PROTO_FILES, path);
    expect(prepared).toBeDefined();
    expect(described(prepared as protobuf.Root)).toEqual(described(parsed));
    // Loaded without resolving every reference at once; resolving them all changes nothing.
    (prepared as protobuf.Root).resolveAll();
    expect(described(prepared as protobuf.Root)).toEqual(described(parsed));
  });

  it('build a type when a lookup first needs it, with the types it names', () => {
    const prepared = loadPreparedTypes(ENVOY_PROTO_FILES, path) as protobuf.Root;
    const built = (): number => typeCount(prepared);
    expect(built()).toBe(0);
    const cluster = prepared.lookupType('envoy.config.cluster.v3.Cluster');
    const forCluster = built();
    expect(forCluster).toBeGreaterThan(10);
    expect(forCluster).toBeLessThan(typeCount(parsed));
    // Its fields resolve within what was built, across packages.
    expect(cluster.fields['load_assignment']?.resolve().resolvedType?.fullName).toBe(
      '.envoy.config.endpoint.v3.ClusterLoadAssignment',
    );
    const jwt = 'envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication';
    expect(prepared.lookupType(jwt).fullName).toBe(`.${jwt}`);
    expect(built()).toBeGreaterThan(forCluster);
    expect(() => prepared.lookupType('envoy.config.cluster.v3.NoSuchType')).toThrow(/no such type/);
  });

  it('encode a message to the same bytes (packed repeated scalars, maps, Any, oneofs)', () => {
    const prepared = loadPreparedTypes(ENVOY_PROTO_FILES, path) as protobuf.Root;
    const message = {
      name: 'outbound|80||shop.svc',
      type: 'EDS',
      connect_timeout: { seconds: 1, nanos: 500 },
      typed_extension_protocol_options: {
        'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
          type_url: 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
          value: Buffer.from([1, 2, 3]),
        },
      },
      outlier_detection: { consecutive_5xx: { value: 3 } },
    };
    const retry = { retriable_status_codes: [500, 503] };
    for (const [name, value] of [
      ['envoy.config.cluster.v3.Cluster', message],
      ['envoy.config.route.v3.RetryPolicy', retry],
    ] as const) {
      const a = parsed.lookupType(name);
      const b = prepared.lookupType(name);
      expect(Buffer.from(b.encode(b.fromObject(value)).finish())).toEqual(
        Buffer.from(a.encode(a.fromObject(value)).finish()),
      );
    }
  });

  it('are turned down when stale, missing or unreadable', () => {
    expect(preparedTypesFresh(ENVOY_PROTO_FILES, path)).toBe(true);
    const fewer = ENVOY_PROTO_FILES.slice(1);
    expect(preparedTypesFresh(fewer, path)).toBe(false);
    expect(loadPreparedTypes(fewer, path)).toBeUndefined();
    expect(loadPreparedTypes(ENVOY_PROTO_FILES, join(dir, 'missing.json'))).toBeUndefined();
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"madeFrom":');
    expect(loadPreparedTypes(ENVOY_PROTO_FILES, broken)).toBeUndefined();
  });
});
