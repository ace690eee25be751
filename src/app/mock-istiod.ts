/**
 * A mock istiod, assembled: snapshot store → per-stream sessions → response policy → wire, plus the
 * HTTP control API. `createMockIstiod()` builds it without listening; `start()` binds (port
 * 0 picks free ports); `close()` is idempotent and closes in reverse order.
 */
import * as grpc from '@grpc/grpc-js';
import { createControlServer, type ControlServer } from '../control/control-server.js';
import { allRoutes } from '../control/routes.js';
import type { Debuggable } from '../control/target.js';
import { createDebugAnswerer } from '../debug/debug-xds.js';
import type { SetPins, SnapshotStore, StoredSet } from '../snapshot/store.js';
import type { ResourceSetSpec } from '../snapshot/validated-set.js';
import { attachCollisionWarnings } from './collisions.js';
import { createResourceSources, type ResourceSources } from './resource-sources.js';
import type { ResourceStatus } from '../resources/status.js';
import type { Snapshot, SnapshotChange } from '../core/snapshot.js';
import {
  attachJournal,
  Journal,
  type JournalEntry,
  type JournalFilter,
  type JournalSinkStatus,
} from '../journal/journal.js';
import type { Result, ResultWithWarnings } from '../util/problems.js';
import { createXdsMetrics, type XdsMetrics } from '../metrics/metrics.js';
import { SentResources } from '../journal/sent-resources.js';
import { createAdsServer, type AdsServer } from '../server/ads-server.js';
import { createStreamRateLimiter } from '../server/stream-rate-limit.js';
import { MockIstiodError } from '../util/errors.js';
import { ServerEventEmitter, type StreamView } from '../core/events.js';
import {
  combinePolicies,
  createWithholdSwitch,
  type ResponsePolicy,
  type WithholdSwitch,
} from '../core/policy.js';
import type { Lang } from '../util/lang.js';
import { resolveOptions, type MockIstiodOptions, type ResolvedOptions } from './options.js';
import { formatEndpoint, type Endpoint } from '../core/endpoint.js';
import type { MockIstiod, StartedAddresses } from './mock-istiod-api.js';
import type { AdsStream } from '../server/ads-stream.js';
import { FaultEngine } from '../faults/engine.js';
import { createFaultHost } from './fault-host.js';
import {
  debuggable,
  debugXdsSource,
  metricsSources,
  uiTarget,
  type ServerState,
} from './room-views.js';
import type { FaultHost, StreamSelector } from '../faults/model.js';
import { UiHub } from '../live/ui-hub.js';
import { createOperationTarget } from './operation-target.js';
import type { OperationTarget } from '../api/target.js';
import { prepareSecurity, type MockSecurity, type PreparedSecurity } from '../ca/security.js';

export function createMockIstiod(partial: Partial<MockIstiodOptions> = {}): MockIstiod {
  const resolved = resolveOptions(partial);
  if (!resolved.ok)
    throw MockIstiodError.fromProblems('INVALID_OPTIONS', 'invalid options', resolved.problems);
  const options = resolved.value;
  const events = new ServerEventEmitter();
  const resources = createResourceSources(options, events);
  return new MockIstiodImpl(
    options,
    events,
    resources,
    createWithholdSwitch(options.withholdFirst),
  );
}

class MockIstiodImpl implements MockIstiod {
  readonly journalStore: Journal;
  readonly metrics: XdsMetrics;
  readonly sentResources: SentResources;
  readonly faults: FaultEngine;
  /** The live page's events; it listens to the server only while a page is open. */
  readonly ui: UiHub;
  readonly operations: OperationTarget;
  /** What istiod's debug views read (over HTTP and over ADS). */
  private readonly debug: Debuggable;
  private readonly host: FaultHost;
  private readonly streamsById = new Map<string, AdsStream>();
  private readonly ads: AdsServer;
  private readonly policy: ResponsePolicy;
  private control: ControlServer | undefined;
  private started: StartedAddresses | undefined;
  private state: 'new' | 'starting' | 'running' | 'closed' = 'new';
  private counter = 0;
  private prepared: PreparedSecurity | undefined;
  private readonly store: SnapshotStore;
  /** Aborted by close(): what waiting control operations listen to. */
  private readonly closing = new AbortController();

