/**
 * The live page's rows, built from the same data as the debug endpoints: a proxy's per-type
 * cells come from its `/debug/syncz` entry through `configStatus` — the builder behind
 * `mock-istiod proxy-status` — so the page and the command never disagree.
 */
import type { StreamView } from '../core/events.js';
import { rankedTypes, shortTypeName } from '../core/types/registry.js';
import type { FaultInfo } from '../faults/model.js';
import { matchesGlob } from '../util/glob.js';
import { isProxylessGrpc } from '../core/identity.js';
import { NACK_CATALOGUE } from '../faults/nack-catalogue.js';
import { scenarioNames } from '../faults/registry.js';
import type { JournalEntry } from '../journal/journal.js';
import { configStatus, type ResourceStatus } from '../debug/client-config.js';
import { namespaceOf, syncStatus } from '../debug/debug-views.js';
import type {
  UiCatalogue,
  UiEnvoyState,
  UiFault,
  UiJournalEntry,
  UiProxy,
  UiReady,
  UiSyncStatus,
  UiTypeStatus,
} from './ui-events.js';
import { trimRow } from './ui-trim.js';

/** istioctl's type columns, in its order. */
const COLUMN_TYPES = rankedTypes((t) => t.proxyStatusColumn).map((t) => t.typeUrl);
export const UI_COLUMNS = COLUMN_TYPES.map(shortTypeName);

/** What the pod row shows beside the stream: its readiness probe and its Envoy's admin API. */
export interface ProxyExtras {
  ready: UiReady;
  readyDetail?: string;
  envoy: UiEnvoyState;
}

function syncCell(resource: ResourceStatus | undefined): UiSyncStatus {
  if (!resource) return 'IGNORED';
  const status = configStatus(resource);
  return status === 'NOT_SENT' ? 'NOT SENT' : status;
}

function typeStatus(stream: StreamView, typeUrl: string, resource?: ResourceStatus): UiTypeStatus {
  const state = stream.types.get(typeUrl);
  const { sent, acked, nack } = state ?? {};
  return {
    type: shortTypeName(typeUrl),
    typeUrl,
    status: syncCell(resource),
    names: state === undefined ? [] : state.names === '*' ? '*' : [...state.names],
    ...(sent && {
      sentVersion: sent.version,
      sentNonce: sent.nonce,
      sentAt: sent.at.toISOString(),
    }),
    ...(acked && { ackedVersion: acked.version }),
    ...(nack && {
      nack: { version: nack.version, message: nack.message, at: nack.at.toISOString() },
    }),
  };
}

/** The pod's name: `NAME` metadata, else the part of the proxy id before the namespace. */
export function podName(stream: StreamView): string {
  const name = stream.proxy.metadata.NAME;
  if (typeof name === 'string' && name !== '') return name;
  const dot = stream.proxy.id.indexOf('.');
  return dot < 0 ? stream.proxy.id : stream.proxy.id.slice(0, dot);
}

/** A proxy's row, its texts and lists cut to what the page shows (ui-trim.ts). */
export function proxyRow(stream: StreamView, extras: ProxyExtras): UiProxy {
  const resources = (syncStatus(stream).resources ?? {}) as Record<string, ResourceStatus>;
  const others = [...stream.types.keys()].filter((url) => !COLUMN_TYPES.includes(url));
  return trimRow({
    connectionId: stream.connectionId,
    nodeId: stream.proxy.nodeId,
    proxy: stream.proxy.id,
    name: podName(stream),
    namespace: namespaceOf(stream),
    clusterId: stream.proxy.clusterId,
    istioVersion: stream.proxy.istioVersion,
    protocol: stream.protocol,
    proxyless: isProxylessGrpc(stream.proxy),
    ...(stream.upstream && {
      upstream: { address: stream.upstream.address, connected: stream.upstream.connected },
    }),
    peer: stream.peer,
    connectedAt: stream.connectedAt.toISOString(),
    ...extras,
    types: [...COLUMN_TYPES, ...others].map((url) => typeStatus(stream, url, resources[url])),
  });
}

/** Request kinds that owe the proxy a response. */
const ASKING = new Set(['subscribe', 'reconnect', 'resubscribe']);

/**
 * Whether a request will wait: responses are withheld, or an active `withhold` fault covers
 * its node and type.
 */
export function isWaiting(
  entry: JournalEntry,
  withheld: boolean,
  holding: readonly FaultInfo[],
): boolean {
  if (entry.direction !== 'request' || !ASKING.has(entry.kind)) return false;
  if (withheld) return true;
  return holding.some(
    (fault) =>
      matchesGlob(fault.scope.node, entry.nodeId ?? '') &&
      (fault.scope.types === undefined || fault.scope.types.includes(entry.typeUrl ?? '')),
  );
}

/**
 * Requests in `entries` still waiting: asked while responses are withheld (or held by a
 * fault) now, with no response for their stream and type after them.
 */
export function openRequests(
  entries: readonly JournalEntry[],
  withheld: boolean,
  holding: readonly FaultInfo[],
): Set<number> {
  const open = new Set<number>();
  const answered = new Set<string>();
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as JournalEntry;
    const key = `${entry.connectionId ?? ''} ${entry.typeUrl ?? ''}`;
    if (entry.kind === 'response') answered.add(key);
    else if (!answered.has(key) && isWaiting(entry, withheld, holding)) open.add(entry.seq);
  }
  return open;
}

/** Faults that hold responses while active (the `withhold` scenario). */
export function holdingFaults(faults: readonly FaultInfo[]): FaultInfo[] {
  return faults.filter((fault) => fault.state === 'active' && fault.scenario === 'withhold');
}

/**
 * A journal entry with its type's short name, and the names a request's stream watched; its
 * texts and lists cut to what the page shows (ui-trim.ts).
 */
export function journalRow(
  entry: JournalEntry,
  stream: StreamView | undefined,
  waiting: boolean,
): UiJournalEntry {
  const row: UiJournalEntry = { ...entry };
  if (entry.typeUrl !== undefined) {
    row.type = shortTypeName(entry.typeUrl);
    const names = stream?.types.get(entry.typeUrl)?.names;
    if (entry.direction === 'request' && names !== undefined) {
      row.names = names === '*' ? '*' : [...names];
    }
  }
  if (waiting) row.waiting = true;
  return trimRow(row);
}

export function faultRow(fault: FaultInfo): UiFault {
  return {
    id: fault.id,
    scenario: fault.scenario,
    params: { ...fault.params },
    scope: fault.scope,
    state: fault.state,
    appliedAt: fault.appliedAt,
    ...(fault.activatedAt !== undefined && { activatedAt: fault.activatedAt }),
    ...(fault.doneAt !== undefined && { doneAt: fault.doneAt }),
    ...(fault.reason !== undefined && { reason: fault.reason }),
    counts: fault.counts,
  };
}

export function catalogue(): UiCatalogue {
  return {
    scenarios: scenarioNames(),
    nacks: NACK_CATALOGUE.map((n) => ({
      name: n.name,
      type: shortTypeName(n.typeUrl),
      summary: n.summary,
      envoyError: n.envoyError,
    })),
  };
}
