/**
 * The `/debug/…` endpoints run in process, for `istio.io/debug` over ADS (`istioctl x
 * internal-debug`; debug/debug-xds.ts): the body the endpoint would answer over HTTP,
 * whatever its status, and Go's 404 text for a path no endpoint serves.
 */
import { inNamespace } from '../debug/debug-access.js';
import { debugRoutes } from './debug-routes.js';
import { matchRoute, type ControlResponse } from './router.js';
import type { Debuggable } from './target.js';

/** What Go's net/http answers for a path no handler serves (istioctl looks for this text). */
const NOT_FOUND_BODY = '404 page not found\n';

function bodyBytes(response: ControlResponse): Buffer {
  const { body } = response;
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * The endpoints as a caller limited to `namespace` sees them: a `?proxyID=` of a proxy in
 * another namespace is not connected (istiod's `getDebugConnection` with `CallerNamespaceKey`).
 * Only `config_dump` takes a proxy id among the endpoints such a caller may ask for.
 */
function seenFrom(target: Debuggable, namespace: string): Debuggable {
  return {
    streams: () => inNamespace(target.streams(), namespace),
    get withheld() {
      return target.withheld;
    },
    sentResources: target.sentResources,
  };
}

/**
 * Returns the body of `/debug/<name>` (`name` may carry a query such as `?proxyID=…`), for a
 * caller limited to `callerNamespace` ('' for none).
 */
export function debugEndpointBody(
  target: Debuggable,
): (name: string, callerNamespace?: string) => Promise<Buffer> {
  const allRoutes = debugRoutes(target);
  return async (name, callerNamespace = '') => {
    const routes =
      callerNamespace === '' ? allRoutes : debugRoutes(seenFrom(target, callerNamespace));
    const url = new URL(`/debug/${name}`, 'http://mock-istiod');
    const found = matchRoute(routes, 'GET', url.pathname);
    if (!found || !('route' in found)) return Buffer.from(NOT_FOUND_BODY);
    try {
      const response = await found.route.handle({
        method: 'GET',
        path: url.pathname,
        query: url.searchParams,
        params: found.params,
        body: undefined,
      });
      return bodyBytes(response);
    } catch (err) {
      return Buffer.from(`${err instanceof Error ? err.message : String(err)}\n`);
    }
  };
}
