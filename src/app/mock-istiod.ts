/**
 * A mock istiod, assembled: snapshot store → per-stream sessions → response policy → wire, plus the
 * HTTP control API. `createMockIstiod()` builds it without listening; `start()` binds (port
 * 0 picks free ports); `close()` is idempotent and closes in reverse order. What changes it
 * is implemented once, over the rooms, in src/target/, and reached through `control`.
 */
import { GrpcStatus } from '../core/grpc-status.js';
import { inProcessControl, type MockIstiodControl } from '../api/control.js';
import { prepareSecurity, type MockSecurity, type PreparedSecurity } from '../ca/security.js';
import { createControlServer, type ControlServer } from '../control/control-server.js';
import { allRoutes } from '../control/routes.js';
import type { Debuggable } from '../control/target.js';
import { formatEndpoint, type Endpoint } from '../core/endpoint.js';
import { ServerEventEmitter, type StreamView } from '../core/events.js';
import { combinePolicies, createWithholdSwitch } from '../core/policy.js';
import type { Snapshot } from '../core/snapshot.js';
import { attachJournal, Journal } from '../journal/journal.js';
import { SentResources } from '../journal/sent-resources.js';
import type { UiHub } from '../live/ui-hub.js';
import type { XdsMetrics } from '../metrics/metrics.js';
import { createRelayUpstream, relayChannel, type RelayUpstream } from '../server/relay-upstream.js';
import { createCaRelay, type CaRelay } from '../ca/ca-relay.js';
import { relayTransform } from './relay-rewrite.js';
import { openRelayRecorder } from '../server/relay-record.js';
import type { AdsServer } from '../server/ads-server.js';
import type { AdsStream } from '../server/ads-stream.js';
import { MockIstiodError } from '../util/errors.js';
import {
  buildAds,
  buildMetrics,
  buildUi,
  logServing,
  pushOnChange,
  targetWaits,
} from './assembly.js';
import type { MockIstiod, StartedAddresses } from './mock-istiod-api.js';
import {
  createOperationTarget,
  registerTarget,
  type MockTarget,
} from '../target/operation-target.js';
import { resolveOptions, type MockIstiodOptions, type ResolvedOptions } from './options.js';
import { createResourceSources, type ResourceSources } from './resource-sources.js';
import { debuggable, type ServerState } from './room-views.js';

export function createMockIstiod(partial: Partial<MockIstiodOptions> = {}): MockIstiod {
  const resolved = resolveOptions(partial);
  if (!resolved.ok)
    throw MockIstiodError.fromProblems('INVALID_OPTIONS', 'invalid options', resolved.problems);
  return new MockIstiodImpl(resolved.value);
}

class MockIstiodImpl implements MockIstiod {
  readonly events = new ServerEventEmitter();
  readonly journal: Journal;
  readonly metrics: XdsMetrics;
  readonly control: MockIstiodControl;
  /** The one implementation of the operations, over the rooms. */
  private readonly target: MockTarget;
  /** What istiod's debug views read (over HTTP and over ADS). */
  private readonly debug: Debuggable;
  /** The live page's events; it listens to the server only while a page is open. */
  private readonly ui: UiHub;
  private readonly streamsById = new Map<string, AdsStream>();
  private readonly resources: ResourceSources;
  private readonly ads: AdsServer;
  private readonly relay: RelayUpstream | undefined;
  private readonly caRelay: CaRelay | undefined;
  private controlServer: ControlServer | undefined;
  private started: StartedAddresses | undefined;
  private state: 'new' | 'starting' | 'running' | 'closed' = 'new';
  private prepared: PreparedSecurity | undefined;
  /** Aborted by close(): what waiting control operations listen to. */
  private readonly closing = new AbortController();

