/**
 * Type URLs of the xDS messages the wire code names, as constants (as go-control-plane's
 * `resource` package keeps them). What each resource type means to the mock (its short name,
 * metric label, debug sections, references) is in its descriptor, src/core/types/.
 */
import { boundedInterner } from '../util/intern.js';

export const TYPE_PREFIX = 'type.googleapis.com/';

export const CLUSTER_TYPE = `${TYPE_PREFIX}envoy.config.cluster.v3.Cluster`;
export const LISTENER_TYPE = `${TYPE_PREFIX}envoy.config.listener.v3.Listener`;
export const ENDPOINT_TYPE = `${TYPE_PREFIX}envoy.config.endpoint.v3.ClusterLoadAssignment`;
export const ROUTE_TYPE = `${TYPE_PREFIX}envoy.config.route.v3.RouteConfiguration`;
export const SCOPED_ROUTE_TYPE = `${TYPE_PREFIX}envoy.config.route.v3.ScopedRouteConfiguration`;
export const SECRET_TYPE = `${TYPE_PREFIX}envoy.extensions.transport_sockets.tls.v3.Secret`;
export const EXTENSION_CONFIG_TYPE = `${TYPE_PREFIX}envoy.config.core.v3.TypedExtensionConfig`;

/** Envoy's admin messages: the sections of a `config_dump` (`…envoy.admin.v3.ClustersConfigDump`). */
export const ADMIN_TYPE_PREFIX = `${TYPE_PREFIX}envoy.admin.v3.`;

/** CSDS's per-proxy status, the resource type of istioctl's `proxy-status -o json`. */
export const CLIENT_CONFIG_TYPE = `${TYPE_PREFIX}envoy.service.status.v3.ClientConfig`;

/**
 * istiod's debug types over ADS: `istio.io/debug/syncz` and `istio.io/debug/config_dump`
 * (pilot/pkg/xds/statusgen.go), and `istio.io/debug` itself, which answers a debug endpoint
 * named by the resource name (`syncz`, `config_dump?proxyID=…`) with its raw body.
 */
export const DEBUG_TYPE = 'istio.io/debug';
export const SYNCZ_DEBUG_TYPE = `${DEBUG_TYPE}/syncz`;
export const CONFIG_DUMP_DEBUG_TYPE = `${DEBUG_TYPE}/config_dump`;
/** Made once: a template in `isDebugType` made (and flattened) a string on every request. */
const DEBUG_PREFIX = `${DEBUG_TYPE}/`;

/**
 * The one copy of a type URL decoded from a request (at most 256 kept): every request decodes
 * its own string (72 bytes for a cluster's URL), and the session's state and each journal
 * entry keep the request's, which cost an idle stream about 300 bytes before
 * (docs/BENCHMARKS.md).
 */
export const internTypeUrl = boundedInterner(256);

/** Whether a request asks for one of istiod's debug types (never a watched resource type). */
export function isDebugType(typeUrl: string): boolean {
  return typeUrl === DEBUG_TYPE || typeUrl.startsWith(DEBUG_PREFIX);
}

/** `type.googleapis.com/a.b.C` → `a.b.C`; undefined when the URL has no `/`. */
export function messageNameOf(typeUrl: string): string | undefined {
  const slash = typeUrl.lastIndexOf('/');
  return slash < 0 ? undefined : typeUrl.slice(slash + 1);
}
