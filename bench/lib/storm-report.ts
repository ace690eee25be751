/**
 * The reconnect storm's table (bench/scenarios/storm.ts), mock-istiod and go-control-plane
 * side by side, with bare node:http2's figures and their ratio to the peer's, kept in docs/BENCHMARKS.md between `<!-- bench:storm:start -->` and
 * `<!-- bench:storm:end -->`: refreshed by every run that includes the scenario (`--only
 * storm` too), since its figures stand on their own.
 */
import { readFileSync } from 'node:fs';
import type { StormResults, StormRun } from '../scenarios/storm.js';
import type { BenchReport } from './bench-report.js';
import { writeFormatted } from './format.js';
import { hostSpeed } from './proc.js';

const fmt = (value: number | null | undefined, digits = 0): string =>
  value === null || value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits);

function ratio(ours: number | null | undefined, peer: number | null | undefined): string {
  if (!ours || !peer || Number.isNaN(ours) || Number.isNaN(peer)) return '–';
  return `${(ours / peer).toFixed(2)}×`;
}

const thousands = (n: number) => n.toLocaleString('en-US');

function find(results: StormResults, run: StormRun, kind: 'mock' | 'peer' | 'h2') {
  return results.runs.find(
    (r) => r.server === kind && r.mode === run.mode && r.streams === run.streams,
  );
}

/**
 * Rows `figure | mock | peer | mock / peer | node:http2 | node:http2 / peer`, one group per
 * protocol and stream count (the real Envoys' rows have no node:http2 figures).
 */
export function stormRows(results: StormResults): string[][] {
  const rows: string[][] = [];
  const keys = results.runs.filter((r) => r.server === 'mock');
  for (const run of keys) {
    const mock = run;
    const peer = find(results, run, 'peer');
    const floor = find(results, run, 'h2');
    const label = `${run.mode === 'sotw' ? 'SotW' : 'delta'}, ${thousands(run.streams)} streams`;
    const cell = (r: StormRun | undefined, value: (r: StormRun) => number | null, digits = 0) =>
      r ? fmt(value(r), digits) : '–';
    const line = (figure: string, value: (r: StormRun) => number | null, digits = 0) => [
      `${label}: ${figure}`,
      cell(mock, value, digits),
      cell(peer, value, digits),
      ratio(value(mock), peer ? value(peer) : null),
      cell(floor, value, digits),
      ratio(floor ? value(floor) : null, peer ? value(peer) : null),
    ];
    const pair = (r: StormRun | undefined) =>
      `${cell(r, (x) => x.median.servedP50)} / ${cell(r, (x) => x.median.servedP99)}`;
    const pairRatio = (r: StormRun | undefined) =>
      `${ratio(r?.median.servedP50, peer?.median.servedP50)} / ${ratio(r?.median.servedP99, peer?.median.servedP99)}`;
    rows.push(line('`up` until every stream ACKed again, ms', (r) => r.median.allAckedMs));
    rows.push([
      `${label}: new connection to ACK, p50 / p99, ms`,
      pair(mock),
      pair(peer),
      pairRatio(mock),
      pair(floor),
      pairRatio(floor),
    ]);
    rows.push(line('server CPU for the storm, s', (r) => r.median.serverCpu, 2));
    rows.push(
      line('SYNs dropped, accept queue full (kernel `ListenOverflows`)', (r) =>
        r.median.listenOverflows === undefined ? null : r.median.listenOverflows,
      ),
    );
  }
  const mockEnvoy = results.envoy.find((r) => r.server === 'mock');
  const peerEnvoy = results.envoy.find((r) => r.server === 'peer');
  const envoys = mockEnvoy ?? peerEnvoy;
  if (envoys) {
    const unchanged = (r: typeof mockEnvoy) =>
      r ? `${Math.min(...r.versionsUnchanged)}/${r.envoys}` : '–';
    rows.push([
      `${envoys.envoys} real Envoys: \`up\` until all \`connected_state\` 1, versions unchanged, ms`,
      `${fmt(mockEnvoy?.median)} (${unchanged(mockEnvoy)} unchanged)`,
      `${fmt(peerEnvoy?.median)} (${unchanged(peerEnvoy)} unchanged)`,
      ratio(mockEnvoy?.median, peerEnvoy?.median),
      '–',
      '–',
    ]);
    rows.push([
      `${envoys.envoys} real Envoys: server CPU for the storm, s`,
      fmt(mockEnvoy && median(mockEnvoy.serverCpu), 2),
      fmt(peerEnvoy && median(peerEnvoy.serverCpu), 2),
      ratio(mockEnvoy && median(mockEnvoy.serverCpu), peerEnvoy && median(peerEnvoy.serverCpu)),
      '–',
      '–',
    ]);
  }
  return rows;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function renderStorm(report: BenchReport, results: StormResults): string {
  const { machine } = report;
  const at = report.startedAt.slice(0, 16).replace('T', ' ');
  return [
    `Run ${at} UTC with \`${report.command}\` (profile ${report.profile}): the median of ${results.rounds} outages per fleet; ` +
      `every simulated sidecar waits ${results.backoffMs.min}–${results.backoffMs.max} ms (uniform) before each reconnect or redial. ` +
      `Machine: ${machine.cpus} CPUs, load average at start ${machine.loadAverage}. Pinning: ${report.pinning}.` +
      hostSpeed(machine),
    '',
    '| figure | mock-istiod | go-control-plane | mock / peer | bare node:http2 | node:http2 / peer |',
    '| --- | --- | --- | --- | --- | --- |',
    ...stormRows(results).map((r) => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`),
  ].join('\n');
}

/**
 * Replaces the storm block in the doc (appends one if the markers are missing) with a run of
 * the full profile's, `--only storm` or whole; false, the doc untouched, for any other run.
 */
export async function refreshStormDoc(path: string, report: BenchReport): Promise<boolean> {
  const results = report.results.storm;
  // The doc's storm table is the published one: a quick run's smaller fleets never replace it.
  if (report.profile !== 'full' || !results || 'error' in results) return false;
  const start = '<!-- bench:storm:start -->';
  const end = '<!-- bench:storm:end -->';
  let doc = readFileSync(path, 'utf8');
  const block = `${start}\n\n${renderStorm(report, results)}\n\n${end}`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  doc =
    from >= 0 && to > from
      ? doc.slice(0, from) + block + doc.slice(to + end.length)
      : `${doc.trimEnd()}\n\n## Reconnect storm\n\n${block}\n`;
  await writeFormatted(path, doc);
  return true;
}
