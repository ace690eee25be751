/**
 * A mock istiod, assembled: snapshot store → per-stream sessions → response policy → wire, plus the
 * HTTP control API. `createMockIstiod()` builds it without listening; `start()` binds (port
 * 0 picks free ports); `close()` is idempotent and closes in reverse order.
 */
import * as grpc from '@grpc/grpc-js';
import { createControlServer, type ControlServer } from '../control/control-server.js';
import { allRoutes } from '../control/routes.js';
import { createSnapshotStore, type SnapshotChange, type SnapshotStore } from '../snapshot/store.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import {
  attachJournal,
  Journal,
  type JournalEntry,
  type JournalFilter,
} from '../journal/journal.js';
import type { Result } from '../xds/problems.js';
import { createAdsServer, type AdsServer } from './ads-server.js';
import { MockIstiodError } from './errors.js';
import { ServerEventEmitter, type StreamView } from './events.js';
import {
  combinePolicies,
  createWithholdSwitch,
  type ResponsePolicy,
  type WithholdSwitch,
} from './policy.js';
import { resolveOptions, type Endpoint, type MockIstiodOptions } from './options.js';
import type { AdsStream } from './ads-stream.js';

export interface StartedAddresses {
  xds: Endpoint;
  control: Endpoint | undefined;
}

export interface MockIstiod {
  start(): Promise<StartedAddresses>;
  /** `host:port` of the ADS server (after start). */
  readonly xdsAddress: string;
  readonly addresses: StartedAddresses;
  readonly events: ServerEventEmitter;
  /** Replaces the resource set; on problems nothing changes and the last good set keeps serving. */
  setResources(resources: readonly unknown[]): Result<SnapshotChange>;
  snapshot(): Snapshot;
  /** Holds every response until `release()`. */
  withhold(): void;
  /** Lets held responses go (each stream gets the current version); true if something was held. */
  release(): boolean;
  readonly withheld: boolean;
  streams(): StreamView[];
  /** Every request and response so far (bounded: the oldest entries drop first). */
  journal(filter?: JournalFilter): JournalEntry[];
  /** The journal itself, to add sinks (e.g. a JSONL file) or clear it. */
  readonly journalStore: Journal;
  close(): Promise<void>;
}

export function createMockIstiod(partial: Partial<MockIstiodOptions> = {}): MockIstiod {
  const resolved = resolveOptions(partial);
  if (!resolved.ok)
    throw MockIstiodError.fromProblems('INVALID_OPTIONS', 'invalid options', resolved.problems);
  const options = resolved.value;
  const created = createSnapshotStore(options.resources, {
    clock: options.clock,
    controlPlaneId: options.controlPlaneId,
  });
  if (!created.ok) {
    throw MockIstiodError.fromProblems('INVALID_RESOURCES', 'invalid resources', created.problems);
  }
  return new MockIstiodImpl(options, created.value, createWithholdSwitch(options.withholdFirst));
}

class MockIstiodImpl implements MockIstiod {
  readonly events = new ServerEventEmitter();
  readonly journalStore: Journal;
  private readonly streamsById = new Map<string, AdsStream>();
  private readonly ads: AdsServer;
  private readonly policy: ResponsePolicy;
  private control: ControlServer | undefined;
  private started: StartedAddresses | undefined;
  private state: 'new' | 'starting' | 'running' | 'closed' = 'new';
  private counter = 0;

  constructor(
    private readonly options: MockIstiodOptions,
    private readonly store: SnapshotStore,
    private readonly withholdSwitch: WithholdSwitch,
  ) {
    const log = options.logger;
    this.policy = combinePolicies(withholdSwitch, ...options.policies);
    this.journalStore = new Journal(options.journalSize);
    attachJournal(this.journalStore, this.events);
    this.ads = createAdsServer(
      {
        snapshotFor: () => store.current(),
        policy: this.policy,
        controlPlaneId: options.controlPlaneId,
        events: this.events,
        log,
        connectionId: (proxyId) => `${proxyId}-${++this.counter}`,
        register: (stream) => this.streamsById.set(stream.connectionId, stream),
        unregister: (stream) => this.streamsById.delete(stream.connectionId),
      },
      () => this.streamsById.values(),
    );
    store.onChange((change) => {
      log.info(
        { version: change.snapshot.version, changed: change.changed },
        'resources changed: pushing',
      );
      for (const stream of this.streamsById.values()) stream.onSnapshot();
    });
    this.policy.onChange(() => {
      for (const stream of this.streamsById.values()) stream.flush();
    });
  }

  get addresses(): StartedAddresses {
    if (!this.started) throw new MockIstiodError('NOT_STARTED', 'mock istiod is not started');
    return this.started;
  }

  get xdsAddress(): string {
    const { host, port } = this.addresses.xds;
    return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  }

  get withheld(): boolean {
    return this.withholdSwitch.withheld;
  }

  async start(): Promise<StartedAddresses> {
    if (this.state !== 'new')
      throw new MockIstiodError('CLOSED', `cannot start: mock istiod is ${this.state}`);
    this.state = 'starting';
    try {
      const xdsPort = await this.ads.listen(this.options.xds);
      let control: Endpoint | undefined;
      if (this.options.control) {
        this.control = createControlServer(allRoutes(this), this.options.logger);
        control = {
          host: this.options.control.host,
          port: await this.control.listen(this.options.control),
        };
      }
      this.started = { xds: { host: this.options.xds.host, port: xdsPort }, control };
      this.state = 'running';
      this.options.logger.info({ xds: this.xdsAddress, control }, 'mock istiod is serving');
      return this.started;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  setResources(resources: readonly unknown[]): Result<SnapshotChange> {
    return this.store.set(resources);
  }

  snapshot(): Snapshot {
    return this.store.current();
  }

  withhold(): void {
    this.withholdSwitch.withhold();
  }

  release(): boolean {
    return this.withholdSwitch.release();
  }

  journal(filter?: JournalFilter): JournalEntry[] {
    return this.journalStore.query(filter);
  }

  streams(): StreamView[] {
    return [...this.streamsById.values()].flatMap((s) => s.view() ?? []);
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    await this.control?.close();
    await this.ads.close(grpc.status.UNAVAILABLE, 'mock istiod is shutting down');
    this.options.logger.info('mock istiod closed');
  }
}
