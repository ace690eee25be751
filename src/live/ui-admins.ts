/**
 * The Envoy admin APIs and readiness probes the live page watches, polled only while a page
 * is open. Addresses come from each proxy's node metadata (`ENVOY_ADMIN_ADDRESS`, else
 * Istio's `PROXY_CONFIG.proxyAdminPort` for a proxy on this machine) and from the page
 * (`POST /ui/admins`). The pod's READY comes from probing Envoy's readiness listener
 * (`ENVOY_STATUS_PORT` in the metadata, which pilot-agent writes) as the kubelet does, for a
 * proxy connected over loopback. Envoy's own 503 for an agent that is not there (an Envoy run
 * by hand from `envoy-configs/`) leaves READY `unknown`, not `1/2` (`readinessOf`).
 *
 * Each poll has a deadline, and an address still being polled is skipped by the next tick,
 * so an Envoy that hangs costs one pending request, never a pile of them.
 */
import { reasonOf } from '../util/reason.js';
import type { StreamView } from '../core/events.js';
import { adminFromMetadata, adminUrl } from '../envoy/admin-address.js';
import { EnvoyAdminClient } from '../envoy/admin-client.js';
import { httpProbe, type ProbeOutcome } from '../envoy/agent-pod-view.js';
import type { Result } from '../util/problems.js';
import type { UiAdmin, UiAdminSource, UiEnvoyState, UiReady, UiStatSample } from './ui-events.js';

/** The stats the chart draws: the ADS connection, and every subscription's updates. */
const STATS_FILTER = String.raw`^control_plane\.connected_state$|\.update_(success|rejected)$`;
/** At most this many stat names per sample (a proxy with thousands of clusters has as many). */
const MAX_STATS = 64;

interface Polled {
  admin: UiAdmin;
  state: UiEnvoyState;
  inFlight: boolean;
}

interface Probe {
  url: string;
  ready: UiReady;
  detail?: string;
  inFlight: boolean;
}

export interface UiAdminsOptions {
  /** Per-request deadline (default 800 ms). */
  timeoutMs?: number;
  /** Called with each sample, and when what a proxy row shows changed. */
  onSample(sample: UiStatSample): void;
  onChange(): void;
  /**
   * A poll round's own failure (a bug, or input nothing checked): the round goes on without
   * that proxy, and the next round tries again. Never thrown out of the timer.
   */
  onError?(what: string, err: unknown): void;
}

/** The host of a gRPC peer (`127.0.0.1:5000`, `ipv6:[::1]:5000`, `[::ffff:10.0.0.7]:5000`). */
function peerHost(peer: string): string {
  const host = peer.replace(/^ipv[46]:/, '').replace(/:\d+$/, '');
  return unmapped(host.replace(/^\[|\]$/g, ''));
}

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.7`) → the IPv4 form. */
function unmapped(host: string): string {
  return host.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

/**
 * Names and addresses that reach this machine: 127/8, `::1`, `localhost` (and its subdomains,
 * which resolvers send to loopback), and the unspecified addresses `0.0.0.0` and `::`, which
 * a connection on Linux also takes to loopback.
 */
function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return (
    name.startsWith('127.') ||
    name === '::1' ||
    name === '0.0.0.0' ||
    name === '::' ||
    name === 'localhost' ||
    name.endsWith('.localhost')
  );
}

/** Whether a gRPC peer is on this machine. */
export function loopbackPeer(peer: string): boolean {
  return isLoopbackHost(peerHost(peer));
}

/** The host of an admin URL, as a connection would reach it; undefined when it is no URL. */
function adminHost(adminUrlText: string): string | undefined {
  try {
    return unmapped(new URL(adminUrlText).hostname.replace(/^\[|\]$/g, ''));
  } catch {
    return undefined;
  }
}

/**
 * Whether an admin address a proxy names in its own metadata may be polled. A proxy on this
 * machine (a loopback peer) may name loopback; any proxy may name the address its own stream
 * came from. Nothing else: a remote client naming `127.0.0.1:<port>` would have the mock send
 * requests to a port on its own machine, and naming any other host would make the mock a
 * relay to a host of the client's choosing. An address that is no URL is not polled (and
 * never throws: this runs in the poll timer, on what a client wrote). An address a user adds
 * on the page has no such limit.
 */
export function trustedMetadataAdmin(adminUrlText: string, peer: string): boolean {
  const host = adminHost(adminUrlText);
  if (host === undefined) return false;
  const from = peerHost(peer);
  return isLoopbackHost(from) ? isLoopbackHost(host) : host === from;
}

/** Checks a user's admin address and turns it into a URL. */
export function parseAdminAddress(input: unknown): Result<string> {
  if (typeof input !== 'string' || input.trim() === '') {
    const message = 'expected an admin address such as "127.0.0.1:15000" or "localhost:15000"';
    return { ok: false, problems: [{ path: 'address', message }] };
  }
  const url = adminUrl(input);
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' || parsed.port === '' || parsed.pathname !== '/')
      throw new Error('not host:port');
    return { ok: true, value: `http://${parsed.host}` };
  } catch {
    const message = `expected host:port (an Envoy admin API, such as 127.0.0.1:15000), got ${JSON.stringify(input)}`;
    return { ok: false, problems: [{ path: 'address', message }] };
  }
}

