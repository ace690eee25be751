/**
 * istiod's debug endpoints on the monitoring port, in istiod's shapes and with its error
 * responses (pilot/pkg/xds/debug.go): `/debug/syncz`, `/debug/connections`, `/debug/adsz`,
 * `/debug/config_dump?proxyID=`, plus the mock's own `/debug/streamz` (the journal is an
 * operation: src/api/ops/journal.ts).
 * `?pretty` indents any of them.
 */
import type { StreamView } from '../core/events.js';
import { buildConfigDump, buildTypedDump } from '../debug/config-dump.js';
import {
  adszView,
  connectionsView,
  findStream,
  namespaceOf,
  sortedStreams,
  syncStatus,
} from '../debug/debug-views.js';
import type { ControlRequest, ControlResponse, Route } from './router.js';
import { streamzView } from '../debug/streamz-view.js';
import type { Debuggable } from './target.js';
import { parseTypeList } from '../core/types/registry.js';
import { problemsResponse } from './responses.js';

// istiod's texts (debug.go, errorHandler), answered as text/plain.
export const NO_PROXY_ID = 'You must provide a proxyID in the query string\n';
export const PROXY_NOT_CONNECTED =
  'Proxy not connected to this Pilot instance. It may be connected to another instance.\n';

function text(status: number, body: string): ControlResponse {
  return { status, body, contentType: 'text/plain; charset=utf-8' };
}

const json = (body: unknown): ControlResponse => ({ status: 200, body });

/** The stream `?proxyID=` names, or istiod's 400 / 404 answer. */
function requireStream(target: Debuggable, request: ControlRequest): StreamView | ControlResponse {
  const proxyId = request.query.get('proxyID') ?? '';
  if (proxyId === '') return text(400, NO_PROXY_ID);
  return findStream(target.streams(), proxyId) ?? text(404, PROXY_NOT_CONNECTED);
}

function configDump(target: Debuggable, request: ControlRequest): ControlResponse {
  const found = requireStream(target, request);
  if (!('proxy' in found)) return found;
  const sent = target.sentResources.get(found.connectionId);
  const types = request.query.get('types');
  if (types) {
    const typeUrls = parseTypeList(types, 'types');
    if (!typeUrls.ok) return problemsResponse('invalid types', typeUrls.problems);
    return json(buildTypedDump(sent, typeUrls.value));
  }
  return json(buildConfigDump(sent, { includeEds: request.query.has('include_eds') }));
}

function adsz(target: Debuggable, request: ControlRequest): ControlResponse {
  const proxyId = request.query.get('proxyID') ?? '';
  if (proxyId === '') return json(adszView(target.streams()));
  const stream = findStream(target.streams(), proxyId);
  return stream ? json(adszView([stream])) : text(404, PROXY_NOT_CONNECTED);
}

function syncz(target: Debuggable, request: ControlRequest): ControlResponse {
  const namespace = request.query.get('namespace') ?? '';
  const streams = sortedStreams(target.streams()).filter(
    (stream) => namespace === '' || namespaceOf(stream) === namespace,
  );
  return json(streams.map(syncStatus));
}

export function debugRoutes(target: Debuggable): Route[] {
  return [
    {
      method: 'GET',
      path: '/debug/syncz',
      summary: 'Synchronization status of all Envoys connected to this mock (?namespace=)',
      handle: (request) => syncz(target, request),
    },
    {
      method: 'GET',
      path: '/debug/connections',
      summary: 'Info about the connected XDS clients',
      handle: () => json(connectionsView(target.streams())),
    },
    {
      method: 'GET',
      path: '/debug/adsz',
      summary: 'Status and debug interface for ADS (?proxyID=)',
      handle: (request) => adsz(target, request),
    },
    {
      method: 'GET',
      path: '/debug/config_dump',
      summary:
        'What a proxy was sent, as an Envoy config dump (?proxyID=, &types=cds,lds, &include_eds)',
      handle: (request) => configDump(target, request),
    },
    {
      method: 'GET',
      path: '/debug/streamz',
      summary:
        "Every stream with its per-type versions, nonces, status and last NACK (mock-istiod's own)",
      handle: () => json(streamzView(target.streams(), target.withheld)),
    },
  ];
}
