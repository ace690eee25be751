/**
 * The control actions a test suite drives, as one asynchronous interface with two
 * implementations: `localControl(mock)` for a mock in this process, and
 * `connectMockIstiod(url)` (remote.ts) for one elsewhere (a container, another machine) over
 * its control API. A test written against `MockIstiodControl` runs against either.
 */
import type * as grpc from '@grpc/grpc-js';
import type { FaultInfo, FaultSpec, StreamSelector } from '../faults/model.js';
import type { JournalEntry, JournalFilter } from '../journal/journal.js';
import { MockIstiodError } from '../util/errors.js';
import type { Problem } from '../util/problems.js';
import type { TestMockIstiod } from './start.js';
import { shortTypeName } from '../core/types/registry.js';

/** A fault applied through `MockIstiodControl.inject`. */
export interface ControlFault {
  readonly id: string;
  /** Its current listing. */
  info(): Promise<FaultInfo>;
  /** Removes it and undoes what it did (idempotent). */
  remove(): Promise<void>;
}

/** What a replacement of the resources changed, and the references Envoy will reject. */
export interface ResourcesChanged {
  version: string;
  /** Short type names (`CDS`, `LDS`) whose version changed. */
  changed: string[];
  warnings: Problem[];
}

export interface MockIstiodControl {
  /** Holds every response until `release()`. */
  withhold(): Promise<void>;
  /** Lets held responses go; true if something was held. */
  release(): Promise<boolean>;
  /** Sends the current version again to the chosen streams (default: all); how many. */
  push(selector?: Pick<StreamSelector, 'node' | 'types'>): Promise<number>;
  /** Ends the chosen streams (default: all) with a gRPC status (default UNAVAILABLE); how many. */
  disconnect(selector?: { node?: string }, code?: grpc.status, message?: string): Promise<number>;
  /** Closes the xDS port until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Per-test cleanup: no faults, nothing held, port up, start-up resources, empty journal. */
  reset(): Promise<void>;
  /** Applies a fault; throws `MockIstiodError` (`INVALID_FAULT`) naming every bad field. */
  inject(fault: FaultSpec): Promise<ControlFault>;
  /** Applies a fault while `fn` runs and removes it afterwards, even when `fn` throws. */
  withFault<T>(fault: FaultSpec, fn: (fault: ControlFault) => Promise<T> | T): Promise<T>;
  /** The faults applied, with their state and counts. */
  listFaults(): Promise<FaultInfo[]>;
  /** Replaces the resources; throws `INVALID_RESOURCES` naming every problem (nothing changes). */
  setResources(resources: readonly unknown[]): Promise<ResourcesChanged>;
  /** Journal entries, oldest first. */
  journal(filter?: JournalFilter): Promise<JournalEntry[]>;
}

/** Applies `fault` while `fn` runs; shared by both implementations. */
export async function withControlFault<T>(
  control: MockIstiodControl,
  fault: FaultSpec,
  fn: (fault: ControlFault) => Promise<T> | T,
): Promise<T> {
  const handle = await control.inject(fault);
  try {
    return await fn(handle);
  } finally {
    await handle.remove();
  }
}

/** The control interface of a mock running in this process (from `startMockIstiod`). */
export function localControl(mock: TestMockIstiod): MockIstiodControl {
  const control: MockIstiodControl = {
    withhold: () => Promise.resolve(mock.withhold()),
    release: () => Promise.resolve(mock.release()),
    push: (selector) => Promise.resolve(mock.push(selector)),
    disconnect: (selector, code, message) =>
      Promise.resolve(mock.disconnect(selector, code, message)),
    down: () => mock.down(),
    up: () => mock.up(),
    reset: () => mock.reset(),
    inject: async (fault) => {
      const handle = await mock.inject(fault);
      return {
        id: handle.id,
        info: () => Promise.resolve(handle.info()),
        remove: () => handle.remove(),
      };
    },
    withFault: (fault, fn) => withControlFault(control, fault, fn),
    listFaults: () => Promise.resolve(mock.faults.list()),
    setResources: (resources) => {
      const result = mock.setResources(resources);
      if (!result.ok) {
        return Promise.reject(
          MockIstiodError.fromProblems('INVALID_RESOURCES', 'invalid resources', result.problems),
        );
      }
      return Promise.resolve({
        version: result.value.snapshot.version,
        changed: result.value.changed.map(shortTypeName),
        warnings: [...result.warnings],
      });
    },
    journal: (filter) => Promise.resolve(mock.journal(filter)),
  };
  return control;
}
