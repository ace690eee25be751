/**
 * The fault engine of one mock istiod: the faults applied to it, in order, and the response
 * policy they form together (the first active fault in scope with an opinion decides). It
 * is how the control API, the library, the CLI and timelines apply and remove faults.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { ResponseDecision, ResponsePolicy, ResponseQuery } from '../core/policy.js';
import type { Result } from '../util/problems.js';
import { Fault } from './fault.js';
import { SnapshotHistory } from './history.js';
import type { FaultHost, FaultInfo } from './model.js';
import type { FieldOptions } from '../core/fields.js';
import { resolveFault, type ResolvedFault } from './spec.js';

const SEND: ResponseDecision = Object.freeze({ kind: 'send' });

export interface FaultEvents {
  applied: [fault: FaultInfo];
  activated: [fault: FaultInfo];
  done: [fault: FaultInfo];
  removed: [fault: FaultInfo];
}

export interface FaultEngineOptions {
  host: FaultHost;
  logger: Logger;
  controlPlaneId: string;
}

export class FaultEngine implements ResponsePolicy {
  /** Applied, activated, done and removed faults, for logs, metrics and waiters. */
  readonly events = new EventEmitter<FaultEvents>();
  private readonly faults = new Map<string, Fault>();
  private readonly listeners = new Set<() => void>();
  private readonly history = new SnapshotHistory();
  /** Per scenario: how many faults of it got a default id since start or the last `clear()`. */
  private readonly counters = new Map<string, number>();

  constructor(private readonly options: FaultEngineOptions) {
    options.host.events.on('stream-close', (stream) => this.history.forget(stream.connectionId));
  }

  decide(query: ResponseQuery): ResponseDecision {
    this.history.record(query.stream.connectionId, query.snapshot);
    // Most of the time nothing is applied: no iterator for every response of every push.
    if (this.faults.size === 0) return SEND;
    for (const fault of this.faults.values()) {
      if (fault.state !== 'active' || !fault.behaviour.decide) continue;
      if (!fault.inScope(query.stream, query.typeUrl)) continue;
      const decision = fault.behaviour.decide(query);
      if (decision && decision.kind !== 'send') return decision;
    }
    return SEND;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Validates and applies a fault; on problems nothing is applied. */
  async apply(
    input: unknown,
    options: Pick<FieldOptions, 'fromText'> = {},
  ): Promise<Result<FaultInfo>> {
    const resolved = resolveFault(input, '', options);
    return resolved.ok ? this.applyResolved(resolved.value) : resolved;
  }

  /**
   * Applies a fault validated already (by `resolveFault`, as the CLI does with its `--fault`
   * flags before anything listens), so that it is not parsed a second time. The one problem
   * left is an id that is taken.
   */
  async applyResolved(resolved: ResolvedFault): Promise<Result<FaultInfo>> {
    const id = resolved.id ?? this.nextId(resolved.scenario.name);
    if (this.faults.has(id)) {
      return {
        ok: false,
        problems: [{ path: 'id', message: `a fault with id "${id}" is already applied` }],
      };
    }
    const fault = new Fault(id, resolved, {
      host: this.options.host,
      log: this.options.logger,
      history: this.history,
      controlPlaneId: this.options.controlPlaneId,
      changed: () => this.changed(),
      report: (f, what) => this.events.emit(what, f.info()),
    });
    this.faults.set(id, fault);
    this.options.logger.info(
      { fault: id, scenario: fault.resolved.scenario.name },
      'fault applied',
    );
    this.events.emit('applied', fault.info());
    await fault.start();
    return { ok: true, value: fault.info() };
  }

  list(): FaultInfo[] {
    return [...this.faults.values()].map((f) => f.info());
  }

  get(id: string): FaultInfo | undefined {
    return this.faults.get(id)?.info();
  }

  /** Removes a fault and undoes its effect on the server; undefined when there is no such fault. */
  async remove(id: string): Promise<FaultInfo | undefined> {
    const fault = this.faults.get(id);
    if (!fault) return undefined;
    this.faults.delete(id);
    const info = fault.info();
    await fault.remove();
    this.events.emit('removed', info);
    this.options.host.resync();
    this.changed();
    return info;
  }

  /** Removes every fault, and starts the default ids of every scenario again at 1. */
  async clear(): Promise<FaultInfo[]> {
    const removed: FaultInfo[] = [];
    for (const id of [...this.faults.keys()].reverse()) {
      const info = await this.remove(id);
      if (info) removed.push(info);
    }
    this.counters.clear();
    return removed;
  }

  /** Removes the faults that hold responses back (withhold, partial): what was held goes out. */
  release(): FaultInfo[] {
    const holding = [...this.faults.values()].filter((f) => f.resolved.scenario.holds);
    for (const fault of holding) void this.remove(fault.id);
    return holding.map((f) => f.info());
  }

  /** Drops every fault without touching the server (it is closing). */
  dispose(): void {
    for (const fault of this.faults.values()) {
      fault.removed = true;
      fault.dispose();
    }
    this.faults.clear();
  }

  /**
   * `<scenario>-<n>`: n counts the faults of that scenario given a default id since the
   * engine started or was last cleared, so the first `down` is `down-1` whatever else was
   * applied before it. An id in use (one the caller chose) is skipped.
   */
  private nextId(scenario: string): string {
    let n = this.counters.get(scenario) ?? 0;
    let id: string;
    do id = `${scenario}-${++n}`;
    while (this.faults.has(id));
    this.counters.set(scenario, n);
    return id;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
