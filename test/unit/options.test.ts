import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/app/options.js';
import { DEFAULT_CA_OPTIONS } from '../../src/ca/security-options.js';

describe('resolveOptions', () => {
  it('leaves with the security options resolved, defaults filled in, for the rooms to take as they are', () => {
    const resolved = resolveOptions({ tls: { hosts: ['mock.local'] }, ca: { audiences: ['x'] } });
    expect(resolved.ok && resolved.value.security).toEqual({
      tls: { dir: undefined, hosts: ['mock.local'] },
      ca: { ...DEFAULT_CA_OPTIONS, audiences: ['x'] },
    });
    expect(resolved.ok && 'tls' in resolved.value).toBe(false);
  });

  it('lists every problem with its path, security ones among the others', () => {
    const resolved = resolveOptions({
      xds: { host: '', port: 70_000 },
      tls: 'yes' as never,
      ca: { trustDomain: 'Not A Domain' },
    });
    expect(resolved.ok ? [] : resolved.problems.map((p) => p.path)).toEqual([
      'xds.host',
      'xds.port',
      'tls',
      'ca.trustDomain',
    ]);
  });
});
