/**
 * The one implementation of the control operations (`OperationTarget`, src/api/target.ts),
 * written directly over the rooms: the resource sources and their snapshot store, the fault
 * engine, the stream registry, the withhold switch, the journal, the CA and the live page's
 * hub. The HTTP routes, the in-process client (`mock.control`) and the faults (through their
 * narrowed view, `FaultHost`) all run against this one object.
 *
 * The port's transitions (`down`, `up`) run one after another, so a flapping fault and a
 * removal racing it cannot interleave a close and a bind.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ScenarioInfo } from '../api/answers.js';
import { invalid, Refusal } from '../api/operation.js';
import type { OperationTarget } from '../api/target.js';
import type { MockSecurity } from '../ca/security.js';
import { subjectOf } from '../ca/service-account-token.js';
import type { Endpoint } from '../core/endpoint.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { ProxyIdentity } from '../core/identity.js';
import type { WithholdSwitch } from '../core/policy.js';
import type { Snapshot } from '../core/snapshot.js';
import { shortTypeName } from '../core/types/registry.js';
import { FaultEngine } from '../faults/engine.js';
import type { FaultHost, StreamSelector } from '../faults/model.js';
import { describeScenarios } from '../faults/registry.js';
import type { Journal } from '../journal/journal.js';
import { parseAdminAddress } from '../live/ui-admins.js';
import type { UiHub } from '../live/ui-hub.js';
import type { AdsServer } from '../server/ads-server.js';
import type { AdsStream } from '../server/ads-stream.js';
import type { SetPins } from '../snapshot/store.js';
import { matchesGlob } from '../util/glob.js';
import { AckWaiters } from './ack-waiters.js';
import { explainProxies } from './operation-explain.js';
import { changesBySet, describeSets, KEEPS_SERVING, tokenRequest } from './operation-shapes.js';
import { waitForAck, waitForJournal, type WaitParts } from './operation-waits.js';
import type { ResourceSources } from './resource-sources.js';

export const DOWN_MESSAGE = 'mock istiod is down';

/** The rooms the operations act on, as the assembly built them. */
export interface TargetRooms {
  events: ServerEventEmitter;
  resources: ResourceSources;
  withholdSwitch: WithholdSwitch;
  journal: Journal;
  /** The stream registry: every stream the ADS server has open, by connection id. */
  streams: ReadonlyMap<string, AdsStream>;
  ads(): AdsServer;
  /** Where the xDS port was bound (after start). */
  endpoint(): Endpoint;
  /** Whether the server is running (started and not closed). */
  running(): boolean;
  /** The CA, once started. */
  security(): Pick<MockSecurity, 'createToken' | 'rootCert' | 'issueCertificate'>;
  /** The live page's hub: its admin addresses (built after the target). */
  ui(): Pick<UiHub, 'admins' | 'adminsChanged'>;
  /** Aborted on close: what waiting operations listen to. */
  closed: AbortSignal;
  log: Logger;
  controlPlaneId: string;
}

/** The one implementation, as the assembly holds it: the operations' and the faults' face. */
export type MockTarget = OperationTarget & FaultHost & { readonly faults: FaultEngine };

/** A selector that chooses every stream and every type (or none given). */
function isEverything(selector: StreamSelector | undefined): boolean {
  return (
    selector === undefined ||
    (selector.node === undefined &&
      selector.connectionId === undefined &&
      (selector.types === undefined || selector.types.length === 0))
  );
}

