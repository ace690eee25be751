/**
 * Renders a run's results as Markdown and puts them into docs/BENCHMARKS.md between the
 * markers of its profile (`<!-- bench:full:start -->` … `<!-- bench:full:end -->`), leaving
 * the hand-written analysis around them untouched.
 */
import { readFileSync } from 'node:fs';
import type { EnvoyLiveResult } from '../scenarios/envoy-live.js';
import type { FleetResults, FleetRun } from '../scenarios/fleet.js';
import type { SetSizeRun } from '../scenarios/set-size.js';
import type { SlowConsumerRun } from '../scenarios/slow-consumer.js';
import { writeFormatted } from './format.js';
import type { BenchReport } from './bench-report.js';
import { checkTargets } from './targets.js';
import { isFloor, SERVER_LABELS } from './server-process.js';
import { startUpLines } from './start-up-report.js';
import { stormRows } from './storm-report.js';
import { hostSpeed } from './proc.js';

export type { BenchReport } from './bench-report.js';

type Row = [scenario: string, figure: string, mock: string, peer: string, ratio: string];

const fmt = (value: number | null | undefined, digits = 1): string =>
  value === null || value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits);
/** Kilobytes of 1,000 bytes, as the memory target counts them. */
const kb = (bytes: number | undefined) => (bytes === undefined ? '–' : (bytes / 1000).toFixed(1));
const thousands = (n: number) => n.toLocaleString('en-US');

function ratio(ours: number | null | undefined, peer: number | null | undefined): string {
  if (!ours || !peer || Number.isNaN(ours) || Number.isNaN(peer)) return '–';
  return `${(ours / peer).toFixed(2)}×`;
}

/** Two or three figures side by side: `a / b / c`, with the ratio of each pair. */
function pair(scenario: string, figure: string, ours: number[], peer: number[], digits = 1): Row {
  return [
    scenario,
    figure,
    ours.map((v) => fmt(v, digits)).join(' / '),
    peer.map((v) => fmt(v, digits)).join(' / '),
    ours.map((v, i) => ratio(v, peer[i])).join(' / '),
  ];
}

function isError(value: unknown): value is { error: string } {
  return typeof value === 'object' && value !== null && 'error' in value;
}

/** How many ramps a fleet's ramp figures are the medians of, when more than one. */
function medianOf(run: FleetRun | undefined): string {
  const rounds = run?.ramp.rounds ?? 1;
  return rounds > 1 ? ` (median of ${rounds} ramps)` : '';
}

/** A fleet's name in the tables: `1,000 streams, SotW`. */
function fleetName(mode: string, streams: number): string {
  return `${thousands(streams)} streams, ${mode === 'sotw' ? 'SotW' : 'delta'}`;
}

function pushMedianOf(run: FleetRun | undefined): string {
  const fleets = run?.push?.fleets ?? 1;
  return fleets > 1 ? ` (medians of ${fleets} fleets)` : '';
}

