/**
 * One applied fault: its lifecycle (armed → active → done, or removed at any point), its
 * trigger, the context its scenario's behaviour works through, and its listing. Everything
 * it registers (server event listeners, timers) is undone when it finishes or is removed.
 */
import type { Logger } from 'pino';
import type { ServerEvents, StreamView } from '../core/events.js';
import { TypeSnapshot } from '../core/snapshot.js';
import { matchesGlob } from '../util/glob.js';
import type { SnapshotHistory } from './history.js';
import type { FaultBehaviour, FaultContext, FaultHost, FaultInfo, FaultState } from './model.js';
import type { ResolvedFault } from './spec.js';
import { displayTypeName } from '../core/types/registry.js';

const REQUEST_KINDS = new Set(['subscribe', 'reconnect', 'resubscribe']);

export interface FaultEnvironment {
  host: FaultHost;
  log: Logger;
  history: SnapshotHistory;
  controlPlaneId: string;
  /** Streams should ask the policy again. */
  changed(): void;
  /** The fault changed state (for listeners of the engine). */
  report(fault: Fault, what: 'activated' | 'done'): void;
}

export class Fault {
  state: FaultState = 'armed';
  removed = false;
  readonly appliedAt = new Date();
  activatedAt: Date | undefined;
  doneAt: Date | undefined;
  reason: string | undefined;
  readonly counts: Record<string, number> = {};
  readonly behaviour: FaultBehaviour;
  private readonly cleanups: (() => void)[] = [];
  private readonly triggerCleanups: (() => void)[] = [];
  private readonly log: Logger;

  constructor(
    readonly id: string,
    readonly resolved: ResolvedFault,
    private readonly env: FaultEnvironment,
  ) {
    this.log = env.log.child({ fault: id, scenario: resolved.scenario.name });
    this.behaviour = resolved.scenario.create(resolved.params, this.context());
  }

  matchesNode(stream: StreamView): boolean {
    return matchesGlob(this.resolved.scope.node, stream.proxy.nodeId);
  }

  inScope(stream: StreamView, typeUrl: string): boolean {
    const types = this.resolved.scope.types;
    return this.matchesNode(stream) && (types === undefined || types.includes(typeUrl));
  }

  /** Starts acting at once, or arms the trigger. */
  async start(): Promise<void> {
    const trigger = this.resolved.trigger;
    if (!trigger) return this.activate();
    const events = this.env.host.events;
    if (trigger.kind === 'after') {
      const timer = setTimeout(() => void this.activate(), trigger.ms);
      this.triggerCleanups.push(() => clearTimeout(timer));
    } else if (trigger.kind === 'afterResponses') {
      let seen = 0;
      const onResponse = (stream: StreamView, response: { typeUrl: string }) => {
        if (this.inScope(stream, response.typeUrl) && ++seen >= trigger.count) void this.activate();
      };
      events.on('response', onResponse);
      this.triggerCleanups.push(() => events.off('response', onResponse));
    } else {
      const onRequest = (stream: StreamView, outcome: ServerEvents['request'][1]) => {
        if (!REQUEST_KINDS.has(outcome.kind) || !('typeUrl' in outcome)) return;
        if (trigger.typeUrl !== undefined && outcome.typeUrl !== trigger.typeUrl) return;
        if (!this.matchesNode(stream) || !matchesGlob(trigger.node, stream.proxy.nodeId)) return;
        void this.activate();
      };
      events.on('request', onRequest);
      this.triggerCleanups.push(() => events.off('request', onRequest));
    }
  }

  /** The trigger fired. The state flips synchronously, so the response being decided sees it. */
  async activate(): Promise<void> {
    if (this.removed || this.state !== 'armed') return;
    this.state = 'active';
    this.activatedAt = new Date();
    for (const cleanup of this.triggerCleanups.splice(0)) cleanup();
    this.log.info('fault active');
    this.env.report(this, 'activated');
    try {
      await this.behaviour.activate?.();
    } catch (err) {
      this.log.error({ err }, 'fault could not act');
      this.finish(`failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.env.changed();
  }

  finish(reason: string): void {
    if (this.removed || this.state === 'done') return;
    this.state = 'done';
    this.doneAt = new Date();
    this.reason = reason;
    this.dispose();
    this.log.info({ reason }, 'fault done');
    this.env.report(this, 'done');
    this.env.changed();
  }

  /** Removal: stop everything, then undo server-level effects if it ever acted. */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    this.dispose();
    this.log.info('fault removed');
    if (this.activatedAt) await this.behaviour.deactivate?.();
  }

  dispose(): void {
    for (const cleanup of [...this.triggerCleanups.splice(0), ...this.cleanups.splice(0)])
      cleanup();
  }

  info(): FaultInfo {
    const { scenario, params, scope, triggerSpec } = this.resolved;
    return {
      id: this.id,
      scenario: scenario.name,
      params,
      scope: {
        ...(scope.node !== undefined ? { node: scope.node } : {}),
        ...(scope.types ? { types: scope.types.map(displayTypeName) } : {}),
      },
      ...(triggerSpec ? { trigger: triggerSpec } : {}),
      state: this.state,
      appliedAt: this.appliedAt.toISOString(),
      ...(this.activatedAt ? { activatedAt: this.activatedAt.toISOString() } : {}),
      ...(this.doneAt ? { doneAt: this.doneAt.toISOString() } : {}),
      ...(this.reason ? { reason: this.reason } : {}),
      counts: { ...this.counts },
    };
  }

  private context(): FaultContext {
    const env = this.env;
    const alive = () => !this.removed && this.state !== 'done';
    return {
      id: this.id,
      host: env.host,
      scope: this.resolved.scope,
      log: this.log,
      history: env.history,
      matchesNode: (stream) => this.matchesNode(stream),
      inScope: (stream, typeUrl) => this.inScope(stream, typeUrl),
      on: (event, listener) => {
        if (!alive()) return;
        env.host.events.on(event, listener as never);
        this.cleanups.push(() => env.host.events.off(event, listener as never));
      },
      setTimeout: (fn, ms) => {
        if (!alive()) return;
        const timer = setTimeout(() => {
          if (alive()) fn();
        }, ms);
        this.cleanups.push(() => clearTimeout(timer));
      },
      changed: () => env.changed(),
      finish: (reason) => this.finish(reason),
      count: (key, by = 1) => {
        this.counts[key] = (this.counts[key] ?? 0) + by;
      },
      makeSnapshot: (typeUrl, version, resources) =>
        new TypeSnapshot(typeUrl, version, resources, env.controlPlaneId),
    };
  }
}