export class UiAdmins {
  private readonly user = new Set<string>();
  private readonly polled = new Map<string, Polled>();
  private readonly probes = new Map<string, Probe>();
  private readonly timeoutMs: number;

  constructor(private readonly options: UiAdminsOptions) {
    this.timeoutMs = options.timeoutMs ?? 800;
  }

  add(url: string): UiAdmin {
    this.user.add(url);
    return this.entry(url, 'user').admin;
  }

  remove(url: string): boolean {
    const had = this.user.delete(url);
    if (had && this.polled.get(url)?.admin.source === 'user') this.polled.delete(url);
    return had;
  }

  list(): UiAdmin[] {
    return [...this.polled.values()].map((p) => ({ ...p.admin }));
  }

  /** What a proxy's row shows of its Envoy and its readiness. */
  extras(stream: StreamView): { ready: UiReady; readyDetail?: string; envoy: UiEnvoyState } {
    const probe = this.probes.get(stream.connectionId);
    const polled = this.forNode(stream.proxy.nodeId);
    return {
      ready: probe?.ready ?? 'unknown',
      ...(probe?.detail !== undefined && { readyDetail: probe.detail }),
      envoy: polled ? { ...polled.state } : {},
    };
  }

  /**
   * The admin API of a connected proxy's Envoy: the one its node metadata names (when it may be
   * trusted, as for polling), else one added by hand that reported this node's id.
   */
  addressOf(stream: StreamView): string | undefined {
    const found = adminFromMetadata(stream.proxy.metadata);
    if (found) {
      const allowed =
        found.source === 'metadata'
          ? trustedMetadataAdmin(found.url, stream.peer)
          : loopbackPeer(stream.peer);
      if (allowed) return found.url;
    }
    return this.forNode(stream.proxy.nodeId)?.admin.admin;
  }

  /** One round: every known admin API and readiness probe not still busy from the last. */
  tick(streams: readonly StreamView[]): void {
    const live = new Set<string>();
    for (const stream of streams) {
      live.add(stream.connectionId);
      try {
        this.discover(stream);
      } catch (err) {
        this.failed(`reading the admin address of ${stream.connectionId}`, err);
      }
    }
    for (const id of this.probes.keys()) if (!live.has(id)) this.probes.delete(id);
    for (const polled of this.polled.values()) {
      if (!polled.inFlight) this.poll(polled).catch((err: unknown) => this.failed('a poll', err));
    }
    for (const probe of this.probes.values()) {
      if (!probe.inFlight) this.probe(probe).catch((err: unknown) => this.failed('a probe', err));
    }
  }

  private failed(what: string, err: unknown): void {
    this.options.onError?.(what, err);
  }

  private forNode(nodeId: string): Polled | undefined {
    for (const polled of this.polled.values()) if (polled.admin.nodeId === nodeId) return polled;
    return undefined;
  }

  private entry(url: string, source: UiAdminSource, nodeId?: string): Polled {
    let polled = this.polled.get(url);
    if (!polled) {
      polled = {
        admin: { admin: url, source, reachable: false, ...(nodeId && { nodeId }) },
        state: { admin: url, adminSource: source },
        inFlight: false,
      };
      this.polled.set(url, polled);
    }
    return polled;
  }

