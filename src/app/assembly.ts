/**
 * The pieces `createMockIstiod` wires, each built from what it needs: the ADS server over the
 * store and the response policy, the snapshot store's pushes, and the live page's hub.
 */
import { createDebugAnswerer } from '../debug/debug-xds.js';
import type { ServerEventEmitter } from '../core/events.js';
import type { ResponsePolicy } from '../core/policy.js';
import type { Endpoint } from '../core/endpoint.js';
import { formatEndpoint } from '../core/endpoint.js';
import type { SentResources } from '../journal/sent-resources.js';
import { UiHub } from '../live/ui-hub.js';
import type { UiFaults } from '../live/ui-target.js';
import { createAdsServer, type AdsServer } from '../server/ads-server.js';
import type { AdsStream } from '../server/ads-stream.js';
import { createStreamRateLimiter } from '../server/stream-rate-limit.js';
import type { SnapshotStore } from '../snapshot/store.js';
import type { PreparedSecurity } from '../ca/security.js';
import { attachCollisionWarnings } from './collisions.js';
import { AckWaiters } from '../target/ack-waiters.js';
import { explainProxies } from '../target/operation-explain.js';
import {
  waitForAck,
  waitForFault,
  waitForJournal,
  type WaitParts,
} from '../target/operation-waits.js';
import type { MockTarget, TargetRooms } from '../target/operation-target.js';
import type { Journal } from '../journal/journal.js';
import type { ResolvedOptions } from './options.js';
import type { RelayUpstream } from '../server/relay-upstream.js';
import { debugXdsSource, metricsSources, uiTarget, type ServerState } from './room-views.js';
import type { FaultEngine } from '../faults/engine.js';
import { createXdsMetrics, type XdsMetrics } from '../metrics/metrics.js';

export interface AdsParts {
  store: SnapshotStore;
  policy: ResponsePolicy;
  events: ServerEventEmitter;
  /** The stream registry the ADS server fills and empties. */
  streams: Map<string, AdsStream>;
  state: ServerState;
  sent: SentResources;
  /** The CA once started: who the credentials say a caller is. */
  security(): PreparedSecurity | undefined;
  /** `serve --relay`: the upstream istiod every stream is relayed to. */
  relay: RelayUpstream | undefined;
}

export function buildAds(options: ResolvedOptions, parts: AdsParts): AdsServer {
  const { streams } = parts;
  let counter = 0;
  return createAdsServer(
    {
      snapshotFor: (proxy) => parts.store.snapshotFor(proxy),
      policy: parts.policy,
      controlPlaneId: options.controlPlaneId,
      // The per-type scheme is the mock's former one as a whole, delta content versions and
      // versioned reconnects included.
      deltaResourceVersions: options.deltaResourceVersions || options.versioning === 'per-type',
      omitMissingResources: options.omitMissingResources,
      profile: options.profile,
      relay: parts.relay,
      maxSubscriptions: options.maxSubscriptions,
      events: parts.events,
      log: options.logger,
      connectionId: (proxyId) => `${proxyId}-${++counter}`,
      register: (stream) => streams.set(stream.connectionId, stream),
      unregister: (stream) => streams.delete(stream.connectionId),
      debug: createDebugAnswerer(debugXdsSource(parts.state, parts.sent), {
        namespaceAuth: options.debugAuth,
      }),
      debugAuth: options.debugAuth,
      ambient: options.ambient,
      nackTextMax: options.nackTextMax,
      // Read when a stream comes: a port that authenticates nothing has none, and its streams
      // are let in without their credentials gathered.
      get authenticate() {
        return parts.security()?.authenticate;
      },
    },
    () => streams.values(),
    options.maxStreamsPerSecond > 0
      ? createStreamRateLimiter(options.maxStreamsPerSecond)
      : undefined,
  );
}

/**
 * Each change of the resources: announced, logged, then pushed to every stream; each change
 * of the policy (a release, a fault removed) lets every stream send what it may now.
 */
