/**
 * The control actions a user drives, as one asynchronous interface with two ways to reach a
 * mock: `mock.control` for a mock in this process, and `connectMockIstiod(url)`
 * (src/testing/remote.ts) for one elsewhere (a container, another machine) over its control
 * API. Both have one method per control operation (table.ts), named as the operation, taking
 * its input as its HTTP request carries it and resolving with its answer; a refusal throws
 * `MockIstiodError` (`CONTROL_REFUSED`, with `details.status` and every problem) in both. A
 * test written against `MockIstiodControl` runs against either.
 */
import type { FaultInfo, FaultSpec } from '../faults/model.js';
import { isMockIstiodError } from '../util/errors.js';
import { operationMethods, runInProcess, type OperationMethods } from './methods.js';
import type { OperationTarget } from './target.js';

/** A fault applied through `MockIstiodControl.inject`. */
export interface ControlFault {
  readonly id: string;
  /** Its current listing (the last one once removed). */
  info(): Promise<FaultInfo>;
  /**
   * Resolves with its listing once its trigger has fired (at once if it has none, or it has
   * fired already); `WAIT_TIMEOUT` past `timeoutMs` (default 10 s).
   */
  whenActive(options?: { timeoutMs?: number }): Promise<FaultInfo>;
  /** Resolves with its listing once it has ended (`state: done`); `WAIT_TIMEOUT` past the time. */
  whenDone(options?: { timeoutMs?: number }): Promise<FaultInfo>;
  /** Removes it and undoes what it did (idempotent). */
  remove(): Promise<void>;
}

export interface MockIstiodControl extends OperationMethods {
  /** Applies a fault (`applyFault`) and returns a handle to it. */
  inject(fault: FaultSpec): Promise<ControlFault>;
  /** Applies a fault while `fn` runs and removes it afterwards, even when `fn` throws. */
  withFault<T>(fault: FaultSpec, fn: (fault: ControlFault) => Promise<T> | T): Promise<T>;
}

/** Adds the fault handles to a set of operation methods; shared by both ways. */
export function withFaultHandles(methods: OperationMethods): MockIstiodControl {
  const handle = (applied: FaultInfo): ControlFault => {
    const { id } = applied;
    let last = applied;
    const wait = async (until: 'active' | 'done', timeoutMs = 10_000) =>
      (last = (await methods.waitForFault({ id, until, timeout: timeoutMs })).fault);
    return {
      id,
      info: async () => {
        // Once removed, its last listing: what it did before it went.
        const now = await methods.getFault({ id }).catch((err: unknown) => {
          if (isGone(err)) return { fault: last };
          throw err;
        });
        return (last = now.fault);
      },
      whenActive: (options = {}) => wait('active', options.timeoutMs),
      whenDone: (options = {}) => wait('done', options.timeoutMs),
      remove: async () => {
        // Removing twice is fine: a 404 means it is gone already.
        const removed = await methods.removeFault({ id }).catch((err: unknown) => {
          if (isGone(err)) return undefined;
          throw err;
        });
        if (removed) last = removed.removed;
      },
    };
  };
  const control: MockIstiodControl = {
    ...methods,
    inject: async (fault) => handle((await methods.applyFault(fault)).fault),
    withFault: async (fault, fn) => {
      const applied = await control.inject(fault);
      try {
        return await fn(applied);
      } finally {
        await applied.remove();
      }
    },
  };
  return control;
}

/** A refusal saying there is no such fault (any more). */
function isGone(err: unknown): boolean {
  return isMockIstiodError(err, 'CONTROL_REFUSED') && err.details.status === 404;
}

/** The control interface over a target in this process: each operation run in place. */
export function inProcessControl(target: OperationTarget): MockIstiodControl {
  return withFaultHandles(operationMethods((op, input) => runInProcess(op, target, input)));
}
