/**
 * Counting what V8 optimizes in a Node server while the harness measures: the server runs with
 * `--trace-opt`, whose lines come on its stdout beside the bench API's JSON lines, and each
 * finished optimization is counted, by tier, while counting is on. The probes use it to tell
 * a warming process (functions still reaching Maglev or TurboFan) from a warm one.
 */
import type { ServerKind, StartServerOptions } from './server-process.js';

/** V8's `--trace-opt` line for a finished optimization, with its three phases' times. */
const COMPILED =
  /^\[completed compiling .* \(target (\w+)\).* took ([\d.]+), ([\d.]+), ([\d.]+) ms/;

export interface Compiles {
  /** Functions optimized, all tiers. */
  count: number;
  /** Of which to TurboFan (the rest: Maglev). */
  turbofan: number;
  /** V8's reported compile time, summed (wall time, which waits for a shared CPU). */
  ms: number;
}

export interface CompileCounter {
  /** What the server is started with (`withServer`'s `extra`). */
  extra: Pick<StartServerOptions, 'nodeFlags' | 'onOtherLine'>;
  /** Starts counting from zero. */
  start(): void;
  /** Stops counting; what was counted since `start`. */
  stop(): Compiles;
}

/** A counter for a server started with `flags` (which `--trace-opt` is added to). */
export function compileCounter(flags: readonly string[] = []): CompileCounter {
  let on = false;
  let counted: Compiles = { count: 0, turbofan: 0, ms: 0 };
  return {
    extra: {
      nodeFlags: [...flags, '--trace-opt'],
      onOtherLine: (line) => {
        const m = COMPILED.exec(line);
        if (!m || !on) return;
        counted.count += 1;
        if (m[1]?.startsWith('TURBOFAN')) counted.turbofan += 1;
        counted.ms += Number(m[2]) + Number(m[3]) + Number(m[4]);
      },
    },
    start() {
      counted = { count: 0, turbofan: 0, ms: 0 };
      on = true;
    },
    stop() {
      on = false;
      return counted;
    },
  };
}

/** As a probe's line says it. */
export function describeCompiles(c: Compiles): string {
  return `${c.count} functions optimized (${c.turbofan} to TurboFan, ${c.ms.toFixed(0)} ms compiling)`;
}

/**
 * What a probe starts a server with: the mock with `--mock-flags` (a space-separated list, as
 * the probes take it), and with `--compiles` a counter on every Node server (the peer is Go).
 */
export function probeServer(
  kind: ServerKind,
  options: { mockFlags: string | undefined; compiles: boolean },
): { extra: Pick<StartServerOptions, 'nodeFlags' | 'onOtherLine'>; counter?: CompileCounter } {
  const flags = kind === 'mock' ? (options.mockFlags?.split(' ').filter(Boolean) ?? []) : [];
  if (!options.compiles || kind === 'peer') return { extra: { nodeFlags: flags } };
  const counter = compileCounter(flags);
  return { extra: counter.extra, counter };
}
