/**
 * The parts of the one implementation of the operations (operation-target.ts), each over the
 * rooms it acts on: the streams and the xDS port, the resources, the CA, the live page's admin
 * addresses. Each is only methods, so the target spreads them beside its own getters.
 */
import { GrpcStatus } from '../core/grpc-status.js';
import { invalid, Refusal } from '../api/operation.js';
import type { Profile } from '../core/profile.js';
import type { OperationTarget } from '../api/target.js';
import { subjectOf } from '../ca/service-account-token.js';
import type { Logger } from 'pino';
import type { MockSecurity } from '../ca/security.js';
import type { Endpoint } from '../core/endpoint.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { WithholdSwitch } from '../core/policy.js';
import type { Journal } from '../journal/journal.js';
import type { UiHub } from '../live/ui-hub.js';
import type { AdsServer } from '../server/ads-server.js';
import { shortTypeName } from '../core/types/registry.js';
import type { FaultHost, StreamSelector } from '../faults/model.js';
import { parseAdminAddress } from '../live/ui-admins.js';
import type { AdsStream } from '../server/ads-stream.js';
import type { SetPins } from '../snapshot/store.js';
import { matchesGlob } from '../util/glob.js';
import { changesBySet, describeSets, KEEPS_SERVING, tokenRequest } from './shapes.js';
import type { SnapshotStore } from '../snapshot/store.js';
import type { Result, ResultWithWarnings } from '../util/problems.js';
import type { SnapshotChange } from '../core/snapshot.js';
import type { ResourceStatus } from '../resources/status.js';

export const DOWN_MESSAGE = 'mock istiod is down';

/** Where the served resources come from (app/resource-sources.ts): the store and its sources. */
export interface ResourceRoom {
  readonly store: SnapshotStore;
  setResources(
    resources: readonly unknown[],
    pins?: SetPins,
  ): Promise<ResultWithWarnings<SnapshotChange>>;
  setResourceSets(sets: readonly unknown[]): Promise<ResultWithWarnings<SnapshotChange[]>>;
  reload(): Promise<Result<SnapshotChange[]>>;
  status(): ResourceStatus;
  /** Back to the start-up resources (a reset). */
  restore(): Promise<void>;
}

/** The rooms the operations act on, as the assembly built them. */
export interface TargetRooms {
  events: ServerEventEmitter;
  resources: ResourceRoom;
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
  /** The waits (on an ACK, on a fault, on the journal), over this target's rooms. */
  waits: Pick<OperationTarget, 'waitForAck' | 'waitForFault' | 'waitForJournal'>;
  /** What each proxy's Envoy made of the injection values (its admin API). */
  explain: OperationTarget['explain'];
  log: Logger;
  controlPlaneId: string;
  /** Whose rules the sessions follow (core/profile.ts). */
  profile: Profile;
}

/** A selector that chooses every stream and every type (or none given). */
function isEverything(selector: StreamSelector | undefined): boolean {
  return (
    selector === undefined ||
    (selector.node === undefined &&
      selector.connectionId === undefined &&
      (selector.types === undefined || selector.types.length === 0))
  );
}

type StreamPart = Pick<
  OperationTarget & FaultHost,
  'openStreams' | 'resend' | 'resync' | 'push' | 'disconnect' | 'down' | 'up'
>;

/**
 * The streams and the xDS port. The port's transitions run one after another, so a flapping
 * fault and a removal racing it cannot interleave a close and a bind.
 */
export function streamPart(rooms: TargetRooms): StreamPart {
  const { events, log } = rooms;
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
  const resend = (selector: StreamSelector = {}) => {
    const chosen = select(selector);
    for (const stream of chosen) stream.resend(selector.types);
    return chosen.length;
  };
  return {
    openStreams,
    resend,
    resync: () => {
      for (const stream of rooms.streams.values()) stream.onSnapshot();
    },
    push: (selector) => {
      const pushed = isEverything(selector) && rooms.resources.store.push().length > 0;
      return pushed ? openStreams().length : resend(selector);
    },
    disconnect: (selector, code = GrpcStatus.UNAVAILABLE, message) => {
      const chosen = select(selector);
      for (const stream of chosen) stream.end(code, message ?? 'stream closed by mock istiod');
      return chosen.length;
    },
    down: () =>
      transition(async () => {
        const ads = rooms.ads();
        if (!rooms.running() || !ads.listening) return;
        await ads.close(GrpcStatus.UNAVAILABLE, DOWN_MESSAGE);
        events.emit('state');
        log.warn({ xds: rooms.endpoint() }, 'xDS port closed: connections are refused (down)');
      }),
    up: () =>
      transition(async () => {
        const ads = rooms.ads();
        if (!rooms.running() || ads.listening) return;
        await ads.listen(rooms.endpoint());
        events.emit('state');
        log.info({ xds: rooms.endpoint() }, 'xDS port open again (up)');
      }),
  };
}

/** The resources: the sets served, a change through the API, a reload of the files. */
export function resourcePart(
  rooms: TargetRooms,
): Pick<
  OperationTarget,
  'resourceSets' | 'setResources' | 'setResourceSets' | 'reloadResources' | 'resourceStatus'
> {
  const { resources } = rooms;
  return {
    resourceSets: () => describeSets(resources.store.sets()),
    setResources: async (list, pins) => {
      const result = await resources.setResources(list, pins as SetPins | undefined);
      if (!result.ok) return invalid(KEEPS_SERVING, result.problems);
      return {
        version: result.value.snapshot.version,
        changed: result.value.changed.map(shortTypeName),
        warnings: result.warnings,
      };
    },
    setResourceSets: async (sets) => {
      // The store checks every set in depth (name, match, each resource), all or nothing.
      const result = await resources.setResourceSets(sets);
      if (!result.ok) return invalid(KEEPS_SERVING, result.problems);
      return { changed: changesBySet(result.value), warnings: result.warnings };
    },
    reloadResources: async () => {
      if (resources.status().source === 'api') {
        return new Refusal(409, 'this server does not serve resources from files');
      }
      const result = await resources.reload();
      if (!result.ok) {
        return invalid('invalid resource files (the last good sets keep serving)', result.problems);
      }
      return { changed: changesBySet(result.value) };
    },
    resourceStatus: () => resources.status(),
  };
}

/** The CA: tokens it accepts, certificates it signs, its root. */
export function caPart(
  rooms: TargetRooms,
): Pick<OperationTarget, 'mintToken' | 'issueCertificate' | 'rootCert'> {
  return {
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
  };
}

/** The live page's admin addresses, checked as the API takes them. */
export function adminsOf(ui: TargetRooms['ui']): OperationTarget['admins'] {
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