  private discover(stream: StreamView): void {
    const { metadata, nodeId } = stream.proxy;
    const found = adminFromMetadata(metadata);
    const local = loopbackPeer(stream.peer);
    const allowed =
      found?.source === 'metadata' ? trustedMetadataAdmin(found.url, stream.peer) : local;
    if (found && allowed) {
      this.entry(found.url, found.source === 'metadata' ? 'metadata' : 'proxy-config', nodeId);
    }
    const port = Number(metadata.ENVOY_STATUS_PORT);
    if (local && Number.isInteger(port) && port > 0 && !this.probes.has(stream.connectionId)) {
      const url = `http://127.0.0.1:${port}/healthz/ready`;
      this.probes.set(stream.connectionId, { url, ready: 'unknown', inFlight: false });
    }
  }

  private async poll(polled: Polled): Promise<void> {
    polled.inFlight = true;
    const url = polled.admin.admin;
    const client = new EnvoyAdminClient(url, { requestTimeoutMs: this.timeoutMs });
    const query = new URLSearchParams({ format: 'json', filter: STATS_FILTER }).toString();
    try {
      const [info, ready, stats] = await Promise.all([
        client.get('/server_info'),
        client.ready(),
        client.get(`/stats?${query}`),
      ]);
      const server = JSON.parse(info.body) as { state?: string; node?: { id?: string } };
      const values = statValues(JSON.parse(stats.body) as StatsJson);
      const nodeId = server.node?.id ?? polled.admin.nodeId;
      polled.admin = { ...polled.admin, reachable: true, ...(nodeId && { nodeId }) };
      delete polled.admin.error;
      polled.state = {
        admin: url,
        adminSource: polled.admin.source,
        ...(server.state !== undefined && { state: server.state }),
        ready,
        polledAt: new Date().toISOString(),
      };
      this.options.onSample({ at: Date.now(), admin: url, ...(nodeId && { nodeId }), values });
    } catch (err) {
      const error = err instanceof SyntaxError ? 'not an Envoy admin API (no JSON)' : reasonOf(err);
      polled.admin = { ...polled.admin, reachable: false, error };
      polled.state = { admin: url, adminSource: polled.admin.source, error };
    } finally {
      polled.inFlight = false;
    }
    this.options.onChange();
  }

  private async probe(probe: Probe): Promise<void> {
    probe.inFlight = true;
    let outcome: ProbeOutcome;
    try {
      outcome = await httpProbe(probe.url, this.timeoutMs);
    } finally {
      probe.inFlight = false;
    }
    const { ready, detail } = readinessOf(probe.url, outcome);
    if (ready === probe.ready && detail === probe.detail) return;
    probe.ready = ready;
    probe.detail = detail;
    this.options.onChange();
  }
}

/**
 * Envoy's own answer when its readiness listener has nothing behind it: the route's cluster
 * (`agent`, pilot-agent's status port) refuses or has no endpoint. That is an Envoy run without
 * an agent (the README's `envoy -c envoy-configs/sidecar-sotw.yaml`), not a sidecar that is not
 * ready, so the probe says nothing either way.
 */
const NO_AGENT_BODY = /^(upstream connect error|no healthy upstream)/;

/** What one probe says of READY: `unknown` when no agent answered behind Envoy's listener. */
export function readinessOf(
  url: string,
  outcome: ProbeOutcome,
): { ready: UiReady; detail: string } {
  if (outcome.ok) return { ready: '2/2', detail: outcome.detail };
  if (outcome.body !== undefined && NO_AGENT_BODY.test(outcome.body)) {
    const detail = `no agent answers behind ${url} (Envoy said: ${outcome.body.trim()})`;
    return { ready: 'unknown', detail };
  }
  return { ready: '1/2', detail: outcome.detail };
}

interface StatsJson {
  stats?: { name?: string; value?: unknown }[];
}

function statValues(json: StatsJson): Record<string, number> {
  const values: Record<string, number> = {};
  let count = 0;
  for (const { name, value } of json.stats ?? []) {
    if (typeof name !== 'string' || typeof value !== 'number') continue;
    if (++count > MAX_STATS) break;
    values[name] = value;
  }
  return values;
}