  constructor(
    private readonly options: ResolvedOptions,
    readonly events: ServerEventEmitter,
    private readonly resources: ResourceSources,
    private readonly withholdSwitch: WithholdSwitch,
  ) {
    const log = options.logger;
    const store = (this.store = resources.store);
    this.host = createFaultHost({
      ads: () => this.ads,
      streams: () => this.streamsById.values(),
      events: this.events,
      snapshot: () => store.current(),
      endpoint: () => this.addresses.xds,
      running: () => this.state === 'running',
      log,
    });
    this.faults = new FaultEngine({
      host: this.host,
      logger: log,
      controlPlaneId: options.controlPlaneId,
    });
    this.policy = combinePolicies(withholdSwitch, this.faults, ...options.policies);
    this.journalStore = new Journal(options.journalSize, options.journalMaxBytes);
    attachJournal(this.journalStore, this.events);
    const state: ServerState = {
      events: this.events,
      journal: this.journalStore,
      withholdSwitch,
      streams: () => this.streams(),
    };
    this.metrics = createXdsMetrics(this.events, metricsSources(state), {
      labelMaxLength: options.metricLabelMaxLength,
      seriesMax: options.metricSeriesMax,
    });
    this.faults.events.on('applied', (fault) => this.metrics.faultApplied(fault.scenario));
    this.sentResources = new SentResources(this.events);
    this.debug = debuggable(state, this.sentResources);
    this.ads = createAdsServer(
      {
        snapshotFor: (proxy) => store.snapshotFor(proxy),
        policy: this.policy,
        controlPlaneId: options.controlPlaneId,
        // The per-type scheme is the mock's former one as a whole, delta content versions and
        // versioned reconnects included.
        deltaResourceVersions: options.deltaResourceVersions || options.versioning === 'per-type',
        omitMissingResources: options.omitMissingResources,
        maxSubscriptions: options.maxSubscriptions,
        events: this.events,
        log,
        connectionId: (proxyId) => `${proxyId}-${++this.counter}`,
        register: (stream) => this.streamsById.set(stream.connectionId, stream),
        unregister: (stream) => this.streamsById.delete(stream.connectionId),
        debug: createDebugAnswerer(debugXdsSource(state, this.sentResources), {
          namespaceAuth: options.debugAuth,
        }),
        debugAuth: options.debugAuth,
        ambient: options.ambient,
        nackTextMax: options.nackTextMax,
        authenticate: (credentials) =>
          this.prepared?.authenticate?.(credentials) ?? { ok: true, identities: [] },
      },
      () => this.streamsById.values(),
      options.maxStreamsPerSecond > 0
        ? createStreamRateLimiter(options.maxStreamsPerSecond)
        : undefined,
    );
    store.onChange((change) => {
      // Before the streams push, so that listeners see the change before its responses.
      this.events.emit('snapshot', {
        version: change.snapshot.version,
        changed: change.changed,
        at: new Date(),
      });
      log.info(
        { version: change.snapshot.version, changed: change.changed },
        'resources changed: pushing',
      );
      for (const stream of this.streamsById.values()) stream.onSnapshot();
    });
    attachCollisionWarnings(this.events, log);
    this.policy.onChange(() => {
      for (const stream of this.streamsById.values()) stream.flush();
    });
    this.ui = new UiHub(uiTarget(state, this.faults, this.host), {
      lang: options.lang,
      onError: (what, err) => log.error({ err }, `live page: ${what} failed; it goes on`),
      addresses: () => {
        const started = this.started;
        if (!started) return {};
        return {
          xds: formatEndpoint(started.xds),
          ...(started.control && { control: formatEndpoint(started.control) }),
        };
      },
    });
    this.operations = createOperationTarget({
      mock: this,
      security: () => this.security,
      ui: this.ui,
      snapshot: () => store.current(),
      snapshotFor: (proxy) => store.snapshotFor(proxy),
      waits: { events: this.events, journalStore: this.journalStore, closed: this.closing.signal },
    });
  }

  get addresses(): StartedAddresses {
    if (!this.started) throw new MockIstiodError('NOT_STARTED', 'mock istiod is not started');
    return this.started;
  }

  get xdsAddress(): string {
    return formatEndpoint(this.addresses.xds);
  }

  get security(): MockSecurity {
    if (!this.prepared) throw new MockIstiodError('NOT_STARTED', 'mock istiod is not started');
    return this.prepared;
  }

  get withheld(): boolean {
    return this.withholdSwitch.withheld;
  }

  get lang(): Lang {
    return this.options.lang;
  }

