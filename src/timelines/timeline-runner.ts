/**
 * Replays a timeline against a running mock istiod. Times count from when the run starts
 * (`start: serve`) or from the first stream that opens (`start: first-stream`, so a class can
 * start Envoy whenever it likes). Each step is logged with its note.
 */
import type { Logger } from 'pino';
import pino from 'pino';
import type { OperationTarget } from '../api/target.js';
import type { ServerEventEmitter } from '../core/events.js';
import type { FaultEngine } from '../faults/engine.js';
import { formatProblems } from '../util/problems.js';
import type { Timeline, TimelineAction } from './timeline.js';
import { Refusal, type Operation } from '../api/operation.js';
import { operationNamed } from '../api/table.js';

export interface TimelineRun {
  /** Resolves when the last step has run (or the run was stopped). */
  readonly done: Promise<void>;
  /** Stops before the next step; faults already applied stay applied. */
  stop(): void;
}

/**
 * What a timeline acts on: the control operations, the server's events (a `first-stream`
 * timeline starts at the first `stream-open`), and the fault engine, which takes the faults
 * the timeline resolved when it was read.
 */
export type TimelineTarget = OperationTarget & {
  readonly events: ServerEventEmitter;
  readonly faults: Pick<FaultEngine, 'applyResolved' | 'remove'>;
};

type Target = TimelineTarget;

/** Sleeping between steps, and waking early when the run is stopped. */
class Clock {
  stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }

  /** Resolves `resolve` on stop (used while waiting for the first stream). */
  onStop(resolve: () => void): void {
    this.wake = resolve;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.wake?.();
  }
}

export function runTimeline(
  target: TimelineTarget,
  timeline: Timeline,
  logger?: Logger,
): TimelineRun {
  const log = (logger ?? pino({ level: 'silent' })).child({
    timeline: timeline.name ?? 'timeline',
  });
  const clock = new Clock();
  let onOpen: (() => void) | undefined;
  const done =
    timeline.start === 'serve'
      ? runSteps(target, timeline, clock, log)
      : new Promise<void>((resolve, reject) => {
          onOpen = () => void runSteps(target, timeline, clock, log).then(resolve, reject);
          clock.onStop(resolve);
          target.events.once('stream-open', onOpen);
        });
  return {
    done,
    stop() {
      if (onOpen) target.events.off('stream-open', onOpen);
      clock.stop();
    },
  };
}

/**
 * Steps due at the same moment start back to back, in file order and synchronously: the
 * steps at 0s of a `first-stream` timeline are in place before that stream's first response
 * is decided. A later step starts once the earlier ones have finished.
 */
async function runSteps(target: Target, timeline: Timeline, clock: Clock, log: Logger) {
  const t0 = Date.now();
  log.info({ steps: timeline.steps.length }, 'timeline started');
  let running: Promise<void>[] = [];
  for (const [index, step] of timeline.steps.entries()) {
    if (t0 + step.at > Date.now()) {
      await Promise.all(running);
      running = [];
      const wait = t0 + step.at - Date.now();
      if (wait > 0) await clock.sleep(wait);
    }
    if (clock.stopped) return;
    const { kind } = step.action;
    log.info({ step: index, at: step.at, action: kind }, step.note ?? `timeline step ${index}`);
    running.push(
      perform(target, step.action).catch((err: unknown) =>
        log.error({ err, step: index }, 'timeline step failed'),
      ),
    );
  }
  await Promise.all(running);
  log.info('timeline finished');
}

async function perform(target: Target, action: TimelineAction): Promise<void> {
  switch (action.kind) {
    case 'fault': {
      const applied = await target.faults.applyResolved(action.fault);
      if (!applied.ok) throw new Error(formatProblems(applied.problems));
      return;
    }
    case 'remove':
      await target.faults.remove(action.id);
      return;
    case 'operation': {
      const op = operationNamed(action.name) as Operation;
      const output = await op.run(target, action.input);
      if (output instanceof Refusal) throw new Error(output.error);
    }
  }
}
