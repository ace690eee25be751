/**
 * The one implementation of the control operations (`OperationTarget`, src/api/target.ts),
 * written directly over the rooms: the resource sources and their snapshot store, the fault
 * engine, the stream registry, the withhold switch, the journal, the CA and the live page's
 * hub (parts.ts holds its parts; the waits and explain come from the assembly). The HTTP routes, the in-process client
 * (`mock.control`) and the faults (through their narrowed view, `FaultHost`) all run against
 * this one object.
 */
import type { ScenarioInfo } from '../api/answers.js';
import type { OperationTarget } from '../api/target.js';
import type { ProxyIdentity } from '../core/identity.js';
import { FaultEngine } from '../faults/engine.js';
import type { FaultHost } from '../faults/model.js';
import { describeScenarios } from '../faults/registry.js';
import { adminsOf, caPart, resourcePart, streamPart, type TargetRooms } from './parts.js';
import { typeVersions } from './shapes.js';

export { DOWN_MESSAGE, type ResourceRoom, type TargetRooms } from './parts.js';

/** The one implementation, as the assembly holds it: the operations' and the faults' face. */
export type MockTarget = OperationTarget & FaultHost & { readonly faults: FaultEngine };

export function createOperationTarget(rooms: TargetRooms): MockTarget {
  const { events, resources, withholdSwitch } = rooms;
  const store = resources.store;
  // The version the stream's set serves the type at, resources or none: a type the set lacks
  // is still answered (an empty EDS or RDS response, as istiod's), at the push's version. A
  // relayed stream serves what its upstream sent it.
  const currentVersion = (
    stream: { proxy: ProxyIdentity; connectionId: string },
    typeUrl: string,
  ) =>
    (rooms.streams.get(stream.connectionId)?.snapshot() ?? store.snapshotFor(stream.proxy)).get(
      typeUrl,
    ).version;
  const target: MockTarget = {
    events,
    get faults() {
      return faults;
    },
    get withheld() {
      return withholdSwitch.withheld;
    },
    profile: rooms.profile,
    get serving() {
      return rooms.running() && rooms.ads().listening;
    },
    ...streamPart(rooms),
    ...resourcePart(rooms),
    ...caPart(rooms),
    withhold: () => {
      withholdSwitch.withhold();
      events.emit('state');
    },
    release: () => {
      const held = withholdSwitch.release();
      if (held) events.emit('state');
      return faults.release().length > 0 || held;
    },
    reset: async () => {
      await faults.clear();
      if (withholdSwitch.release()) events.emit('state');
      await target.up();
      await resources.restore();
      rooms.journal.clear();
    },
    versions: () => typeVersions(store.current()),
    currentVersion,
    waitForAck: (query, signal) => rooms.waits.waitForAck(query, signal),
    waitForFault: (query, signal) => rooms.waits.waitForFault(query, signal),
    waitForJournal: (filter, waitMs, signal) => rooms.waits.waitForJournal(filter, waitMs, signal),
    queryJournal: (filter) => rooms.journal.query(filter),
    journalSinks: () => rooms.journal.sinkStatus(),
    scenarios: () => describeScenarios() as ScenarioInfo[],
    admins: adminsOf(() => rooms.ui()),
    explain: (query) => rooms.explain(query),
  };
  const faults = new FaultEngine({
    host: target,
    logger: rooms.log,
    controlPlaneId: rooms.controlPlaneId,
  });
  return target;
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