  constructor(private readonly options: ResolvedOptions) {
    const { events, streamsById: streams } = this;
    const resources = (this.resources = createResourceSources(options, events));
    const withholdSwitch = createWithholdSwitch(options.withholdFirst);
    this.journal = new Journal(options.journalSize, options.journalMaxBytes);
    const target = (this.target = createOperationTarget({
      ...{ events, resources, withholdSwitch, journal: this.journal, streams },
      ads: () => this.ads,
      endpoint: () => this.addresses.xds,
      running: () => this.state === 'running',
      security: () => this.security,
      ui: () => this.ui,
      ...targetWaits({
        events,
        journal: this.journal,
        closed: this.closing.signal,
        target: () => this.target,
        ui: () => this.ui,
      }),
      log: options.logger,
      controlPlaneId: options.controlPlaneId,
      profile: options.profile,
    }));
    const policy = combinePolicies(withholdSwitch, target.faults, ...options.policies);
    attachJournal(this.journal, events);
    const state: ServerState = {
      events,
      journal: this.journal,
      withholdSwitch,
      streams: () => this.streams(),
    };
    this.metrics = buildMetrics(options, state, target.faults);
    const sent = new SentResources(events);
    this.debug = debuggable(state, sent);
    const store = resources.store;
    const security = () => this.prepared;
    const relay = (this.relay =
      options.relay === undefined
        ? undefined
        : createRelayUpstream(
            options.relay,
            relayTransform(options.relayDropUnknownExtensions),
            options.relayOutage,
            options.relayTls,
            options.relayRecord === undefined ? undefined : openRelayRecorder(options.relayRecord),
          ));
    if (options.relay !== undefined && options.relayCa) {
      const channel = relayChannel(options.relayTls);
      this.caRelay = createCaRelay(options.relay, channel.credentials, channel.options);
    }
    this.ads = buildAds(options, {
      ...{ store, policy, events, streams, state, sent, security },
      relay,
    });
    pushOnChange({ store, policy, events, streams }, options);
    this.ui = buildUi(options, state, target.faults, target, () => this.started);
    this.control = inProcessControl(target);
    registerTarget(this, target);
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

  async start(): Promise<StartedAddresses> {
    if (this.state !== 'new')
      throw new MockIstiodError('CLOSED', `cannot start: mock istiod is ${this.state}`);
    this.state = 'starting';
    try {
      const { options } = this;
      const security = (this.prepared = await prepareSecurity(options.security, options.logger, {
        onRefused: (r) => this.events.emit('auth-refused', r),
        onCsr: (outcome) => this.events.emit('csr', outcome),
        ...(this.caRelay && { caRelay: this.caRelay }),
      }));
      const xdsPort = await this.ads.listen(options.xds, {
        credentials: security.credentials,
        services: [security.caService],
      });
      const control = await this.listenControl();
      this.started = { xds: { host: options.xds.host, port: xdsPort }, control };
      this.state = 'running';
      if (options.watchResources) this.resources.watch(options.resourcesQuietMs);
      logServing(options, security, this.xdsAddress, control);
      return this.started;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** Opens the HTTP control API (with the `control` option); where it listens. */
  private async listenControl(): Promise<Endpoint | undefined> {
    const { options } = this;
    if (!options.control) return undefined;
    const routes = allRoutes({
      operations: this.target,
      debug: this.debug,
      metrics: { metrics: this.metrics },
      ui: { ui: this.ui },
    });
    this.controlServer = createControlServer(routes, options.logger, {
      token: options.controlToken,
      allowedHosts: options.controlAllowedHosts,
    });
    return { host: options.control.host, port: await this.controlServer.listen(options.control) };
  }

  snapshot(): Snapshot {
    return this.resources.store.current();
  }

  streams(): StreamView[] {
    return this.target.openStreams();
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    // Waiting control operations answer now, so that the control port closes promptly.
    this.closing.abort();
    this.target.faults.dispose();
    this.resources.close();
    this.ui.close();
    await this.controlServer?.close();
    await this.ads.close(GrpcStatus.UNAVAILABLE, 'mock istiod is shutting down');
    this.relay?.close();
    this.caRelay?.close();
    await this.relay?.recorder?.close();
    this.prepared?.dispose();
    this.options.logger.info('mock istiod closed');
  }
}
