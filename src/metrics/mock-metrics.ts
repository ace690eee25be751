/**
 * mock-istiod's own metrics, named `mock_istiod_*` (Prometheus conventions: counters end in
 * `_total`). Gauges about the streams are computed when scraped, from the same stream views
 * the debug endpoints show, so they can never drift from them.
 */
import type { AuthRefusal, CsrOutcome } from '../core/stream-auth.js';
import { Counter, Gauge, type Registry } from 'prom-client';
import { SYNC_STATES, syncState } from '../core/sync-status.js';
import type { StreamView } from '../core/events.js';
import { shortTypeName } from '../core/types/registry.js';
import { PendingCounts } from './fast-metrics.js';
import { SeriesBudget, type MetricLimits } from './label-bounds.js';

/** What the scrape-time gauges read. */
export interface MetricsSources {
  streams(): readonly StreamView[];
  /** Whether every response is being withheld (`--withhold-first`, `/control/withhold`). */
  readonly withheld: boolean;
  /** The journal's sinks that report their health (a `--journal` file). */
  journalSinks?(): readonly { name: string; dropped: number; error?: string }[];
}

export interface MockMetrics {
  request(typeUrl: string, kind: string): void;
  streamRejected(): void;
  /** The security side refused a caller (see `AuthRefusal`). */
  authRefused(refusal: AuthRefusal): void;
  /** What became of a `CreateCertificate` call (istiod's `citadel_server_*` counters). */
  csr(outcome: CsrOutcome): void;
  faultApplied(scenario: string): void;
}

export function createMockMetrics(
  registry: Registry,
  sources: MetricsSources,
  limits: MetricLimits,
): MockMetrics {
  const registers = [registry];
  // The type of a request is the client's to choose (any type URL): bounded.
  const requestTypes = new SeriesBudget(limits);
  // Every request (each ACK of every push) counts: held as numbers until the registry is read.
  const pendingRequests = new PendingCounts(['type', 'kind']);
  new Counter({
    name: 'mock_istiod_requests_total',
    help: 'Discovery requests received, by type and by what they meant (subscribe, reconnect, ack, nack, stale, resubscribe, unsubscribe).',
    labelNames: ['type', 'kind'],
    registers,
    collect() {
      pendingRequests.flush(this);
    },
  });
  const rejected = new Counter({
    name: 'mock_istiod_streams_rejected_total',
    help: 'Streams refused before they had an identity (no valid token on the TLS port, or a missing or malformed node).',
    registers,
  });
  const refusals = new Counter({
    name: 'mock_istiod_auth_refusals_total',
    help: 'Callers refused by the security side, by service (xds: a stream without a valid token or client certificate on the TLS port; ca: a CSR) and reason (token, plaintext, impersonation).',
    labelNames: ['service', 'reason'],
    registers,
  });
  // istiod's CA counters (security/pkg/server/ca/monitoring.go), no `_total` like istiod's.
  const caAuthFailures = new Counter({
    name: 'citadel_server_authentication_failure_count',
    help: 'The number of authentication failures.',
    registers,
  });
  const csrs = new Counter({
    name: 'citadel_server_csr_count',
    help: 'The number of CSRs received by the CA server.',
    registers,
  });
  const signErrors = new Counter({
    name: 'citadel_server_csr_sign_err_count',
    help: 'The number of errors occurred when signing the CSR.',
    labelNames: ['error'],
    registers,
  });
  const issued = new Counter({
    name: 'citadel_server_success_cert_issuance_count',
    help: 'The number of certificates issuances that have succeeded.',
    registers,
  });
  const faults = new Counter({
    name: 'mock_istiod_faults_applied_total',
    help: 'Faults applied to this mock, by scenario (withhold, delay, nack, reset, …).',
    labelNames: ['scenario'],
    registers,
  });
  new Gauge({
    name: 'mock_istiod_streams',
    help: 'Open ADS streams, by protocol (sotw, delta).',
    labelNames: ['protocol'],
    registers,
    collect() {
      this.reset();
      for (const protocol of ['sotw', 'delta'] as const) this.set({ protocol }, 0);
      for (const stream of sources.streams()) this.inc({ protocol: stream.protocol });
    },
  });
  new Gauge({
    name: 'mock_istiod_journal_sink_failed',
    help: 'Whether a journal sink (a --journal file) stopped writing after an error such as a full disk (1) or not (0), by sink.',
    labelNames: ['sink'],
    registers,
    collect() {
      this.reset();
      for (const s of sources.journalSinks?.() ?? []) this.set({ sink: s.name }, s.error ? 1 : 0);
    },
  });
  new Gauge({
    name: 'mock_istiod_journal_lines_dropped',
    help: 'Journal lines a sink could not write (the disk too slow, or after it failed), by sink.',
    labelNames: ['sink'],
    registers,
    collect() {
      this.reset();
      for (const s of sources.journalSinks?.() ?? []) this.set({ sink: s.name }, s.dropped);
    },
  });
  new Gauge({
    name: 'mock_istiod_withheld',
    help: 'Whether every response is being withheld until released (1) or not (0).',
    registers,
    collect() {
      this.set(sources.withheld ? 1 : 0);
    },
  });
  new Gauge({
    name: 'mock_istiod_proxy_sync',
    help: 'Connected proxies per subscribed type and sync status, as proxy-status shows them (a held response counts as NOT SENT).',
    labelNames: ['type', 'status'],
    registers,
    collect() {
      this.reset();
      const types = new SeriesBudget(limits);
      for (const stream of sources.streams()) {
        for (const state of stream.types.values()) {
          const type = types.label(shortTypeName(state.typeUrl));
          for (const status of SYNC_STATES) this.inc({ type, status }, 0);
          this.inc({ type, status: syncState(state) });
        }
      }
    },
  });
  new Gauge({
    name: 'mock_istiod_relay_streams',
    help: 'Streams relayed to an upstream istiod (serve --relay), by whether their upstream stream is connected or lost (held through an outage).',
    labelNames: ['upstream'],
    registers,
    collect() {
      this.reset();
      for (const upstream of ['connected', 'lost']) this.set({ upstream }, 0);
      for (const { upstream } of sources.streams()) {
        if (upstream) this.inc({ upstream: upstream.connected ? 'connected' : 'lost' });
      }
    },
  });
  new Gauge({
    name: 'mock_istiod_relay_behind',
    help: "Relayed streams whose proxy has not ACKed the version istiod last sent, by type (a fault withholds or replaces istiod's response, or it is on its way).",
    labelNames: ['type'],
    registers,
    collect() {
      this.reset();
      const types = new SeriesBudget(limits);
      for (const stream of sources.streams()) {
        for (const [typeUrl, received] of stream.upstream?.received ?? []) {
          const type = types.label(shortTypeName(typeUrl));
          this.inc({ type }, stream.types.get(typeUrl)?.acked?.version === received ? 0 : 1);
        }
      }
    },
  });
  return {
    request: (typeUrl, kind) =>
      pendingRequests.add(`${requestTypes.label(shortTypeName(typeUrl))}\t${kind}`),
    streamRejected: () => rejected.inc(),
    authRefused: ({ service, reason }) => {
      refusals.inc({ service, reason });
    },
    csr: (outcome) => {
      csrs.inc();
      if (outcome === 'signed') issued.inc();
      else if (outcome === 'unauthenticated') caAuthFailures.inc();
      else signErrors.inc({ error: outcome });
    },
    faultApplied: (scenario) => faults.inc({ scenario }),
  };
}
