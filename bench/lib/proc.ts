/**
 * What the harness reads about processes and the machine from /proc (Linux): CPU seconds
 * (user + system) and resident memory of a process, and the facts a result is reported with.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { median } from './stats.js';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on every Linux this runs on). */
const CLOCK_TICKS = clockTicks();

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/**
 * Each thread's time on a CPU so far, in seconds, from /proc/<pid>/task/<tid>/schedstat (in
 * nanoseconds), given to `add` with its tid; a thread that exits between the listing and the
 * read is left out. False where there is no such process or no schedstat.
 */
function eachThreadSeconds(pid: number, add: (tid: string, seconds: number) => void): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  for (const tid of tids) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      add(tid, ns / 1e9);
    } catch {
      // The thread exited between the listing and the read.
    }
  }
  return true;
}

/**
 * CPU seconds the process has used so far: the sum of its threads' time on a CPU from
 * schedstat, in nanoseconds, so that a push of a few milliseconds is measured and not rounded
 * to the clock tick (10 ms) that /proc/<pid>/stat counts in. A thread that has exited no
 * longer counts: Node's and Go's threads live as long as the process. Falls back to
 * /proc/<pid>/stat's ticks where schedstat is missing.
 */
export function cpuSeconds(pid: number): number {
  let seconds = 0;
  eachThreadSeconds(pid, (_tid, s) => (seconds += s));
  return seconds > 0 ? seconds : tickSeconds(pid);
}

/**
 * CPU seconds so far per thread: the main thread as `main` (where a Node process runs its
 * JavaScript), the others by name (`/proc/<pid>/task/<tid>/comm`): V8's worker threads
 * (`V8Worker`, on Node 24: the garbage collector's helpers and the optimizing compilers),
 * libuv's pool. Empty where schedstat is missing.
 */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  eachThreadSeconds(pid, (tid, seconds) => {
    const name =
      tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    byName.set(name, (byName.get(name) ?? 0) + seconds);
  });
  return byName;
}

/** User + system CPU seconds from /proc/<pid>/stat, in clock ticks. */
function tickSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: split after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Resident set size in bytes (`VmRSS`). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/**
 * The read and write system calls a process has made so far (`syscr`, `syscw` of
 * /proc/<pid>/io: every read, recv, write, send and their vector forms); zeros where
 * unreadable.
 */
export function ioCalls(pid: number): { reads: number; writes: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
    return { reads: field('syscr'), writes: field('syscw') };
  } catch {
    return { reads: 0, writes: 0 };
  }
}

/** Measures the CPU seconds `pids` use while `work` runs, and the wall time. */
export async function measured<T>(
  pids: Record<string, number>,
  work: () => Promise<T>,
): Promise<{ value: T; wallMs: number; cpu: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const started = performance.now();
  const value = await work();
  const wallMs = performance.now() - started;
  const cpu = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [k, round(cpuSeconds(pid) - (before[k] ?? 0), 3)]),
  );
  return { value, wallMs, cpu };
}

/**
 * The kernel's count of connections dropped because a listening socket's accept queue was
 * full (`TcpExt: ListenOverflows` in /proc/net/netstat): machine-wide, so a difference over
 * a short storm on loopback is that storm's, give or take other work's. 0 where unreadable.
 */
export function listenOverflows(): number {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    for (let i = 0; i + 1 < lines.length; i++) {
      const names = lines[i]!.split(/\s+/);
      if (names[0] !== 'TcpExt:') continue;
      const values = lines[i + 1]!.split(/\s+/);
      return Number(values[names.indexOf('ListenOverflows')] ?? 0) || 0;
    }
  } catch {
    // not Linux
  }
  return 0;
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function commandLine(file: string, args: string[]): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return 'unavailable';
  }
}

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
  node: string;
  go: string;
  envoy: string;
  /**
   * 1-minute load average when measuring started (after the build, and the wait for a quiet
   * machine): above 0.5 means others were using the CPUs.
   */
  loadAverage: number;
  /**
   * How fast the host ran when measuring started and when it ended: `node -e ''` from launch
   * to exit, median of {@link LAUNCH_RUNS} (see {@link nodeLaunchMs}). Absent in results from
   * before it was measured.
   */
  nodeLaunchMs?: { start: number; end?: number };
}

/** How many `node -e ''` a machine-speed reading takes (its median is the reading). */
export const LAUNCH_RUNS = 11;

/**
 * `node -e ''` from launch to exit, median of `runs`, in ms: a reading of how fast the host
 * runs now. The load average sees this machine's own processes only; on a shared host the
 * neighbours' work shows as everything taking longer, this too (on the machines of
 * docs/BENCHMARKS.md about 37 ms when quiet, 45–55 when not).
 */
export function nodeLaunchMs(runs = LAUNCH_RUNS, execPath = process.execPath): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    execFileSync(execPath, ['-e', ''], { stdio: 'ignore' });
    samples.push(performance.now() - started);
  }
  return round(median(samples), 1);
}

/** The 1-minute load average under which a run starts without waiting (see `waitForQuiet`). */
export const QUIET_LOAD = 0.5;

/**
 * Waits, at most `maxMs`, for the machine's 1-minute load average to fall under
 * {@link QUIET_LOAD}: what ran just before (a build, a test run, a probe) still counts in it
 * for a minute or two, and a run that starts then measures the mock and the peer on a machine
 * that is busier for the first of them. Returns the load average it ends on.
 */
export async function waitForQuiet(
  maxMs: number,
  log: (message: string) => void,
  { load = () => loadavg()[0] ?? 0, pollMs = 2_000 }: { load?: () => number; pollMs?: number } = {},
): Promise<number> {
  const deadline = Date.now() + maxMs;
  let now = load();
  if (now < QUIET_LOAD || maxMs <= 0) return round(now, 2);
  log(
    `waiting up to ${Math.round(maxMs / 1000)} s for the 1-minute load average (${now.toFixed(2)}) to fall under ${QUIET_LOAD}`,
  );
  while (now >= QUIET_LOAD && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, maxMs)));
    now = load();
  }
  log(
    now < QUIET_LOAD
      ? `load average ${now.toFixed(2)}: starting`
      : `load average still ${now.toFixed(2)} after ${Math.round(maxMs / 1000)} s: starting anyway (the report says so)`,
  );
  return round(now, 2);
}

/**
 * The report's words for the host's speed during a run (empty for results from before it was
 * measured): the readings, for comparing runs, as the load average cannot.
 */
export function hostSpeed(machine: Pick<MachineInfo, 'nodeLaunchMs'>): string {
  const launch = machine.nodeLaunchMs;
  if (!launch) return '';
  const end = launch.end === undefined ? '' : ` / ${launch.end}`;
  return (
    ` Host speed, \`node -e ''\` launch to exit (median of ${LAUNCH_RUNS}) at start${end ? ' / end' : ''}: ` +
    `${launch.start}${end} ms (a host busy with others' work slows it, and every figure with it).`
  );
}

export function machineInfo(envoyBin: string | undefined): MachineInfo {
  const envoyVersion = envoyBin ? commandLine(envoyBin, ['--version']) : 'not found';
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    kernel: commandLine('uname', ['-r']),
    node: process.version,
    go: commandLine('go', ['version']).replace(/^go version /, ''),
    envoy: /\/(\d+\.\d+\.\d+)\//.exec(envoyVersion)?.[1] ?? envoyVersion,
    loadAverage: round(loadavg()[0] ?? 0, 2),
  };
}