function fleetRows(fleet: FleetResults): Row[] {
  const rows: Row[] = [];
  const find = (kind: string, mode: string, n: number) =>
    fleet.runs.find((r) => r.server === kind && r.mode === mode && r.streams === n);
  const keys = [...new Set(fleet.runs.map((r) => `${r.mode}:${r.streams}`))];
  for (const key of keys) {
    const [mode, n] = [key.split(':')[0] as string, Number(key.split(':')[1])];
    const [mock, peer] = [find('mock', mode, n), find('peer', mode, n)];
    const fleetLabel = fleetName(mode, n);
    const label = `${fleetLabel}${medianOf(mock)}`;
    const r = (run: FleetRun | undefined) => run?.ramp;
    rows.push(
      pair(
        `connect ramp, ${label}`,
        'first response p50 / p99 (ms)',
        [r(mock)?.firstResponseP50 ?? NaN, r(mock)?.firstResponseP99 ?? NaN],
        [r(peer)?.firstResponseP50 ?? NaN, r(peer)?.firstResponseP99 ?? NaN],
      ),
      pair(
        '',
        'all initial configs ACKed (ms)',
        [r(mock)?.allAckedMs ?? NaN],
        [r(peer)?.allAckedMs ?? NaN],
        0,
      ),
      [
        '',
        'streams ACKed / errors',
        `${r(mock)?.acked ?? '–'} / ${r(mock)?.errors ?? '–'}`,
        `${r(peer)?.acked ?? '–'} / ${r(peer)?.errors ?? '–'}`,
        '',
      ],
    );
    const [mp, pp] = [mock?.push, peer?.push];
    if (mp || pp) {
      rows.push(
        pair(
          `fan-out push, ${fleetLabel}${pushMedianOf(mock)}`,
          'ACK after push p50 / p99 (ms)',
          [mp?.p50 ?? NaN, mp?.p99 ?? NaN],
          [pp?.p50 ?? NaN, pp?.p99 ?? NaN],
        ),
        pair(
          '',
          'all streams ACKed, median / worst (ms)',
          [mp?.allAckedMs ?? NaN, mp?.max ?? NaN],
          [pp?.allAckedMs ?? NaN, pp?.max ?? NaN],
        ),
        pair(
          '',
          'first push after connecting: all ACKed (ms)',
          [mp?.firstPushAllAckedMs ?? NaN],
          [pp?.firstPushAllAckedMs ?? NaN],
        ),
        pair(
          '',
          'server CPU per push (s)',
          [mp?.serverCpuPerPush ?? NaN],
          [pp?.serverCpuPerPush ?? NaN],
          3,
        ),
        pair(
          '',
          'generator CPU per push (s)',
          [mp?.loadgenCpuPerPush ?? NaN],
          [pp?.loadgenCpuPerPush ?? NaN],
          3,
        ),
        [
          '',
          'event-loop delay p99 / max during pushes (ms)',
          `${fmt(mp?.eventLoopP99)} / ${fmt(mp?.eventLoopMax)}`,
          'n/a (no event loop)',
          '',
        ],
      );
    }
  }
  const [mm, pm] = [fleet.memoryPerStream.mock, fleet.memoryPerStream.peer];
  rows.push(
    [
      'memory per idle stream (slope over N, after GC)',
      'RSS (KB)',
      kb(mm?.rss),
      kb(pm?.rss),
      ratio(mm?.rss, pm?.rss),
    ],
    ['', 'heap (KB)', kb(mm?.heapUsed), kb(pm?.heapUsed), ratio(mm?.heapUsed, pm?.heapUsed)],
  );
  return rows;
}

/**
 * The floors' table: the mock against Node's floors and the peer, side by side: each ramp,
 * each fan-out and the 10-cluster push (the floors push the same bytes to every stream).
 */
const FLOOR_COLUMNS = ['mock', 'h2', 'grpcjs', 'peer'] as const;

