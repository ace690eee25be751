/**
 * What the control operations run against: the narrow face of a mock istiod that the table's
 * `run`s call. It is implemented once, over the rooms themselves (src/target/operation-target.ts);
 * the HTTP routes and the in-process client (`mock.control`) run operations against that same
 * object, and the faults get a narrowed view of it (`FaultHost`), so none can drift.
 *
 * Answers come back already in their API shape: the shaping lives with the server, so that
 * this floor, which the live page's bundle includes, loads no server code.
 */
import type { Profile } from '../core/profile.js';
import type { StreamView } from '../core/events.js';
import type { FaultHost, FaultInfo, StreamSelector } from '../faults/model.js';
import type { JournalEntry, JournalFilter, JournalSinkStatus } from '../journal/journal.js';
import type { ResourceStatus } from '../resources/status.js';
import type { Result } from '../util/problems.js';
import type {
  AckAwaited,
  AckQuery,
  AdminInfo,
  CertificateFields,
  FaultAwaited,
  FaultQuery,
  IssuedChain,
  Minted,
  ResourcesChanged,
  ScenarioInfo,
  SetInfo,
  SetsChanged,
  TokenFields,
} from './answers.js';
import type { ExplainAnswer, ExplainQuery } from './explain-answers.js';
import type { Refusal } from './refusal.js';

/** The faults applied to the mock: the part of its fault engine the operations use. */
export interface FaultList {
  /** Validates and applies a fault as written (JSON); every problem with its path. */
  apply(input: unknown): Promise<Result<FaultInfo>>;
  list(): FaultInfo[];
  get(id: string): FaultInfo | undefined;
  /** Removes it and undoes what it did; undefined when there is no such fault. */
  remove(id: string): Promise<FaultInfo | undefined>;
  clear(): Promise<FaultInfo[]>;
}

export interface OperationTarget extends Pick<
  FaultHost,
  'openStreams' | 'disconnect' | 'down' | 'up' | 'serving'
> {
  readonly withheld: boolean;
  /** Whose rules the sessions follow: istiod's, or the xDS protocol document's. */
  readonly profile: Profile;
  /** Holds every response until `release()`. */
  withhold(): void;
  /** Lets held responses go (and ends the faults that hold them); true if something was held. */
  release(): boolean;
  /** The version of each type the default set serves now, by istiod's short name. */
  versions(): Record<string, string>;
  /** The version of `typeUrl` the set serving this stream has now. */
  currentVersion(stream: StreamView, typeUrl: string): string | undefined;
  /**
   * Waits until a stream ACKs (or NACKs) the type at the wanted version, for at most
   * `timeoutMs`; a refusal when the time runs out, the mock closes or `signal` aborts (the
   * client went away).
   */
  waitForAck(query: AckQuery, signal?: AbortSignal): Promise<AckAwaited | Refusal>;
  /**
   * Waits until a fault's trigger has fired (or it is done, as `query.until` says), for at
   * most `timeoutMs`; a refusal when there is no such fault, it is removed, the time runs
   * out, the mock closes or `signal` aborts.
   */
  waitForFault(query: FaultQuery, signal?: AbortSignal): Promise<FaultAwaited | Refusal>;
  /**
   * The entries after `filter.since`; when there are none yet, waits up to `waitMs` for one
   * (`[]` when the time runs out or `signal` aborts).
   */
  waitForJournal(
    filter: JournalFilter,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<JournalEntry[]>;
  /**
   * Without a selector, a full push as a config change makes istiod's: every type of every set
   * at one new version. With one (streams, types), the current version is sent again to those
   * only, as istiod's pushes to one proxy do. How many streams.
   */
  push(selector?: StreamSelector): number;
  /** Per-test cleanup: no faults, nothing held, port up, start-up resources, empty journal. */
  reset(): Promise<void>;
  readonly faults: FaultList;
  /** Every fault scenario, with its parameters' JSON Schema. */
  scenarios(): ScenarioInfo[];
  /** The resource sets served, in canonical JSON. */
  resourceSets(): SetInfo[];
  /** `pins`: `{ versions, resourceVersions }` as the body had them, unchecked (the store checks). */
  setResources(
    resources: readonly unknown[],
    pins?: { versions?: unknown; resourceVersions?: unknown },
  ): Promise<ResourcesChanged | Refusal>;
  setResourceSets(sets: readonly unknown[]): Promise<SetsChanged | Refusal>;
  reloadResources(): Promise<SetsChanged | Refusal>;
  resourceStatus(): ResourceStatus;
  queryJournal(filter: JournalFilter): JournalEntry[];
  journalSinks(): JournalSinkStatus[];
  /** Mints a service account token for the CA; its signing key never leaves the mock. */
  mintToken(fields: TokenFields): Minted | Refusal;
  /** A certificate from the CA for a workload identity, as istiod's CA would sign it. */
  issueCertificate(fields: CertificateFields): Promise<IssuedChain | Refusal>;
  /** The CA's root certificate (PEM). */
  rootCert(): string;
  /** The Envoy admin APIs the live page polls. */
  readonly admins: {
    list(): AdminInfo[];
    add(address: string): AdminInfo | Refusal;
    remove(address: string): boolean;
  };
  /**
   * Reads each asked proxy's Envoy config_dump through its admin API and says what each
   * injection value became there (`GET /ui/explain`).
   */
  explain(query: ExplainQuery): Promise<ExplainAnswer | Refusal>;
}