export function createOperationTarget(rooms: TargetRooms): MockTarget {
  const { events, resources, withholdSwitch, log } = rooms;
  const store = resources.store;
  let transitions: Promise<void> = Promise.resolve();
  const transition = (step: () => Promise<void>): Promise<void> => {
    const next = transitions.then(step);
    transitions = next.catch(() => undefined);
    return next;
  };
  const select = (selector: StreamSelector): AdsStream[] =>
    [...rooms.streams.values()].filter((stream) => {
      const view = stream.view();
      if (!view) return false;
      if (selector.connectionId !== undefined && view.connectionId !== selector.connectionId)
        return false;
      return matchesGlob(selector.node, view.proxy.nodeId);
    });
  const openStreams = (): StreamView[] =>
    [...rooms.streams.values()].flatMap((s) => s.view() ?? []);
  const currentVersion = (stream: { proxy: ProxyIdentity }, typeUrl: string) => {
    const snapshot = store.snapshotFor(stream.proxy);
    return snapshot.typeUrls().includes(typeUrl) ? snapshot.get(typeUrl).version : undefined;
  };
  const waits: WaitParts = {
    events,
    journalStore: rooms.journal,
    closed: rooms.closed,
    // Late-bound, through the target: what a wait scans is the target's own `openStreams`.
    streams: () => target.openStreams(),
    journal: (filter) => rooms.journal.query(filter),
    currentVersion,
    acks: new AckWaiters({ events, streams: () => target.openStreams(), currentVersion }),
  };
  const resend = (selector: StreamSelector = {}) => {
    const chosen = select(selector);
    for (const stream of chosen) stream.resend(selector.types);
    return chosen.length;
  };
  const serving = () => rooms.running() && rooms.ads().listening;
  const up = () =>
    transition(async () => {
      const ads = rooms.ads();
      if (!rooms.running() || ads.listening) return;
      await ads.listen(rooms.endpoint());
      events.emit('state');
      log.info({ xds: rooms.endpoint() }, 'xDS port open again (up)');
    });
  const target: MockTarget = {
    events,
    get faults() {
      return faults;
    },
    get withheld() {
      return withholdSwitch.withheld;
    },
    get serving() {
      return serving();
    },
    withhold: () => {
      withholdSwitch.withhold();
      events.emit('state');
    },
    release: () => {
      const held = withholdSwitch.release();
      if (held) events.emit('state');
      return faults.release().length > 0 || held;
    },
    openStreams,
    versions: () => {
      const snapshot: Snapshot = store.current();
      return Object.fromEntries(
        snapshot.typeUrls().map((t) => [shortTypeName(t), snapshot.get(t).version]),
      );
    },
    currentVersion,
    waitForAck: (query, signal) => waitForAck(waits, query, signal),
    waitForJournal: (filter, waitMs, signal) => waitForJournal(waits, filter, waitMs, signal),
    push: (selector) => {
      if (isEverything(selector) && store.push().length > 0) return openStreams().length;
      return resend(selector);
    },
    resend,
    resync: () => {
      for (const stream of rooms.streams.values()) stream.onSnapshot();
    },
    disconnect: (selector, code = grpc.status.UNAVAILABLE, message) => {
      const chosen = select(selector);
      for (const stream of chosen) stream.end(code, message ?? 'stream closed by mock istiod');
      return chosen.length;
    },
    down: () =>
      transition(async () => {
        const ads = rooms.ads();
        if (!rooms.running() || !ads.listening) return;
        await ads.close(grpc.status.UNAVAILABLE, DOWN_MESSAGE);
        events.emit('state');
        log.warn({ xds: rooms.endpoint() }, 'xDS port closed: connections are refused (down)');
      }),
    up,
    reset: async () => {
      await faults.clear();
      if (withholdSwitch.release()) events.emit('state');
      await up();
      resources.restore();
      rooms.journal.clear();
    },
    scenarios: () => describeScenarios() as ScenarioInfo[],
    resourceSets: () => describeSets(store.sets()),
    setResources: (list, pins) => {
      const result = resources.setResources(list, pins as SetPins | undefined);
      if (!result.ok) return invalid(KEEPS_SERVING, result.problems);
      return {
        version: result.value.snapshot.version,
        changed: result.value.changed.map(shortTypeName),
        warnings: result.warnings,
      };
    },
    setResourceSets: (sets) => {
      // The store checks every set in depth (name, match, each resource), all or nothing.
      const result = resources.setResourceSets(sets);
      if (!result.ok) return invalid(KEEPS_SERVING, result.problems);
      return { changed: changesBySet(result.value), warnings: result.warnings };
    },
    reloadResources: () => {
      if (resources.status().source === 'api') {
        return new Refusal(409, 'this server does not serve resources from files');
      }
      const result = resources.reload();
      if (!result.ok) {
        return invalid('invalid resource files (the last good sets keep serving)', result.problems);
      }
      return { changed: changesBySet(result.value) };
    },
    resourceStatus: () => resources.status(),
    queryJournal: (filter) => rooms.journal.query(filter),
    journalSinks: () => rooms.journal.sinkStatus(),
    mintToken: (fields) => {
      const request = tokenRequest(fields);
      if (!request.ok) return invalid('invalid token request', request.problems);
      const { token, expiresAt } = rooms.security().createToken(request.value);
      return { token, expiresAt: expiresAt.toISOString(), subject: subjectOf(request.value) };
    },
    issueCertificate: async (fields) => {
      const issuer = rooms.security().issueCertificate;
      if (issuer.cannotSign) return new Refusal(409, issuer.cannotSign);
      const issued = await issuer(fields);
      return issued.ok ? issued.value : invalid('invalid certificate request', issued.problems);
    },
    rootCert: () => rooms.security().rootCert,
    admins: adminsOf(() => rooms.ui()),
    explain: (query) =>
      explainProxies(
        { streams: openStreams, addressOf: (stream) => rooms.ui().admins.addressOf(stream) },
        query,
      ),
  };
  const faults = new FaultEngine({
    host: target,
    logger: log,
    controlPlaneId: rooms.controlPlaneId,
  });
  return target;
}

/** The live page's admin addresses, checked as the API takes them. */
function adminsOf(ui: TargetRooms['ui']): OperationTarget['admins'] {
  return {
    list: () => ui().admins.list(),
    add: (address) => {
      const parsed = parseAdminAddress(address);
      if (!parsed.ok) return invalid('invalid admin address', parsed.problems);
      const admin = ui().admins.add(parsed.value);
      ui().adminsChanged();
      return admin;
    },
    remove: (address) => {
      const parsed = parseAdminAddress(address);
      if (!parsed.ok || !ui().admins.remove(parsed.value)) return false;
      ui().adminsChanged();
      return true;
    },
  };
}

const targets = new WeakMap<object, MockTarget>();

/** Records the target a mock was assembled with (its constructor calls this). */
export function registerTarget(mock: object, target: MockTarget): void {
  targets.set(mock, target);
}

/**
 * The rooms-level target of a mock assembled in this process, for the in-process tools that
 * need more than the wire-shaped `control` (a fault resolved already, carrying its scenario:
 * the CLI's `--fault` flags and timelines, the test helpers' fault handles).
 */
export function targetOf(mock: object): MockTarget {
  const target = targets.get(mock);
  if (!target) throw new TypeError('not a mock istiod assembled by createMockIstiod');
  return target;
}
