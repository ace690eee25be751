/**
 * istiod's debug types over ADS, answered from the same data as the HTTP debug endpoints
 * (istio/istio pilot/pkg/xds/statusgen.go and debuggen.go):
 *
 * - `istio.io/debug/syncz`: one `envoy.service.status.v3.ClientConfig` per connected proxy,
 *   named by its proxy id (`<pod>.<namespace>`), built from its `/debug/syncz` entry
 *   (client-config.ts; what `istioctl proxy-status` prints);
 * - `istio.io/debug/config_dump` with one resource name, a proxy id: the sections of that
 *   proxy's config dump, each an unnamed resource (nothing when the name matches no proxy or
 *   the request names more or fewer than one);
 * - `istio.io/debug` with one resource name such as `syncz` or `config_dump?proxyID=…`: the
 *   body of that `/debug/…` endpoint, as raw bytes (`istioctl x internal-debug`).
 *
 * istiod refuses these on a stream without a verified identity (its default
 * `ENABLE_DEBUG_ENDPOINT_AUTH`); the mock answers any stream it accepted (docs/observability.md).
 */
import * as grpc from '@grpc/grpc-js';
import type { DebugAnswer, DebugAnswerer, DebugResource } from '../core/debug-answer.js';
import { packAnyJson } from '../xds/json.js';
import { CONFIG_DUMP_DEBUG_TYPE, DEBUG_TYPE, SYNCZ_DEBUG_TYPE } from '../xds/type-urls.js';
import { buildConfigDump } from './config-dump.js';
import { clientConfigJson } from './client-config.js';
import { findStream, namespaceOf, sortedStreams, syncStatus } from './debug-views.js';
import { debugRoutes } from './debug-routes.js';
import { matchRoute, type ControlResponse } from './router.js';
import type { Debuggable } from './target.js';

type Json = Record<string, unknown>;

/** What Go's net/http answers for a path no handler serves (istioctl looks for this text). */
const NOT_FOUND_BODY = '404 page not found\n';

function pack(name: string, json: Json): DebugResource {
  const packed = packAnyJson(json);
  if (!packed.ok) {
    const why = packed.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    throw new Error(`cannot encode ${String(json['@type'])}: ${why}`);
  }
  return { name, typeUrl: packed.value.typeUrl, value: packed.value.bytes };
}

function syncz(target: Debuggable): DebugResource[] {
  return sortedStreams(target.streams()).map((stream) =>
    pack(stream.proxy.id, clientConfigJson(syncStatus(stream), namespaceOf(stream))),
  );
}

function configDump(target: Debuggable, names: readonly string[]): DebugResource[] {
  // istiod answers a malformed request (not exactly one name) with nothing.
  const [proxyId] = names;
  if (names.length !== 1 || proxyId === undefined) return [];
  const stream = findStream(target.streams(), proxyId);
  if (!stream) return [];
  const dump = buildConfigDump(target.sentResources.get(stream.connectionId));
  return dump.configs.map((section) => pack('', section));
}

function bodyBytes(response: ControlResponse): Buffer {
  const { body } = response;
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
}

/** `istio.io/debug`: runs the `/debug/<name>` endpoint in process and returns its body. */
async function debugEndpoint(target: Debuggable, name: string): Promise<DebugResource[]> {
  const url = new URL(`/debug/${name}`, 'http://mock-istiod');
  const found = matchRoute(debugRoutes(target), 'GET', url.pathname);
  let body: Buffer;
  if (!found || !('route' in found)) body = Buffer.from(NOT_FOUND_BODY);
  else {
    try {
      const response = await found.route.handle({
        method: 'GET',
        path: url.pathname,
        query: url.searchParams,
        params: found.params,
        body: undefined,
      });
      body = bodyBytes(response);
    } catch (err) {
      body = Buffer.from(`${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
  return [{ name, typeUrl: DEBUG_TYPE, value: body }];
}

/** The answerer the assembly hands to the ADS streams. */
export function createDebugAnswerer(target: Debuggable): DebugAnswerer {
  return async ({ typeUrl, names }): Promise<DebugAnswer> => {
    switch (typeUrl) {
      case SYNCZ_DEBUG_TYPE:
        return { ok: true, resources: syncz(target) };
      case CONFIG_DUMP_DEBUG_TYPE:
        return { ok: true, resources: configDump(target, names) };
      case DEBUG_TYPE: {
        const [name] = names;
        if (names.length !== 1 || name === undefined) {
          // istiod's DebugGen wording.
          const message = 'exactly one debug request is required';
          return { ok: false, code: grpc.status.INVALID_ARGUMENT, message };
        }
        return { ok: true, resources: await debugEndpoint(target, name) };
      }
      default:
        // Another istio.io/debug/* type istiod does not generate: nothing to send.
        return { ok: true, resources: [] };
    }
  };
}
