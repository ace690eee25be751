import { describe, expect, test } from 'vitest';
import { packResources } from '../../src/snapshot/resource-set.js';
import { packKey } from '../../src/snapshot/pack-cache.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';

const cluster = (extra: Record<string, unknown> = {}) => ({
  '@type': CLUSTER_TYPE,
  name: 'outbound|8080||orders.default.svc.cluster.local',
  connect_timeout: '1s',
  ...extra,
});

function packedValue(input: unknown) {
  const packed = packResources([input]);
  if (!packed.ok) return packed.problems;
  return packed.value.set.get(CLUSTER_TYPE)?.get(cluster().name);
}

describe('packing remembered by content', () => {
  test('the same JSON again reuses the encoding and its version', () => {
    const first = packedValue(cluster({ per_connection_buffer_limit_bytes: 1024 }));
    const again = packedValue(cluster({ per_connection_buffer_limit_bytes: 1024 }));
    expect(again).toEqual(first);
    expect((again as { value: Uint8Array }).value).toBe((first as { value: Uint8Array }).value);
  });

  test('other content is packed on its own', () => {
    const a = packedValue(cluster({ connect_timeout: '2s' })) as { version: string };
    const b = packedValue(cluster({ connect_timeout: '3s' })) as { version: string };
    expect(a.version).not.toBe(b.version);
  });

  // Each of these prints as the JSON of a valid input packed before; each must still be
  // checked as it is, and refused.
  test.each([
    ['NaN', { per_connection_buffer_limit_bytes: NaN }, 'found number NaN'],
    ['undefined', { per_connection_buffer_limit_bytes: undefined }, 'found undefined'],
    ['a Date', { alt_stat_name: new Date(0) }, 'object'],
  ])('%s is never taken for the JSON it prints as', (_name, extra, message) => {
    const lookalike = JSON.parse(JSON.stringify(cluster(extra))) as Record<string, unknown>;
    expect(packResources([lookalike]).ok).toBe(true);
    const problems = packedValue(cluster(extra)) as { path: string; message: string }[];
    expect(problems[0]?.message).toContain(message);
    expect(packKey(cluster(extra))).toBeUndefined();
  });
});