function floorTable(fleet: FleetResults, sizes: SetSizeRun[] | undefined): string[] {
  if (!fleet.runs.some((r) => isFloor(r.server))) return [];
  const rows: string[][] = [];
  const line = <R>(
    find: (kind: (typeof FLOOR_COLUMNS)[number]) => R | undefined,
    figure: string,
    pick: (run: R) => number | null | undefined,
    digits: number,
  ) => {
    const values = FLOOR_COLUMNS.map((kind) => {
      const run = find(kind);
      return run ? (pick(run) ?? NaN) : NaN;
    });
    const [mock] = values;
    return [
      figure,
      ...values.map((v) => fmt(v, digits)),
      ...values.slice(1).map((v) => ratio(mock, v)),
    ];
  };
  const keys = [...new Set(fleet.runs.map((r) => `${r.mode}:${r.streams}`))];
  for (const key of keys) {
    const [mode, n] = key.split(':') as [string, string];
    const find = (kind: string) =>
      fleet.runs.find((r) => r.server === kind && r.mode === mode && r.streams === Number(n));
    const fleetLabel = fleetName(mode, Number(n));
    const label = `${fleetLabel}${medianOf(find('mock'))}`;
    rows.push(
      [
        `connect ramp, ${label}`,
        ...line(find, 'first response p50 (ms)', (r) => r.ramp.firstResponseP50, 1),
      ],
      ['', ...line(find, 'all initial configs ACKed (ms)', (r) => r.ramp.allAckedMs, 0)],
      ['', ...line(find, 'server CPU for the ramp (s)', (r) => r.ramp.serverCpu, 2)],
    );
    if (!find('mock')?.push) continue;
    rows.push(
      [
        `fan-out push, ${fleetLabel}${pushMedianOf(find('mock'))}`,
        ...line(find, 'all streams ACKed, median (ms)', (r) => r.push?.allAckedMs, 1),
      ],
      ['', ...line(find, 'push accepted: the synchronous pass (ms)', (r) => r.push?.acceptMs, 1)],
      ['', ...line(find, 'server CPU per push (s)', (r) => r.push?.serverCpuPerPush, 3)],
    );
  }
  const smallest = sizes?.length ? Math.min(...sizes.map((r) => r.clusters)) : undefined;
  const small = (kind: string) => sizes?.find((r) => r.server === kind && r.clusters === smallest);
  const floorSmall = small('grpcjs') ?? small('h2');
  if (floorSmall && smallest !== undefined) {
    const label = `push, ${thousands(smallest)} clusters, ${thousands(floorSmall.streams)} streams`;
    rows.push(
      [label, ...line(small, 'all streams ACKed, median (ms)', (r) => r.push.allAckedMs, 1)],
      ['', ...line(small, 'push accepted: the synchronous pass (ms)', (r) => r.push.acceptMs, 1)],
      ['', ...line(small, 'server CPU per push (s)', (r) => r.push.serverCpuPerPush, 3)],
      ['', ...line(small, 'responses sent per push', (r) => r.push.responsesPerPush, 0)],
      [
        '',
        ...line(
          small,
          'server CPU per response sent, with its ACK (µs)',
          (r) => r.push.serverCpuPerResponseUs,
          1,
        ),
      ],
    );
  }
  const memory = (field: 'rss' | 'heapUsed') => {
    const values = FLOOR_COLUMNS.map((kind) => fleet.memoryPerStream[kind]?.[field]);
    return [...values.map(kb), ...values.slice(1).map((v) => ratio(values[0], v))];
  };
  rows.push(
    ['memory per idle stream (slope over N, after GC)', 'RSS (KB)', ...memory('rss')],
    ['', 'heap (KB)', ...memory('heapUsed')],
  );
  const header = ['fleet', 'figure', ...FLOOR_COLUMNS.map((k) => SERVER_LABELS[k])];
  header.push(...FLOOR_COLUMNS.slice(1).map((k) => `ours / ${SERVER_LABELS[k]}`));
  return [
    '',
    'Node\'s floors, in the same run: a bare `node:http2` and a bare grpc-js ADS server that answer each type once and, on a push, write one pre-encoded response to every stream (`bench/servers/floor-*.ts`). "Push accepted" is the bench API\'s round trip, which returns once every stream has been written to.',
    '',
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

function slowRows(runs: SlowConsumerRun[]): Row[] {
  const [mock, peer] = [
    runs.find((r) => r.server === 'mock'),
    runs.find((r) => r.server === 'peer'),
  ];
  const any = mock ?? peer;
  if (!any) return [];
  const label = `slow consumer: 1 of ${thousands(any.streams)} streams stops reading, ${thousands(any.clusters)} clusters`;
  return [
    pair(
      label,
      "others' ACK p99 before / after (ms)",
      [mock?.before.p99 ?? NaN, mock?.after.p99 ?? NaN],
      [peer?.before.p99 ?? NaN, peer?.after.p99 ?? NaN],
    ),
    [
      '',
      'RSS before → after (MiB)',
      `${fmt((mock?.rssBefore ?? NaN) / 2 ** 20)} → ${fmt((mock?.rssAfter ?? NaN) / 2 ** 20)}`,
      `${fmt((peer?.rssBefore ?? NaN) / 2 ** 20)} → ${fmt((peer?.rssAfter ?? NaN) / 2 ** 20)}`,
      '',
    ],
    ['', 'RSS growth per push while stuck (KB)', kb(mock?.rssPerPush), kb(peer?.rssPerPush), ''],
    [
      '',
      'heap after GC before → after (MiB)',
      `${fmt((mock?.heapBefore ?? NaN) / 2 ** 20)} → ${fmt((mock?.heapAfter ?? NaN) / 2 ** 20)}`,
      `${fmt((peer?.heapBefore ?? NaN) / 2 ** 20)} → ${fmt((peer?.heapAfter ?? NaN) / 2 ** 20)}`,
      '',
    ],
    [
      '',
      'pushes not ACKed by every reader',
      `${mock?.after.incomplete ?? '–'}`,
      `${peer?.after.incomplete ?? '–'}`,
      '',
    ],
  ];
}

function sizeRows(runs: SetSizeRun[]): Row[] {
  const sizes = [...new Set(runs.map((r) => r.clusters))];
  const get = (kind: string, pick: (r: SetSizeRun) => number | null) =>
    sizes.map((c) => {
      const run = runs.find((r) => r.server === kind && r.clusters === c);
      return run ? (pick(run) ?? NaN) : NaN;
    });
  const label = `set size: ${sizes.map(thousands).join(' / ')} clusters, ${runs[0]?.streams ?? '?'} streams`;
  const row = (
    scenario: string,
    figure: string,
    pick: (r: SetSizeRun) => number | null,
    digits = 1,
  ) => pair(scenario, figure, get('mock', pick), get('peer', pick), digits);
  return [
    row(label, 'encode the CDS response once (ms)', (r) => r.encodeMs, 2),
    row('', 'CDS response (KB)', (r) => r.cdsBytes / 1000),
    row('', 'all initial configs ACKed (ms)', (r) => r.allAckedMs, 0),
    row('', 'push: all streams ACKed (ms)', (r) => r.push.allAckedMs, 1),
    row('', 'first push after connecting: all ACKed (ms)', (r) => r.push.firstPushAllAckedMs, 1),
    row('', 'server CPU per push (s)', (r) => r.push.serverCpuPerPush, 3),
  ];
}

function envoyRows(envoy: EnvoyLiveResult): Row[] {
  const floor = envoy.median.static;
  const cell = (kind: 'mock' | 'peer') => {
    const value = envoy.median[kind];
    return value === undefined ? '–' : `${fmt(value, 0)} (${ratio(value, floor)} floor)`;
  };
  return [
    [
      `real Envoy 1.40, start to LIVE, median of ${envoy.runs}`,
      `ms (static bootstrap floor: ${fmt(floor, 0)} ms)`,
      cell('mock'),
      cell('peer'),
      ratio(envoy.median.mock, envoy.median.peer),
    ],
  ];
}

export function renderReport(report: BenchReport): string {
  const { machine, results } = report;
  const rows: Row[] = [];
  const errors: string[] = [];
  const section = <T>(
    name: string,
    value: T | { error: string } | undefined,
    render: (v: T) => Row[],
  ) => {
    if (value === undefined) return;
    if (isError(value)) errors.push(`- ${name}: failed: ${value.error.split('\n')[0]}`);
    else rows.push(...render(value));
  };
  section('fleet', results.fleet, fleetRows);
  section('slow consumer', results.slow, slowRows);
  section('set size', results.sizes, sizeRows);
  section('envoy', results.envoy, envoyRows);
  section('storm', results.storm, (storm) =>
    stormRows(storm).map(
      ([figure = '', mock = '', peer = '', r = '']) =>
        ['reconnect storm', figure, mock, peer, r] as Row,
    ),
  );
  const floors =
    results.fleet && !isError(results.fleet)
      ? floorTable(
          results.fleet,
          results.sizes && !isError(results.sizes) ? results.sizes : undefined,
        )
      : [];
  section('start-up', results.start, () => []); // its own table, below
  const minutes = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 60_000;
  const shared =
    machine.loadAverage > 0.5 ? ' — the machine was shared with other work during the run' : '';
  const lines = [
    `Run ${report.startedAt.slice(0, 16).replace('T', ' ')} UTC (${minutes.toFixed(1)} min) with \`${report.command}\`.`,
    `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Linux ${machine.kernel}; Node ${machine.node}, ${machine.go}, Envoy ${machine.envoy}. ` +
      `Pinning: ${report.pinning}. Load average at start: ${machine.loadAverage}${shared}.` +
      hostSpeed(machine),
    '',
    '| scenario | figure | mock-istiod | go-control-plane | ours / peer |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`),
    ...floors,
    '',
    ...targetsTable(report),
    ...(results.start && !isError(results.start) ? ['', ...startUpLines(results.start)] : []),
    ...(errors.length > 0 ? ['', ...errors] : []),
  ];
  return lines.join('\n');
}

/** Replaces this profile's block in the doc (appends one if the markers are missing). */
export async function refreshBenchmarksDoc(path: string, report: BenchReport): Promise<void> {
  const start = `<!-- bench:${report.profile}:start -->`;
  const end = `<!-- bench:${report.profile}:end -->`;
  let doc: string;
  try {
    doc = readFileSync(path, 'utf8');
  } catch {
    doc = '# Benchmarks\n';
  }
  const block = `${start}\n\n${renderReport(report)}\n\n${end}`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  doc =
    from >= 0 && to > from
      ? doc.slice(0, from) + block + doc.slice(to + end.length)
      : `${doc.trimEnd()}\n\n${block}\n`;
  await writeFormatted(path, doc);
}

/** The targets (bench/lib/targets.ts) as a table: each target, its figures, met or missed. */
function targetsTable(report: BenchReport): string[] {
  const checks = checkTargets(report);
  if (checks.length === 0) return [];
  const met = (m: boolean | undefined) =>
    m === undefined ? '➖ not measured' : m ? '✅ met' : '❌ missed';
  return [
    '| target | figures (ours vs theirs, same run) | met |',
    '| --- | --- | --- |',
    ...checks.map(
      (t) =>
        `| ${[t.target, t.detail, met(t.met)].map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`,
    ),
  ];
}
