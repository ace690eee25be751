/**
 * Start-up: how long until the mock serves, in a fresh process each time, against Node's own
 * floor. Built first (`npm run build`), so the figures are the compiled package's:
 *
 * - `cli`: `mock-istiod serve` (bin/mock-istiod.js) from launch until 15012's stand-in port
 *   accepts a connection;
 * - `tsx`: the same from the TypeScript sources under tsx (what `npm start` ran before it ran
 *   the compiled CLI);
 * - `library`: a script importing the package and awaiting its first `startMockIstiod()`,
 *   from launch until it says so; the script also reports import + first start as measured
 *   inside the process (the figure a test suite pays);
 * - the floors: `node -e ''` from launch to exit, and a Node one-liner from launch until it
 *   accepts on a port.
 *
 * Runs interleave the variants so that background noise spreads over all of them; medians are
 * reported.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePorts } from '../../src/util/ports.js';
import type { BenchContext } from '../lib/context.js';
import { cpuSeconds, round } from '../lib/proc.js';
import { median } from '../lib/stats.js';

export const START_VARIANTS = ['nodeExit', 'nodeListen', 'cli', 'tsx', 'library'] as const;
export type StartVariant = (typeof START_VARIANTS)[number];
const CPU_VARIANTS = ['nodeListen', 'cli', 'library'] as const;
export type CpuVariant = (typeof CPU_VARIANTS)[number];

export interface StartUpResult {
  runs: number;
  /** Milliseconds from launch to serving (to exit for `nodeExit`), per variant, in run order. */
  samples: Record<StartVariant, number[]>;
  median: Record<StartVariant, number>;
  /**
   * CPU milliseconds (its threads' time on a CPU, from /proc) the process had used when it
   * served: steadier than wall time on a shared machine. Not for `nodeExit` (gone by then) nor
   * `tsx` (it runs Node in a child process).
   */
  cpu: Record<CpuVariant, number[]>;
  medianCpu: Record<CpuVariant, number>;
  /** Inside the library process: import, the first `startMockIstiod()`, and both (ms). */
  library: {
    importMs: number[];
    startMs: number[];
    firstMs: number[];
    median: { importMs: number; startMs: number; firstMs: number };
  };
}

const DEADLINE_MS = 30_000;

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Kills the process (its group: tsx runs Node in a child) and waits for it to go. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-(child.pid as number), 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
  await gone;
}

function cpuMs(child: ChildProcess): number {
  try {
    return round(cpuSeconds(child.pid as number) * 1000, 0);
  } catch {
    return Number.NaN;
  }
}

function launch(command: string, args: string[], cwd: string): ChildProcess {
  return spawn(command, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

function failure(child: ChildProcess, what: string, stderr: string[]): Error {
  const code = child.exitCode ?? child.signalCode;
  return new Error(`${what} exited (${String(code)}) before serving: ${stderr.join('').trim()}`);
}

/** Launches `command` and times it until `port` accepts; the process is stopped after. */
async function timeToAccept(command: string, args: string[], cwd: string, port: number) {
  const started = performance.now();
  const child = launch(command, args, cwd);
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  try {
    for (;;) {
      if (await accepts(port)) {
        const ms = round(performance.now() - started, 1);
        return { ms, cpuMs: cpuMs(child) };
      }
      if (child.exitCode !== null) throw failure(child, args.join(' '), stderr);
      if (performance.now() - started > DEADLINE_MS) throw new Error(`${command}: no listener`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    await stop(child);
  }
}

/** Launches `command` and times it until it exits (0) or prints its first line. */
async function timeToLine(command: string, args: string[], cwd: string) {
  const started = performance.now();
  const child = launch(command, args, cwd);
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  let cpu = Number.NaN;
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`${command}: no answer`)), DEADLINE_MS);
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (!out.includes('\n')) return;
        cpu = cpuMs(child);
        resolve(out.slice(0, out.indexOf('\n')));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(out);
        else reject(failure(child, args.join(' '), stderr));
      });
    });
    return { ms: round(performance.now() - started, 1), line, cpuMs: cpu };
  } finally {
    await stop(child);
  }
}