  async start(): Promise<StartedAddresses> {
    if (this.state !== 'new')
      throw new MockIstiodError('CLOSED', `cannot start: mock istiod is ${this.state}`);
    this.state = 'starting';
    try {
      const security = await prepareSecurity(this.options.security, this.options.logger, {
        onRefused: (r) => this.events.emit('auth-refused', r),
        onCsr: (outcome) => this.events.emit('csr', outcome),
      });
      this.prepared = security;
      const xdsPort = await this.ads.listen(this.options.xds, {
        credentials: security.credentials,
        services: [security.caService],
      });
      let control: Endpoint | undefined;
      if (this.options.control) {
        const routes = allRoutes({
          operations: this.operations,
          debug: this.debug,
          metrics: { metrics: this.metrics },
          ui: { ui: this.ui },
        });
        this.control = createControlServer(routes, this.options.logger, {
          token: this.options.controlToken,
          allowedHosts: this.options.controlAllowedHosts,
        });
        control = {
          host: this.options.control.host,
          port: await this.control.listen(this.options.control),
        };
      }
      this.started = { xds: { host: this.options.xds.host, port: xdsPort }, control };
      this.state = 'running';
      if (this.options.watchResources) this.resources.watch(this.options.resourcesQuietMs);
      this.options.logger.info({ xds: this.xdsAddress, control }, 'mock istiod is serving');
      if (security.tls) {
        this.options.logger.info(
          { rootCert: security.rootCertPath },
          "xDS is served over TLS: Envoy's validation_context must trust the root certificate",
        );
      }
      return this.started;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  setResources(resources: readonly unknown[], pins?: SetPins): ResultWithWarnings<SnapshotChange> {
    return this.resources.setResources(resources, pins);
  }

  setResourceSets(sets: readonly ResourceSetSpec[]): ResultWithWarnings<SnapshotChange[]> {
    return this.resources.setResourceSets(sets);
  }

  resourceSets(): readonly StoredSet[] {
    return this.store.sets();
  }

  reloadResources(): Result<SnapshotChange[]> {
    return this.resources.reload();
  }

  resourceStatus(): ResourceStatus {
    return this.resources.status();
  }

  snapshot(): Snapshot {
    return this.store.current();
  }

  withhold(): void {
    this.withholdSwitch.withhold();
    this.events.emit('state');
  }

  release(): boolean {
    const held = this.withholdSwitch.release();
    if (held) this.events.emit('state');
    return this.faults.release().length > 0 || held;
  }

  /**
   * With no selector, a full push as a config change makes istiod's: every type of every
   * set at one new version, and every stream sends again all it watches (conformance
   * "Pushes"; with `versioning: 'per-type'`, the current versions are sent again). With a
   * selector (streams, types), the current version is sent again to those only, as istiod's
   * pushes to one proxy do.
   */
  push(selector?: StreamSelector): number {
    if (isEverything(selector) && this.store.push().length > 0) return this.host.streams().length;
    return this.host.push(selector);
  }

  disconnect(
    selector: StreamSelector = {},
    code = grpc.status.UNAVAILABLE,
    message?: string,
  ): number {
    return this.host.disconnect(selector, code, message ?? 'stream closed by mock istiod');
  }

  down(): Promise<void> {
    return this.host.down();
  }

  up(): Promise<void> {
    return this.host.up();
  }

  get serving(): boolean {
    return this.host.serving;
  }

  async reset(): Promise<void> {
    await this.faults.clear();
    if (this.withholdSwitch.release()) this.events.emit('state');
    await this.host.up();
    this.resources.restore();
    this.journalStore.clear();
  }

  journal(filter?: JournalFilter): JournalEntry[] {
    return this.journalStore.query(filter);
  }

  journalSinks(): JournalSinkStatus[] {
    return this.journalStore.sinkStatus();
  }

  streams(): StreamView[] {
    const views: StreamView[] = [];
    for (const stream of this.streamsById.values()) {
      const view = stream.view();
      if (view) views.push(view);
    }
    return views;
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    // Waiting control operations answer now, so that the control port closes promptly.
    this.closing.abort();
    this.faults.dispose();
    this.resources.close();
    this.ui.close();
    await this.control?.close();
    await this.ads.close(grpc.status.UNAVAILABLE, 'mock istiod is shutting down');
    this.prepared?.dispose();
    this.options.logger.info('mock istiod closed');
  }
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
