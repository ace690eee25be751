/**
 * The catalogue of configurations Envoy must reject, each named, each shown by
 * test/e2e/faults-nack.test.ts to make the real Envoy (1.40) NACK it with the error below.
 *
 * Each entry adds resources to the current set of its type rather than replacing the set:
 * in state-of-the-world xDS a resource missing from a response is removed even when Envoy
 * rejects the response (seen on Envoy 1.40, docs/envoy-facts.md), so the proxy keeps every
 * good resource and rejects only the bad one(s).
 */
import { makeStaticCluster } from '../resources/cluster.js';
import { makeHttpListener } from '../resources/listener.js';
import type { NamedResource } from '../core/snapshot.js';
import { toJson } from '../xds/json.js';
import { envoyRoot } from '../xds/protos.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../xds/type-urls.js';

export interface NackConfig {
  name: string;
  typeUrl: string;
  summary: string;
  /**
   * Who rejects it: Envoy (the default), or a proxyless gRPC client, for which the config
   * replaces what the client asked for under the same names (a gRPC client ignores resources
   * it did not ask for, so an added one provokes nothing).
   */
  client?: 'envoy' | 'grpc';
  /**
   * What the client puts in its NACK (`error_detail.message`), in essence: Envoy 1.40's, or
   * grpc-go's for a gRPC config.
   */
  envoyError: string;
  /** The bad resources, in canonical JSON with `@type`, given the type's current ones. */
  build(existing: ReadonlyMap<string, NamedResource>): unknown[];
}

export const UNKNOWN_CLUSTER = 'no-such-cluster';

interface Address {
  address: string;
  port: number;
}

/** The socket address of the first current listener that has one. */
function firstListenerAddress(existing: ReadonlyMap<string, NamedResource>): Address | undefined {
  const type = envoyRoot().lookupType('envoy.config.listener.v3.Listener');
  for (const resource of existing.values()) {
    const listener = type.decode(resource.value) as unknown as {
      address?: { socket_address?: { address?: string; port_value?: number } };
    };
    const socket = listener.address?.socket_address;
    if (socket?.address) return { address: socket.address, port: socket.port_value ?? 0 };
  }
  return undefined;
}

function listener(name: string, address: Address, cluster = 'BlackHoleCluster') {
  return makeHttpListener({ name, ...address, direction: 'OUTBOUND', cluster });
}

const LOOPBACK_ANY_PORT: Address = { address: '127.0.0.1', port: 0 };

