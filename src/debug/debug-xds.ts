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
 * Who may read what is istiod's rule (debug-access.ts): a stream without a verified identity
 * is refused before it gets here (server/admission.ts), a caller outside istio-system reads
 * only its own namespace's proxies and only three `istio.io/debug` endpoints.
 */
import { GrpcStatus } from '../core/grpc-status.js';
import type {
  DebugAnswer,
  DebugAnswerer,
  DebugRequest,
  DebugResource,
} from '../core/debug-answer.js';
import type { StreamView } from '../core/events.js';
import type { SentType } from '../journal/sent-resources.js';
import { packAnyJson } from '../xds/json.js';
import { CONFIG_DUMP_DEBUG_TYPE, DEBUG_TYPE, SYNCZ_DEBUG_TYPE } from '../xds/type-urls.js';
import { buildConfigDump } from './config-dump.js';
import { clientConfigJson } from './client-config.js';
import { findStream, namespaceOf, sortedStreams, syncStatus } from './debug-views.js';
import { callerNamespaceFilter, debugEndpointRefusal, inNamespace } from './debug-access.js';

/** What the ADS debug answers read; the assembly fills it in. */
export interface DebugXdsSource {
  streams(): StreamView[];
  /** What a stream was last sent, by type URL (`SentResources.get`). */
  sentTo(connectionId: string): ReadonlyMap<string, SentType>;
  /**
   * The body of the `/debug/<name>` endpoint (`name` may carry a query), run in process
   * by the HTTP side (control/debug-endpoint.ts), whatever its status. A `callerNamespace`
   * other than '' limits the proxies a `?proxyID=` may name to that namespace (istiod's
   * `CallerNamespaceKey`).
   */
  endpointBody(name: string, callerNamespace: string): Promise<Uint8Array>;
}

type Json = Record<string, unknown>;

function pack(name: string, json: Json): DebugResource {
  const packed = packAnyJson(json);
  if (!packed.ok) {
    const why = packed.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    throw new Error(`cannot encode ${String(json['@type'])}: ${why}`);
  }
  return { name, typeUrl: packed.value.typeUrl, value: packed.value.bytes };
}

function syncz(target: DebugXdsSource, namespace: string): DebugResource[] {
  return sortedStreams(inNamespace(target.streams(), namespace)).map((stream) =>
    pack(stream.proxy.id, clientConfigJson(syncStatus(stream), namespaceOf(stream))),
  );
}

function configDump(
  target: DebugXdsSource,
  names: readonly string[],
  namespace: string,
): DebugResource[] {
  // istiod answers a malformed request (not exactly one name) with nothing, and a proxy of
  // another namespace than the caller's as one it does not know.
  const [proxyId] = names;
  if (names.length !== 1 || proxyId === undefined) return [];
  const stream = findStream(inNamespace(target.streams(), namespace), proxyId);
  if (!stream) return [];
  const dump = buildConfigDump(target.sentTo(stream.connectionId));
  return dump.configs.map((section) => pack('', section));
}

/** What the answerer needs to know of the mock's options. */
export interface DebugAnswererOptions {
  /** `debugAuth` (istiod's `ENABLE_DEBUG_ENDPOINT_AUTH`): limit callers to their namespace. */
  namespaceAuth: boolean;
}

/** `istio.io/debug`: the body of one `/debug/…` endpoint, if this caller may read it. */
async function endpoint(
  target: DebugXdsSource,
  request: DebugRequest,
  namespace: string,
): Promise<DebugAnswer> {
  const { names, identity } = request;
  const [name] = names;
  if (names.length !== 1 || name === undefined) {
    // istiod's DebugGen wording.
    const message = 'exactly one debug request is required';
    return { ok: false, code: GrpcStatus.INVALID_ARGUMENT, message };
  }
  const refusal = debugEndpointRefusal(identity, name);
  if (refusal) return { ok: false, code: GrpcStatus.PERMISSION_DENIED, message: refusal };
  const body = await target.endpointBody(name, namespace);
  return { ok: true, resources: [{ name, typeUrl: DEBUG_TYPE, value: body }] };
}

/** The answerer the assembly hands to the ADS streams. */
export function createDebugAnswerer(
  target: DebugXdsSource,
  options: DebugAnswererOptions = { namespaceAuth: true },
): DebugAnswerer {
  return async (request): Promise<DebugAnswer> => {
    const namespace = callerNamespaceFilter(request.identity, options.namespaceAuth);
    switch (request.typeUrl) {
      case SYNCZ_DEBUG_TYPE:
        return { ok: true, resources: syncz(target, namespace) };
      case CONFIG_DUMP_DEBUG_TYPE:
        return { ok: true, resources: configDump(target, request.names, namespace) };
      case DEBUG_TYPE:
        return endpoint(target, request, namespace);
      default:
        // Another istio.io/debug/* type istiod does not generate: nothing to send.
        return { ok: true, resources: [] };
    }
  };
}
