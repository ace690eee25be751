/**
 * The benchmark harness: `npm run bench` (the published run) or `npm run bench:quick` (a
 * couple of minutes). Builds the Go peer and generator, runs every scenario against the mock
 * and the go-control-plane peer, writes `bench/results/<profile>.json` and refreshes that
 * profile's table in docs/BENCHMARKS.md. See docs/BENCHMARKS.md for what each figure means.
 *
 *   tsx bench/run.ts [--quick] [--only fleet,slow,sizes,envoy,start,ui,storm] [--servers mock,peer,h2,grpcjs]
 *                    [--clusters 10,1000] [--ramp-rounds 3] [--no-pin] [--quiet-wait 150]
 *   tsx bench/run.ts [--quick] --render-only    (refresh the doc from results/<profile>.json)
 *
 * Before measuring, a run waits for the machine to be quiet (the 1-minute load average under
 * 0.5), at most `--quiet-wait` seconds: 150 for the published run, 0 (no wait) for the quick one.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findEnvoy } from '../src/envoy/find-envoy.js';
import type { BenchContext } from './lib/context.js';
import { writeFormatted } from './lib/format.js';
import { buildBenchPrograms } from './lib/build.js';
import {
  LAUNCH_RUNS,
  machineInfo,
  nodeLaunchMs,
  waitForQuiet,
  type MachineInfo,
} from './lib/proc.js';
import { PROFILES } from './lib/profile.js';
import { refreshBenchmarksDoc, type BenchReport } from './lib/report.js';
import { refreshStormDoc } from './lib/storm-report.js';
import { SERVER_KINDS, type ServerKind } from './lib/server-process.js';
import { envoyLiveScenario } from './scenarios/envoy-live.js';
import { fleetScenario } from './scenarios/fleet.js';
import { setSizeScenario } from './scenarios/set-size.js';
import { slowConsumerScenario } from './scenarios/slow-consumer.js';
import { startUpScenario } from './scenarios/start-up.js';
import { stormScenario } from './scenarios/storm.js';
import { uiPageScenario } from './scenarios/ui-page.js';

const SCENARIOS = {
  fleet: fleetScenario,
  slow: slowConsumerScenario,
  sizes: setSizeScenario,
  envoy: envoyLiveScenario,
  start: startUpScenario,
  ui: uiPageScenario,
  storm: stormScenario,
} as const;
type ScenarioName = keyof typeof SCENARIOS;

const benchDir = dirname(fileURLToPath(import.meta.url));
const rootDir = dirname(benchDir);

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

function list<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T[] {
  if (value === undefined) return [...allowed];
  const items = value.split(',').map((s) => s.trim());
  const bad = items.filter((item) => !allowed.includes(item as T));
  if (bad.length > 0) fail(`${flag}: unknown ${bad.join(', ')} (expected ${allowed.join(', ')})`);
  return items as T[];
}

function envoyBinary(): string | undefined {
  try {
    return findEnvoy();
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      servers: { type: 'string' },
      clusters: { type: 'string' },
      'ramp-rounds': { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      'render-only': { type: 'boolean', default: false },
      'quiet-wait': { type: 'string' },
    },
  });
  const base = PROFILES[values.quick ? 'quick' : 'full'];
  const clusters = values.clusters?.split(',').map((c) => Number(c.trim()));
  if (clusters?.some((c) => !Number.isInteger(c) || c < 2)) {
    fail(
      `--clusters: expected cluster counts of at least 2, comma-separated (got ${values.clusters})`,
    );
  }
  const rampRounds =
    values['ramp-rounds'] === undefined ? undefined : Number(values['ramp-rounds']);
  if (rampRounds !== undefined && !(Number.isInteger(rampRounds) && rampRounds >= 1)) {
    fail(
      `--ramp-rounds: expected a whole number of ramps, at least 1 (got ${values['ramp-rounds']})`,
    );
  }
  const quietWait = Number(values['quiet-wait'] ?? (values.quick ? 0 : 150));
  if (!(Number.isFinite(quietWait) && quietWait >= 0)) {
    fail(`--quiet-wait: expected seconds, 0 or more (got ${values['quiet-wait']})`);
  }
  const profile = {
    ...base,
    ...(clusters ? { sizes: { ...base.sizes, clusters } } : {}),
    ...(rampRounds ? { rampRounds } : {}),
  };
  if (values['render-only']) {
    // Refreshes the doc's table from the last results, e.g. after changing the report.
    const file = join(benchDir, 'results', `${profile.name}.json`);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
    await refreshBenchmarksDoc(join(rootDir, 'docs/BENCHMARKS.md'), saved);
    await refreshStormDoc(join(rootDir, 'docs/BENCHMARKS.md'), saved);
    process.stdout.write(`refreshed docs/BENCHMARKS.md from ${relative(rootDir, file)}\n`);
    return 0;
  }
  const scenarios = list('--only', values.only, Object.keys(SCENARIOS) as ScenarioName[]);
  const servers = list<ServerKind>('--servers', values.servers, SERVER_KINDS);
  const complete =
    scenarios.length === Object.keys(SCENARIOS).length &&
    servers.length === SERVER_KINDS.length &&
    !clusters &&
    (rampRounds === undefined || rampRounds === base.rampRounds);
  const found = machineInfo(envoyBinary());
  const pin = !values['no-pin'] && found.cpus >= 2 ? { server: '0', loadgen: '1' } : undefined;
  const log = (message: string) => process.stdout.write(`${message}\n`);
  log(
    `bench (${profile.name}): ${scenarios.join(', ')} on ${servers.join(', ')}; building the Go programs and the mock's bench entry`,
  );
  const workDir = mkdtempSync(join(tmpdir(), 'mock-istiod-bench-'));
  const ctx: BenchContext = {
    rootDir,
    workDir,
    profile,
    servers,
    bins: buildBenchPrograms(benchDir),
    pin,
    log,
  };
  // The load the report shows is the one measuring starts on, after the build and the wait.
  const machine = { ...found, loadAverage: await waitForQuiet(quietWait * 1000, log) };
  // And how fast the host runs, which the load average does not see (neighbours' work).
  const launch: NonNullable<MachineInfo['nodeLaunchMs']> = { start: nodeLaunchMs() };
  machine.nodeLaunchMs = launch;
  log(
    `node -e '' takes ${launch.start} ms (median of ${LAUNCH_RUNS}): the host's speed as measuring starts`,
  );
  const startedAt = new Date().toISOString();
  const results: Record<string, unknown> = {};
  let failures = 0;
  try {
    for (const name of scenarios) {
      try {
        results[name] = await SCENARIOS[name](ctx);
      } catch (err) {
        failures += 1;
        results[name] = { error: err instanceof Error ? err.message : String(err) };
        log(`${name}: FAILED: ${String((results[name] as { error: string }).error)}`);
      }
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  launch.end = nodeLaunchMs();
  const args = process.argv.slice(2).filter((a) => a !== '--quick');
  const command = `npm run ${profile.name === 'quick' ? 'bench:quick' : 'bench'}${
    args.length > 0 ? ` --${args.map((a) => ` ${a}`).join('')}` : ''
  }`;
  const report = {
    profile: profile.name,
    startedAt,
    finishedAt: new Date().toISOString(),
    command,
    machine,
    pinning: pin
      ? `server on CPU ${pin.server}, generator on CPU ${pin.loadgen} (taskset)`
      : 'none',
    parameters: profile,
    results,
  };
  const outFile = join(
    benchDir,
    'results',
    complete ? `${profile.name}.json` : `${profile.name}-partial.json`,
  );
  mkdirSync(dirname(outFile), { recursive: true });
  await writeFormatted(outFile, JSON.stringify(report, null, 2));
  log(`results: ${relative(rootDir, outFile)}`);
  if (complete) {
    await refreshBenchmarksDoc(join(rootDir, 'docs/BENCHMARKS.md'), report);
    log('refreshed docs/BENCHMARKS.md');
  }
  // The storm's own table stands alone: a run of the full profile that includes the scenario
  // refreshes it; a quick run's figures stay in its results file.
  if (await refreshStormDoc(join(rootDir, 'docs/BENCHMARKS.md'), report)) {
    log('refreshed the reconnect storm table in docs/BENCHMARKS.md');
  }
  return failures > 0 ? 1 : 0;
}

process.exitCode = await main();