export const NACK_CATALOGUE: readonly NackConfig[] = [
  {
    name: 'unknown-cluster',
    typeUrl: LISTENER_TYPE,
    summary: 'a listener whose route sends traffic to a cluster that does not exist',
    envoyError: `Error adding/updating listener(s) nack-unknown-cluster: route: unknown cluster '${UNKNOWN_CLUSTER}'`,
    build: () => [listener('nack-unknown-cluster', LOOPBACK_ANY_PORT, UNKNOWN_CLUSTER)],
  },
  {
    name: 'duplicate-address',
    typeUrl: LISTENER_TYPE,
    summary: 'a second listener on the address of an existing one',
    envoyError:
      "Error adding/updating listener(s) nack-duplicate-address: error adding listener: 'nack-duplicate-address' has duplicate address '<address>' as existing listener, …",
    build: (existing) => {
      const taken = firstListenerAddress(existing);
      if (taken) return [listener('nack-duplicate-address', taken)];
      // No listener yet: two new ones on one address make the same conflict.
      const shared: Address = { address: '127.0.0.1', port: 15999 };
      return [
        listener('nack-duplicate-address-a', shared),
        listener('nack-duplicate-address', shared),
      ];
    },
  },
  {
    name: 'malformed-address',
    typeUrl: LISTENER_TYPE,
    summary: 'a listener whose socket address is not an IP address',
    envoyError:
      'Error adding/updating listener(s) nack-malformed-address: malformed IP address: not-an-ip',
    build: () => [listener('nack-malformed-address', { address: 'not-an-ip', port: 15999 })],
  },
  {
    name: 'no-filter-chains',
    typeUrl: LISTENER_TYPE,
    summary: 'a listener with an address but no filter chain',
    envoyError:
      "Error adding/updating listener(s) nack-no-filter-chains: error adding listener '127.0.0.1:0': no filter chains specified",
    build: () => [
      {
        '@type': LISTENER_TYPE,
        name: 'nack-no-filter-chains',
        address: { socket_address: { address: '127.0.0.1', port_value: 0 } },
      },
    ],
  },
  {
    name: 'unknown-filter',
    typeUrl: LISTENER_TYPE,
    summary: 'an HTTP filter whose typed_config no registered filter implements',
    envoyError:
      "Error adding/updating listener(s) nack-unknown-filter: Didn't find a registered implementation for 'envoy.filters.http.no-such-filter' with type URL: 'envoy.config.core.v3.Address'",
    build: () => {
      const bad = listener('nack-unknown-filter', LOOPBACK_ANY_PORT);
      const hcm = bad.filter_chains[0]?.filters[0]?.typed_config as { http_filters: unknown[] };
      hcm.http_filters.unshift({
        name: 'envoy.filters.http.no-such-filter',
        typed_config: { '@type': 'type.googleapis.com/envoy.config.core.v3.Address' },
      });
      return [bad];
    },
  },
  {
    name: 'invalid-field-value',
    typeUrl: CLUSTER_TYPE,
    summary:
      'a cluster whose connect_timeout is 0s (the proto requires > 0): the whole response is rejected',
    envoyError:
      'Proto constraint validation failed (ClusterValidationError.ConnectTimeout: value must be greater than 0s)',
    build: () => [
      {
        ...makeStaticCluster({ name: 'nack-invalid-field-value', endpoints: [] }),
        connect_timeout: '0s',
      },
    ],
  },
  {
    name: 'eds-without-config',
    typeUrl: CLUSTER_TYPE,
    summary: 'an EDS cluster that says nowhere where its endpoints come from',
    envoyError:
      'Error adding/updating cluster(s) nack-eds-without-config: cannot create an EDS cluster without an EDS config',
    build: () => [
      {
        '@type': CLUSTER_TYPE,
        name: 'nack-eds-without-config',
        type: 'EDS',
        connect_timeout: '1s',
      },
    ],
  },
  {
    name: 'malformed-endpoint',
    typeUrl: CLUSTER_TYPE,
    summary: 'a STATIC cluster whose endpoint address is not an IP address',
    envoyError:
      "Error adding/updating cluster(s) nack-malformed-endpoint: malformed IP address: not-an-ip. Consider setting resolver_name or setting cluster type to 'STRICT_DNS' or 'LOGICAL_DNS'",
    build: () => [
      makeStaticCluster({
        name: 'nack-malformed-endpoint',
        endpoints: [{ address: 'not-an-ip', port: 80 }],
      }),
    ],
  },
  {
    name: 'grpc-no-route',
    typeUrl: LISTENER_TYPE,
    client: 'grpc',
    summary:
      'proxyless gRPC: each client target (api_listener) under its own name, with neither RDS nor inline routes',
    envoyError: 'no RouteSpecifier',
    build: (existing) => targetsWithoutRoutes(existing),
  },
];

/**
 * Each proxyless client target of the set (a listener holding an `api_listener`), under its
 * own name, with its connection manager's RDS taken away and no inline routes instead.
 */
function targetsWithoutRoutes(existing: ReadonlyMap<string, NamedResource>): unknown[] {
  const type = envoyRoot().lookupType('envoy.config.listener.v3.Listener');
  return [...existing.values()].flatMap((resource) => {
    const json = toJson(type, type.decode(resource.value)) as {
      api_listener?: { api_listener?: Record<string, unknown> };
    };
    const hcm = json.api_listener?.api_listener;
    if (!hcm) return [];
    delete hcm['rds'];
    delete hcm['route_config'];
    return [{ '@type': LISTENER_TYPE, ...json }];
  });
}

export function findNackConfig(name: string): NackConfig | undefined {
  return NACK_CATALOGUE.find((c) => c.name === name);
}

/** The config a validated `config` parameter names (its schema lists the catalogue's names). */
export function nackConfigNamed(name: string): NackConfig {
  const config = findNackConfig(name);
  if (!config) throw new Error(`no nack config named "${name}"`);
  return config;
}
