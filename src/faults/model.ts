/**
 * The fault model. A fault is a named, parameterised scenario applied to a running mock: it
 * sits between each stream's protocol session and the wire (through the server's response
 * policy) and decides, response by response, to hold, delay, replace or end — the session
 * itself stays correct. A fault has a scope (which proxies and which resource types it
 * touches) and an optional trigger (when it starts acting).
 */
import type { Logger } from 'pino';
import type { ServerEventEmitter, ServerEvents, StreamView } from '../core/events.js';
import type { ResponseDecision, ResponseQuery } from '../core/policy.js';
import type { NamedResource } from '../core/snapshot.js';
import type { TypeSnapshot } from '../core/snapshot.js';
import type { Problem } from '../util/problems.js';
import type { SnapshotHistory } from './history.js';
import type { FieldSchemas, FieldValues } from '../core/fields.js';

/** A fault as users write it: in JSON over the API, in YAML timelines, in the library. */
export interface FaultSpec {
  /** The scenario's name (`withhold`, `delay`, `nack`, …): `GET /control/scenarios` lists them. */
  scenario: string;
  /** A name to refer to the fault by (default `<scenario>-<n>`); must be unique. */
  id?: string;
  params?: Record<string, unknown>;
  scope?: {
    /** Node ids the fault touches, as a glob (`sidecar~*~orders-*`); default all. */
    node?: string;
    /** Resource types it touches (`LDS`, or type URLs); default all. */
    types?: string | readonly string[];
  };
  trigger?: TriggerSpec;
}

/** When a fault starts acting; exactly one key. Without a trigger it acts at once. */
export interface TriggerSpec {
  /** This long after it was applied (`5s`, or milliseconds). */
  after?: string | number;
  /** Once this many responses in its scope have been sent (after it was applied). */
  afterResponses?: number;
  /** On the first request in scope; `node` and `type` narrow it ("when node X requests Y"). */
  onRequest?: { node?: string; type?: string };
}

export interface FaultScope {
  node?: string;
  /** Type URLs; undefined means every type. */
  types?: readonly string[];
}

export type FaultTrigger =
  | { kind: 'after'; ms: number }
  | { kind: 'afterResponses'; count: number }
  | { kind: 'onRequest'; node?: string; typeUrl?: string };

/** What a scope may restrict: node and type, node only (the scenario picks its type), or nothing. */
export type ScopeKind = 'node-and-type' | 'node' | 'none';

export type FaultState = 'armed' | 'active' | 'done';

/** A fault as listed by the API and the library. */
export interface FaultInfo {
  id: string;
  scenario: string;
  params: Params;
  scope: { node?: string; types?: string[] };
  trigger?: TriggerSpec;
  /** `armed`: waiting for its trigger; `active`: acting; `done`: spent (kept for inspection). */
  state: FaultState;
  appliedAt: string;
  activatedAt?: string;
  doneAt?: string;
  /** Why it is done (for example `reset 1 stream (times: 1)`). */
  reason?: string;
  /** What it did so far: responses held, delayed, replaced; streams ended; NACKs seen … */
  counts: Record<string, number>;
}

/**
 * The server operations faults use: a narrowed view of the one implementation of the control
 * operations (`OperationTarget`, src/api/target.ts, extends it), not a second one.
 */
export interface FaultHost {
  readonly events: ServerEventEmitter;
  /** The streams open now. */
  openStreams(): StreamView[];
  /** Sends the current version of `types` again to the chosen streams; returns how many. */
  resend(selector?: StreamSelector): number;
  /** Owes each stream every type whose last response differs from the current version. */
  resync(): void;
  /** Ends the chosen streams with a gRPC status (default UNAVAILABLE); returns how many. */
  disconnect(selector: StreamSelector, code?: number, message?: string): number;
  /** Closes the xDS port (connections refused); streams end with UNAVAILABLE. */
  down(): Promise<void>;
  /** Opens the xDS port again on the same address; the resource versions are kept. */
  up(): Promise<void>;
  /** Whether the xDS port accepts connections. */
  readonly serving: boolean;
}

export interface StreamSelector {
  /** Node-id glob. */
  node?: string;
  connectionId?: string;
  /** Type URLs (push only); default every subscribed type. */
  types?: readonly string[];
}

/** What a scenario's behaviour may use; everything it registers is undone on removal. */
export interface FaultContext {
  readonly id: string;
  readonly host: FaultHost;
  readonly scope: FaultScope;
  readonly log: Logger;
  readonly history: SnapshotHistory;
  /** True when the stream's node is in scope. */
  matchesNode(stream: StreamView): boolean;
  /** True when the stream's node and the type are in scope. */
  inScope(stream: StreamView, typeUrl: string): boolean;
  /** Listens to a server event while the fault exists. */
  on<E extends keyof ServerEvents>(event: E, listener: (...args: ServerEvents[E]) => void): void;
  /** A timer cleared when the fault is removed. */
  setTimeout(fn: () => void, ms: number): void;
  /** Tells every stream that held responses may now pass (asks the policy again). */
  changed(): void;
  /** Marks the fault spent: it stays listed but decides nothing more. */
  finish(reason: string): void;
  /** Adds to one of the counts shown in the listing. */
  count(key: string, by?: number): void;
  /** A snapshot of one type with these resources, for `replace` decisions. */
  makeSnapshot(
    typeUrl: string,
    version: string,
    resources: ReadonlyMap<string, NamedResource>,
  ): TypeSnapshot;
}

/** What a scenario does once created for one fault. */
export interface FaultBehaviour {
  /** Called when the trigger fires (at once without a trigger). */
  activate?(): void | Promise<void>;
  /** Asked before each response in scope while active; undefined means "no opinion". */
  decide?(query: ResponseQuery): ResponseDecision | undefined;
  /** Called on removal: undo server-level effects (for example bring the port back up). */
  deactivate?(): void | Promise<void>;
}

/** A fault's parameters once validated against its scenario's schemas. */
export type Params = Readonly<Record<string, unknown>>;

/**
 * A scenario. `P` is its parameters' schemas: `create` and `check` get the validated values
 * with their types inferred from them (core/fields.ts), so a scenario never casts a parameter.
 */
export interface ScenarioDefinition<P extends FieldSchemas = FieldSchemas> {
  name: string;
  /** One line for listings. */
  summary: string;
  params: P;
  scope: ScopeKind;
  /** Whether `release()` ends it (it holds responses back). */
  holds: boolean;
  /** Checks across parameters, after each was validated on its own. */
  check?(params: FieldValues<P>): Problem[];
  create(params: FieldValues<P>, ctx: FaultContext): FaultBehaviour;
  /** More to publish in the listing (for example the nack catalogue). */
  describe?(): Record<string, unknown>;
}

/**
 * Declares a scenario with its parameters' types inferred from their schemas. The registry
 * holds scenarios of every shape; it only ever passes a scenario the values its own schemas
 * validated (spec.ts), which is what makes the widening safe.
 */
export function defineScenario<const P extends FieldSchemas>(
  scenario: ScenarioDefinition<P>,
): ScenarioDefinition {
  return scenario;
}