/** The file `import 'mock-istiod'` loads: the package's `exports` entry for ".". */
function packageEntry(rootDir: string): string {
  const manifest = JSON.parse(readFileSync(join(rootDir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { default: string }>;
  };
  const entry = manifest.exports['.'] ?? 'dist/src/index.js';
  return join(rootDir, typeof entry === 'string' ? entry : entry.default);
}

/** The library script: import the built package, start one mock, say how long each took. */
function writeLibraryScript(ctx: BenchContext): string {
  const entry = pathToFileURL(packageEntry(ctx.rootDir)).href;
  const script = join(ctx.workDir, 'first-start.mjs');
  writeFileSync(
    script,
    [
      'const t0 = performance.now();',
      `const { startMockIstiod } = await import(${JSON.stringify(entry)});`,
      'const t1 = performance.now();',
      'const istiod = await startMockIstiod();',
      'const t2 = performance.now();',
      'process.stdout.write(JSON.stringify({ importMs: t1 - t0, startMs: t2 - t1 }) + "\\n");',
      'await istiod.close();',
      '',
    ].join('\n'),
  );
  return script;
}

export async function startUpScenario(ctx: BenchContext): Promise<StartUpResult> {
  ctx.log('start-up: npm run build (the figures are the compiled package’s)');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ctx.rootDir, stdio: 'ignore' });
  const script = writeLibraryScript(ctx);
  const node = process.execPath;
  const tsx = join(ctx.rootDir, 'node_modules/.bin/tsx');
  const runs = ctx.profile.name === 'quick' ? 7 : 11;
  const samples = Object.fromEntries(START_VARIANTS.map((v) => [v, [] as number[]])) as Record<
    StartVariant,
    number[]
  >;
  const cpu = Object.fromEntries(CPU_VARIANTS.map((v) => [v, [] as number[]])) as Record<
    CpuVariant,
    number[]
  >;
  const library = { importMs: [] as number[], startMs: [] as number[], firstMs: [] as number[] };
  const serveArgs = (xds: number, control: number) => [
    'serve',
    '--port',
    String(xds),
    '--control-port',
    String(control),
    '--log-level',
    'error',
  ];
  for (let run = 0; run < runs; run++) {
    const [xds, control] = (await freePorts(2)) as [number, number];
    const cwd = ctx.rootDir;
    samples.nodeExit.push((await timeToLine(node, ['-e', ''], cwd)).ms);
    const listen = `require('net').createServer().listen(${xds}, '127.0.0.1')`;
    const bin = join(ctx.rootDir, 'bin/mock-istiod.js');
    for (const [variant, served] of [
      ['nodeListen', await timeToAccept(node, ['-e', listen], cwd, xds)],
      ['cli', await timeToAccept(node, [bin, ...serveArgs(xds, control)], cwd, xds)],
    ] as const) {
      samples[variant].push(served.ms);
      cpu[variant].push(served.cpuMs);
    }
    samples.tsx.push(
      (await timeToAccept(tsx, ['src/cli/main.ts', ...serveArgs(xds, control)], cwd, xds)).ms,
    );
    const first = await timeToLine(node, [script], cwd);
    samples.library.push(first.ms);
    cpu.library.push(first.cpuMs);
    const inside = JSON.parse(first.line) as { importMs: number; startMs: number };
    library.importMs.push(round(inside.importMs, 1));
    library.startMs.push(round(inside.startMs, 1));
    library.firstMs.push(round(inside.importMs + inside.startMs, 1));
    ctx.log(
      `start-up run ${run + 1}: ${START_VARIANTS.map((v) => `${v} ${samples[v].at(-1)}`).join(', ')} ms; library import ${library.importMs.at(-1)} + first start ${library.startMs.at(-1)} ms`,
    );
  }
  return {
    runs,
    samples,
    median: Object.fromEntries(START_VARIANTS.map((v) => [v, median(samples[v])])) as Record<
      StartVariant,
      number
    >,
    cpu,
    medianCpu: Object.fromEntries(CPU_VARIANTS.map((v) => [v, median(cpu[v])])) as Record<
      CpuVariant,
      number
    >,
    library: {
      ...library,
      median: {
        importMs: median(library.importMs),
        startMs: median(library.startMs),
        firstMs: median(library.firstMs),
      },
    },
  };
}
