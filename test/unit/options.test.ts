import { describe, expect, it } from 'vitest';
import { createMockIstiod } from '../../src/app/mock-istiod.js';
import { resolveOptions } from '../../src/app/options.js';
import { DEFAULT_CA_OPTIONS } from '../../src/ca/security-options.js';
import { makeLabResources } from '../../src/resources/lab.js';

describe('resolveOptions', () => {
  it('leaves with the security options resolved, defaults filled in, for the rooms to take as they are', () => {
    const resolved = resolveOptions({ tls: { hosts: ['mock.local'] }, ca: { audiences: ['x'] } });
    expect(resolved.ok && resolved.value.security).toEqual({
      tls: { dir: undefined, hosts: ['mock.local'] },
      ca: { ...DEFAULT_CA_OPTIONS, audiences: ['x'] },
      xdsAuth: true,
    });
    expect(resolved.ok && 'tls' in resolved.value).toBe(false);
  });

  it('xds-spec sets what it needs, and refuses an option given against it, naming it', () => {
    const spec = resolveOptions({ profile: 'xds-spec' });
    expect(spec.ok && spec.value).toMatchObject({
      profile: 'xds-spec',
      versioning: 'per-type',
      deltaResourceVersions: true,
      omitMissingResources: true,
    });
    const against = resolveOptions({
      profile: 'xds-spec',
      versioning: 'push',
      omitMissingResources: false,
    });
    expect(against.ok ? [] : against.problems).toEqual([
      {
        path: 'versioning',
        message: 'the xds-spec profile sets versioning to "per-type", found "push"',
      },
      {
        path: 'omitMissingResources',
        message: 'the xds-spec profile sets omitMissingResources to true, found false',
      },
    ]);
    const unknown = resolveOptions({ profile: 'envoy' as never });
    expect(unknown.ok ? [] : unknown.problems).toEqual([
      { path: 'profile', message: 'expected istiod or xds-spec, found "envoy"' },
    ]);
    const istiod = resolveOptions({});
    expect(istiod.ok && istiod.value.versioning).toBe('push');
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

  it('remembers the language asked for (English by default) and refuses any other', () => {
    const lang = (partial: Parameters<typeof resolveOptions>[0]) => {
      const resolved = resolveOptions(partial);
      return resolved.ok ? resolved.value.lang : resolved.problems;
    };
    expect(lang({})).toBe('en');
    expect(lang({ lang: 'ko' })).toBe('ko');
    expect(lang({ lang: 'fr' as never })).toEqual([
      { path: 'lang', message: 'expected en or ko, found "fr"' },
    ]);
  });

  it('decides once whether `resources` holds resources (the default set) or sets', () => {
    const lab = makeLabResources();
    const asSets = (resources: unknown[]) => {
      const resolved = resolveOptions({ resources });
      return resolved.ok ? resolved.value.resourceSets : undefined;
    };
    expect(asSets(lab)).toEqual([{ name: 'default', resources: lab }]);
    expect(asSets([])).toEqual([{ name: 'default', resources: [] }]);
    const sets = [{ name: 'east', match: { nodeId: 'east~*' }, resources: lab }];
    expect(asSets(sets)).toBe(sets);
  });
});

describe('the resources option', () => {
  it('is checked like the API: references Envoy will NACK are served, and reported', async () => {
    const noBlackHole = makeLabResources().filter((r) => r.name !== 'BlackHoleCluster');
    const server = createMockIstiod({ resources: noBlackHole, control: false });
    try {
      expect((await server.control.resourceStatus()).warnings.map((w) => w.message)).toEqual([
        "unknown cluster 'BlackHoleCluster': Envoy rejects this (NACK) whenever it is sent",
      ]);
      expect(Object.keys((await server.control.getResources()).sets[0]?.types ?? {})).toHaveLength(
        2,
      );
    } finally {
      await server.close();
    }
  });
});
