import { describe, expect, it } from 'vitest';
import {
  ADS_ORDER,
  RESOURCE_TYPES,
  TYPE_NAME_HINT,
  displayTypeName,
  isWildcardType,
  metricLabel,
  parseTypeList,
  parseTypeName,
  shortTypeName,
} from '../../src/core/types/registry.js';
import { TABLE_TYPES } from '../../src/cli/client/proxy-status-view.js';
import { checkReferences } from '../../src/snapshot/references.js';
import { packResourceSet } from '../../src/snapshot/resource-set.js';
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  EXTENSION_CONFIG_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
  SECRET_TYPE,
} from '../../src/xds/type-urls.js';

const SCOPED_ROUTE_TYPE = 'type.googleapis.com/envoy.config.route.v3.ScopedRouteConfiguration';

describe('the resource type registry', () => {
  it('holds each type once, by URL and by short name', () => {
    const urls = RESOURCE_TYPES.map((t) => t.typeUrl);
    const shortNames = RESOURCE_TYPES.map((t) => t.shortName);
    expect(new Set(urls).size).toBe(urls.length);
    expect(new Set(shortNames).size).toBe(shortNames.length);
    expect(shortNames).toEqual(['CDS', 'LDS', 'EDS', 'RDS', 'SDS', 'ECDS', 'SRDS']);
  });

  it("derives istiod's tables: ADS order, metric labels, istioctl's columns", () => {
    expect(ADS_ORDER).toEqual([
      CLUSTER_TYPE,
      ENDPOINT_TYPE,
      LISTENER_TYPE,
      SCOPED_ROUTE_TYPE,
      ROUTE_TYPE,
    ]);
    expect(RESOURCE_TYPES.map((t) => metricLabel(t.typeUrl))).toEqual(
      RESOURCE_TYPES.map((t) => t.shortName.toLowerCase()),
    );
    expect(metricLabel('type.googleapis.com/x.Y')).toBe('type.googleapis.com/x.Y');
    expect(TABLE_TYPES).toEqual([
      CLUSTER_TYPE,
      LISTENER_TYPE,
      ENDPOINT_TYPE,
      ROUTE_TYPE,
      EXTENSION_CONFIG_TYPE,
    ]);
  });

  it('knows which types are wildcard when no names are asked for (CDS, LDS and SRDS)', () => {
    expect(RESOURCE_TYPES.filter((t) => isWildcardType(t.typeUrl)).map((t) => t.shortName)).toEqual(
      ['CDS', 'LDS', 'SRDS'],
    );
  });

  it('shows known types by short name, others by message name (logs) or URL (users)', () => {
    expect(shortTypeName(SECRET_TYPE)).toBe('SDS');
    expect(shortTypeName('type.googleapis.com/x.v3.Thing')).toBe('x.v3.Thing');
    expect(displayTypeName(ROUTE_TYPE)).toBe('RDS');
    expect(displayTypeName('type.googleapis.com/x.v3.Thing')).toBe(
      'type.googleapis.com/x.v3.Thing',
    );
  });
});

describe('parseTypeName, the one parser of type names', () => {
  it.each([
    ['cds', CLUSTER_TYPE],
    [' LDS ', LISTENER_TYPE],
    ['Ecds', EXTENSION_CONFIG_TYPE],
    [CLUSTER_TYPE, CLUSTER_TYPE],
    ['envoy.config.route.v3.RouteConfiguration', ROUTE_TYPE],
    ['type.googleapis.com/x.v3.Thing', 'type.googleapis.com/x.v3.Thing'],
  ])('reads %j as %s', (name, url) => {
    expect(parseTypeName(name)).toBe(url);
  });

  it.each([['XDS'], [''], ['type.googleapis.com/'], ['two words'], [42], [undefined]])(
    'refuses %j',
    (name) => {
      expect(parseTypeName(name)).toBeUndefined();
    },
  );

  it('reads comma-separated lists, naming every entry it cannot read', () => {
    expect(parseTypeList('cds,,lds', 'types')).toEqual({
      ok: true,
      value: [CLUSTER_TYPE, LISTENER_TYPE],
    });
    expect(parseTypeList('cds,xds,nope', 'types')).toEqual({
      ok: false,
      problems: [
        { path: 'types[1]', message: `expected ${TYPE_NAME_HINT}, found "xds"` },
        { path: 'types[2]', message: `expected ${TYPE_NAME_HINT}, found "nope"` },
      ],
    });
  });
});

describe('a type added by its descriptor alone: scoped routes (SRDS)', () => {
  const scope = (route: string) => ({
    '@type': SCOPED_ROUTE_TYPE,
    name: 'scope-a',
    route_configuration_name: route,
    key: { fragments: [{ string_key: 'a' }] },
  });
  const routes = [{ '@type': ROUTE_TYPE, name: 'routes-a', virtual_hosts: [] }];

  it('is parsed by its short name, and pushed between LDS and RDS', () => {
    expect(parseTypeName('srds')).toBe(SCOPED_ROUTE_TYPE);
    expect(ADS_ORDER.indexOf(SCOPED_ROUTE_TYPE)).toBe(ADS_ORDER.indexOf(LISTENER_TYPE) + 1);
  });

  it('warns when a scope names a route configuration the set does not serve', () => {
    const where = (_typeUrl: string, name: string) => `set "default": ${name}`;
    const missing = packResourceSet([scope('routes-b'), ...routes]);
    const served = packResourceSet([scope('routes-a'), ...routes]);
    if (!missing.ok || !served.ok) throw new Error('the test resources must pack');
    expect(checkReferences(missing.value, where)).toEqual({
      errors: [],
      warnings: [
        {
          path: 'set "default": scope-a.route_configuration_name',
          message:
            'no route configuration "routes-b" in the set: no routes (over SotW it is sent an empty one, as istiod does; over delta or with omitMissingResources the scope warms until one is served)',
        },
      ],
    });
    expect(checkReferences(served.value, where)).toEqual({ errors: [], warnings: [] });
  });
});
