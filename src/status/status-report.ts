/**
 * Gathers what `mock-istiod status` shows: the mock's view of each stream (`/debug/streamz`)
 * beside what each proxy's Envoy says on its admin port. Envoys named with `--admin`, and in
 * watch mode every Envoy seen before, stay in the report when they are no longer connected
 * to the mock (or the mock is down): that is the moment a class wants to watch
 * `control_plane.connected_state` drop to 0.
 */
import { createControlClient } from '../api/client.js';
import type { StreamDetail, StreamzView } from '../debug/streamz-view.js';
import { adminFromMetadata, type AdminAddress } from '../envoy/admin-address.js';
import { readEnvoy, type EnvoySide } from '../envoy/admin-status.js';
import { isMockIstiodError } from '../util/errors.js';

export interface ProxyReport {
  /** istiod's proxy id (`<pod>.<namespace>`), else the node id, else the admin address. */
  name: string;
  nodeId?: string;
  /** The mock's stream, when the proxy is connected to it. */
  mock?: StreamDetail;
  /** The Envoy's own view, when its admin address is known. */
  envoy?: EnvoySide;
}

export interface StatusReport {
  at: string;
  mock: { address: string; reachable: boolean; error?: string; withheld?: boolean };
  proxies: ProxyReport[];
}

export interface StatusOptions {
  /** The mock's control API, `host:port`. */
  control: string;
  /** Its bearer token, when it requires one. */
  controlToken?: string;
  /** Admin addresses given with `--admin`. */
  admins: readonly string[];
  /** Admin addresses learned from metadata earlier, by node id (watch mode keeps them). */
  remembered?: Map<string, AdminAddress>;
}

/** The mock's `/debug/streamz` (through the one control client), or why it cannot be read. */
async function readMock(report: StatusReport, token?: string): Promise<StreamDetail[]> {
  const client = createControlClient({
    baseUrl: `http://${report.mock.address}`,
    ...(token ? { token } : {}),
    timeoutMs: 3_000,
    unreachableHint: 'is `mock-istiod serve` running there? (--control-host, --control-port)',
  });
  try {
    const view = await client.getJson<StreamzView>('/debug/streamz');
    report.mock.reachable = true;
    report.mock.withheld = view.withheld;
    return view.streams;
  } catch (err) {
    if (!isMockIstiodError(err, 'CONTROL_API_FAILED') && !isMockIstiodError(err, 'CONTROL_REFUSED'))
      throw err;
    report.mock.error = err.message;
    return [];
  }
}

/** The proxy id part of a node id (`sidecar~ip~pod.ns~domain` → `pod.ns`). */
function proxyName(nodeId: string): string {
  const parts = nodeId.split('~');
  return parts.length === 4 && parts[2] ? parts[2] : nodeId;
}

/** Envoys named with `--admin` join the stream of their node; the others are listed alone. */
function matchFlagged(report: StatusReport, flagged: EnvoySide[]): void {
  const unmatched: EnvoySide[] = [];
  for (const side of flagged) {
    const entry = report.proxies.find((p) => p.mock && p.nodeId === side.nodeId);
    if (side.nodeId !== undefined && entry && !entry.envoy) entry.envoy = side;
    else unmatched.push(side);
  }
  const shown = new Set(report.proxies.map((p) => p.envoy?.admin));
  for (const side of unmatched.filter((s) => !shown.has(s.admin))) {
    const name = side.nodeId ? proxyName(side.nodeId) : side.admin;
    report.proxies.push({ name, ...(side.nodeId && { nodeId: side.nodeId }), envoy: side });
  }
}

/** Connected proxies without `--admin` are read at the address their metadata gives. */
async function readFromMetadata(
  report: StatusReport,
  remembered: Map<string, AdminAddress>,
): Promise<void> {
  await Promise.all(
    report.proxies.map(async (entry) => {
      const address = entry.mock && adminFromMetadata(entry.mock.metadata);
      if (entry.envoy || !address || !entry.nodeId) return;
      remembered.set(entry.nodeId, address);
      entry.envoy = await readEnvoy(address);
    }),
  );
}

/** Envoys seen earlier (watch mode) that are no longer connected stay in the report. */
async function readRemembered(
  report: StatusReport,
  remembered: Map<string, AdminAddress>,
): Promise<void> {
  const gone = [...remembered].filter(
    ([nodeId]) => !report.proxies.some((p) => p.nodeId === nodeId),
  );
  const sides = await Promise.all(gone.map(([, address]) => readEnvoy(address)));
  gone.forEach(([nodeId], i) => {
    report.proxies.push({ name: proxyName(nodeId), nodeId, envoy: sides[i] });
  });
}

/**
 * One report: the mock's streams, each beside its Envoy where the admin address is known,
 * and the Envoys known without a stream. Nothing unreachable throws: it is in the report.
 */
export async function collectStatus(options: StatusOptions): Promise<StatusReport> {
  const report: StatusReport = {
    at: new Date().toISOString(),
    mock: { address: options.control, reachable: false },
    proxies: [],
  };
  const [streams, flagged] = await Promise.all([
    readMock(report, options.controlToken),
    Promise.all(options.admins.map((url) => readEnvoy({ url, source: 'flag' }))),
  ]);
  report.proxies = streams.map((stream) => ({
    name: stream.proxy,
    nodeId: stream.nodeId,
    mock: stream,
  }));
  matchFlagged(report, flagged);
  const remembered = options.remembered ?? new Map<string, AdminAddress>();
  await readFromMetadata(report, remembered);
  await readRemembered(report, remembered);
  report.proxies.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return report;
}
