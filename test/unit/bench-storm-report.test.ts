/**
 * The reconnect storm's table (bench/lib/storm-report.ts): mock and peer side by side with
 * their ratio, and a dash where a figure is missing, never `NaN` or `Infinity`; and only a
 * full-profile run replaces the published table.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../bench/lib/bench-report.js';
import { refreshStormDoc, stormRows } from '../../bench/lib/storm-report.js';
import type { StormResults, StormRun } from '../../bench/scenarios/storm.js';

function run(
  server: 'mock' | 'peer' | 'h2',
  allAckedMs: number | null,
  serverCpu: number,
): StormRun {
  return {
    server,
    mode: 'sotw',
    streams: 1_000,
    rounds: [],
    median: { allAckedMs, servedP50: 10, servedP99: 40, serverCpu, listenOverflows: 0 },
    errors: 0,
    errorSamples: [],
  };
}

const results = (runs: StormRun[]): StormResults => ({
  backoffMs: { min: 50, max: 500 },
  rounds: 3,
  runs,
  envoy: [
    {
      server: 'mock',
      envoys: 20,
      allConnectedMs: [400, 500, 600],
      median: 500,
      versionsUnchanged: [20, 20, 19],
      serverCpu: [0.04, 0.05, 0.06],
    },
  ],
});

describe('stormRows', () => {
  it('puts the mock and the peer side by side with the ratio, and node:http2 against the peer', () => {
    const rows = stormRows(
      results([run('mock', 600, 0.4), run('peer', 400, 0.2), run('h2', 440, 0.25)]),
    );
    expect(rows[0]).toEqual([
      'SotW, 1,000 streams: `up` until every stream ACKed again, ms',
      '600',
      '400',
      '1.50×',
      '440',
      '1.10×',
    ]);
    expect(rows.find((r) => r[0]?.includes('server CPU'))?.slice(1)).toEqual([
      '0.40',
      '0.20',
      '2.00×',
      '0.25',
      '1.25×',
    ]);
    expect(rows.find((r) => r[0]?.includes('p50 / p99'))?.slice(1)).toEqual([
      '10 / 40',
      '10 / 40',
      '1.00× / 1.00×',
      '10 / 40',
      '1.00× / 1.00×',
    ]);
  });

  it('shows a dash for what did not finish or was not run', () => {
    const rows = stormRows(results([run('mock', null, 0.4)]));
    expect(rows[0]?.slice(1)).toEqual(['–', '–', '–', '–', '–']);
    const envoy = rows.find((r) => r[0]?.startsWith('20 real Envoys: `up`'));
    // The fewest Envoys with unchanged versions over the rounds.
    expect(envoy?.slice(1)).toEqual(['500 (19/20 unchanged)', '– (– unchanged)', '–', '–', '–']);
    expect(rows.flat().join(' ')).not.toMatch(/NaN|Infinity/);
  });
});

describe('refreshStormDoc', () => {
  const dirs: string[] = [];
  const docPath = () => {
    const dir = mkdtempSync(join(tmpdir(), 'storm-doc-'));
    dirs.push(dir);
    return join(dir, 'BENCHMARKS.md');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const doc = (body: string) =>
    `# Benchmarks\n\n<!-- bench:storm:start -->\n\n${body}\n\n<!-- bench:storm:end -->\n`;
  const report = (profile: 'quick' | 'full'): BenchReport => ({
    profile,
    startedAt: '2026-12-06T19:24:00.000Z',
    finishedAt: '2026-12-06T19:38:00.000Z',
    command: profile === 'full' ? 'npm run bench -- --only storm' : 'npm run bench:quick',
    machine: { cpus: 2, loadAverage: 0.4 } as BenchReport['machine'],
    pinning: 'none',
    results: { storm: results([run('mock', 600, 0.4), run('peer', 400, 0.2)]) },
  });

  it('replaces the published table with a full-profile run’s, even a storm-only one', async () => {
    const path = docPath();
    writeFileSync(path, doc('the published table'));
    expect(await refreshStormDoc(path, report('full'))).toBe(true);
    const after = readFileSync(path, 'utf8');
    expect(after).not.toContain('the published table');
    expect(after).toContain('`up` until every stream ACKed again, ms');
  });

  it('leaves it alone for a quick run', async () => {
    const path = docPath();
    writeFileSync(path, doc('the published table'));
    expect(await refreshStormDoc(path, report('quick'))).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(doc('the published table'));
  });
});