export function pushOnChange(
  parts: Pick<AdsParts, 'store' | 'policy' | 'events' | 'streams'>,
  options: ResolvedOptions,
): void {
  const { store, events, streams } = parts;
  attachCollisionWarnings(events, options.logger);
  parts.policy.onChange(() => {
    for (const stream of streams.values()) stream.flush();
  });
  store.onChange((change) => {
    // Before the streams push, so that listeners see the change before its responses.
    events.emit('snapshot', {
      version: change.snapshot.version,
      changed: change.changed,
      at: new Date(),
    });
    options.logger.info(
      { version: change.snapshot.version, changed: change.changed },
      'resources changed: pushing',
    );
    for (const stream of streams.values()) stream.onSnapshot();
  });
}

export function buildUi(
  options: ResolvedOptions,
  state: ServerState,
  faults: UiFaults,
  host: { readonly serving: boolean },
  started: () => { xds: Endpoint; control: Endpoint | undefined } | undefined,
): UiHub {
  return new UiHub(uiTarget(state, faults, host), {
    lang: options.lang,
    onError: (what, err) => options.logger.error({ err }, `live page: ${what} failed; it goes on`),
    addresses: () => {
      const addresses = started();
      if (!addresses) return {};
      return {
        xds: formatEndpoint(addresses.xds),
        ...(addresses.control && { control: formatEndpoint(addresses.control) }),
      };
    },
  });
}

/** The metrics over the server's state, counting the faults applied. */
export function buildMetrics(
  options: ResolvedOptions,
  state: ServerState,
  faults: Pick<FaultEngine, 'events'>,
): XdsMetrics {
  const metrics = createXdsMetrics(state.events, metricsSources(state), {
    labelMaxLength: options.metricLabelMaxLength,
    seriesMax: options.metricSeriesMax,
  });
  faults.events.on('applied', (fault) => metrics.faultApplied(fault.scenario));
  return metrics;
}

/** The log lines of a start: where it serves, and what Envoy must trust under TLS. */
export function logServing(
  options: ResolvedOptions,
  security: PreparedSecurity,
  xds: string,
  control: Endpoint | undefined,
): void {
  options.logger.info({ xds, control }, 'mock istiod is serving');
  if (security.tls) {
    options.logger.info(
      { rootCert: security.rootCertPath },
      "xDS is served over TLS: Envoy's validation_context must trust the root certificate",
    );
  }
}

/**
 * The waits the operations offer (on an ACK, on a fault, on the journal) and `explain`, over the target's
 * streams, read late so that they see the target's own `openStreams`.
 */
export function targetWaits(parts: {
  events: ServerEventEmitter;
  journal: Journal;
  closed: AbortSignal;
  target: () => MockTarget;
  ui: () => Pick<UiHub, 'admins'>;
}): Pick<TargetRooms, 'waits' | 'explain'> {
  const streams = () => parts.target().openStreams();
  const currentVersion: WaitParts['currentVersion'] = (stream, typeUrl) =>
    parts.target().currentVersion(stream, typeUrl);
  const waits: WaitParts = {
    events: parts.events,
    journalStore: parts.journal,
    closed: parts.closed,
    streams,
    journal: (filter) => parts.journal.query(filter),
    currentVersion,
    acks: new AckWaiters({ events: parts.events, streams, currentVersion }),
  };
  return {
    waits: {
      waitForAck: (query, signal) => waitForAck(waits, query, signal),
      waitForFault: (query, signal) =>
        waitForFault(parts.target().faults, parts.closed, query, signal),
      waitForJournal: (filter, waitMs, signal) => waitForJournal(waits, filter, waitMs, signal),
    },
    explain: (query) =>
      explainProxies(
        { streams, addressOf: (stream) => parts.ui().admins.addressOf(stream) },
        query,
      ),
  };
}
