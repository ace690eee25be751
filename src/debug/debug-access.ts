/**
 * Who may read which debug answer over ADS, by istiod's rules (pilot/pkg/xds/statusgen.go
 * `callerNamespaceFilter`, debuggen.go `parseAndValidateDebugRequest` and debug.go
 * `getDebugConnection`), for a stream whose identity was verified against its node:
 *
 * - a caller in the root namespace (istio-system) reads everything;
 * - a caller in another namespace sees only its own namespace's proxies in `syncz` and the
 *   config dumps (a proxy elsewhere is answered as one not connected), and may ask
 *   `istio.io/debug` only for `config_dump`, `ndsz` and `edsz`: anything else ends the stream
 *   PERMISSION_DENIED `the debug info is not available for current identity: "<spiffe id>"`.
 *
 * With `debugAuth` off (istiod's `ENABLE_DEBUG_ENDPOINT_AUTH=false`) the namespace filter is
 * off, but istiod's DebugGen still limits the endpoints of a verified caller outside the root.
 */
import type { StreamView } from '../core/events.js';
import { configNamespace, ROOT_NAMESPACE, type VerifiedIdentity } from '../core/stream-auth.js';

/** The `istio.io/debug` endpoints a caller outside the root namespace may ask for. */
const NAMESPACE_ENDPOINTS: ReadonlySet<string> = new Set(['config_dump', 'ndsz', 'edsz']);

/**
 * The namespace the caller is limited to, or '' when it is not: no verified identity (only
 * possible with `debugAuth` off), the filter off, or a caller of the root namespace.
 */
export function callerNamespaceFilter(
  identity: VerifiedIdentity | undefined,
  namespaceAuth: boolean,
): string {
  if (!namespaceAuth || !identity || identity.namespace === ROOT_NAMESPACE) return '';
  return identity.namespace;
}

/** The streams of proxies in `namespace` (their `ConfigNamespace`); all of them for ''. */
export function inNamespace(streams: readonly StreamView[], namespace: string): StreamView[] {
  if (namespace === '') return [...streams];
  return streams.filter((stream) => configNamespace(stream.proxy) === namespace);
}

/**
 * The endpoint an `istio.io/debug` resource name asks for: its path, as Go's `url.Parse`
 * reads it (before `?` or `#`, percent-decoded).
 */
export function endpointPath(name: string): string {
  const path = name.split(/[?#]/, 1)[0] ?? '';
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Why this caller may not read the `istio.io/debug` endpoint `name`, or undefined. */
export function debugEndpointRefusal(
  identity: VerifiedIdentity | undefined,
  name: string,
): string | undefined {
  if (!identity || identity.namespace === ROOT_NAMESPACE) return undefined;
  if (NAMESPACE_ENDPOINTS.has(endpointPath(name))) return undefined;
  // Go's %q of the identity: a quoted string, as JSON quotes one of printable ASCII.
  return `the debug info is not available for current identity: ${JSON.stringify(identity.id)}`;
}
