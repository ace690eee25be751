/**
 * Type URLs of the xDS resources this server knows, in one place (as go-control-plane's
 * `resource` package does). The short names are the ones istiod logs and istioctl prints.
 */
export const TYPE_PREFIX = 'type.googleapis.com/';

export const CLUSTER_TYPE = `${TYPE_PREFIX}envoy.config.cluster.v3.Cluster`;
export const LISTENER_TYPE = `${TYPE_PREFIX}envoy.config.listener.v3.Listener`;
export const ENDPOINT_TYPE = `${TYPE_PREFIX}envoy.config.endpoint.v3.ClusterLoadAssignment`;
export const ROUTE_TYPE = `${TYPE_PREFIX}envoy.config.route.v3.RouteConfiguration`;
export const SECRET_TYPE = `${TYPE_PREFIX}envoy.extensions.transport_sockets.tls.v3.Secret`;
export const EXTENSION_CONFIG_TYPE = `${TYPE_PREFIX}envoy.config.core.v3.TypedExtensionConfig`;

/** The resource types the server serves, in the order ADS pushes them (CDS → EDS → LDS → RDS). */
export const SERVED_TYPES = [CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE, ROUTE_TYPE] as const;
export type ServedTypeUrl = (typeof SERVED_TYPES)[number];

const SHORT_NAMES: Record<string, string> = {
  [CLUSTER_TYPE]: 'CDS',
  [LISTENER_TYPE]: 'LDS',
  [ENDPOINT_TYPE]: 'EDS',
  [ROUTE_TYPE]: 'RDS',
  [SECRET_TYPE]: 'SDS',
  [EXTENSION_CONFIG_TYPE]: 'ECDS',
};

const URLS_BY_SHORT_NAME: Record<string, string> = Object.fromEntries(
  Object.entries(SHORT_NAMES).map(([url, short]) => [short, url]),
);

/** istiod's short names: `CDS`, `LDS`, `EDS`, `RDS`, `SDS`, `ECDS`. */
export const SHORT_TYPE_NAMES = Object.keys(URLS_BY_SHORT_NAME);

/** The type URL of a short name (`cds`, `LDS`, any case), or undefined. */
export function typeUrlOfShortName(name: string): string | undefined {
  return URLS_BY_SHORT_NAME[name.trim().toUpperCase()];
}

/** `CDS`, `LDS`, … for known types; the message name for anything else. */
export function shortTypeName(typeUrl: string): string {
  return SHORT_NAMES[typeUrl] ?? typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

/** Types for which an empty `resource_names` list means "everything" (wildcard). */
export function isWildcardType(typeUrl: string): boolean {
  return typeUrl === CLUSTER_TYPE || typeUrl === LISTENER_TYPE;
}

export function isServedType(typeUrl: string): typeUrl is ServedTypeUrl {
  return (SERVED_TYPES as readonly string[]).includes(typeUrl);
}

/** `type.googleapis.com/a.b.C` → `a.b.C`; undefined when the URL has no `/`. */
export function messageNameOf(typeUrl: string): string | undefined {
  const slash = typeUrl.lastIndexOf('/');
  return slash < 0 ? undefined : typeUrl.slice(slash + 1);
}
