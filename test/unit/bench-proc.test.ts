/**
 * What the bench reads of a server's CPU from /proc (bench/lib/proc.ts): the process's total
 * and its split by thread name, where a Node process's JavaScript runs on its main thread; and
 * its wait for a quiet machine before it measures.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cpuSeconds,
  hostSpeed,
  nodeLaunchMs,
  QUIET_LOAD,
  threadCpuSeconds,
  waitForQuiet,
} from '../../bench/lib/proc.js';

/** A Node child that spins its main thread for `ms` of CPU, says so, then waits to be ended. */
async function spinningChild(ms: number) {
  const script = `
    const start = process.cpuUsage();
    while ((process.cpuUsage(start).user + process.cpuUsage(start).system) / 1000 < ${ms}) {}
    process.stdout.write('spun\\n');
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  const spun = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('spun')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the child exited (${code}) before spinning`)));
  });
  await spun;
  return child;
}

describe('bench: CPU by thread', () => {
  it("puts a Node process's JavaScript on its main thread, and the threads add up to the process", async () => {
    const child = await spinningChild(150);
    try {
      const threads = threadCpuSeconds(child.pid ?? 0);
      const total = cpuSeconds(child.pid ?? 0);
      expect(threads.get('main')).toBeGreaterThanOrEqual(0.14);
      const sum = [...threads.values()].reduce((a, b) => a + b, 0);
      // Read one after the other, while V8's threads may still be finishing their work.
      expect(Math.abs(sum - total)).toBeLessThan(0.05);
    } finally {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    }
  });

  it('is empty for a process that is gone', () => {
    expect(threadCpuSeconds(2 ** 22 + 1).size).toBe(0);
  });
});

describe('bench: the wait for a quiet machine', () => {
  /** A load average that reads `values` one after the other, then stays on the last. */
  const reading = (...values: number[]) => {
    let i = 0;
    return () => values[Math.min(i++, values.length - 1)] as number;
  };

  it('starts at once on a quiet machine, and says nothing', async () => {
    const lines: string[] = [];
    const load = await waitForQuiet(60_000, (l) => lines.push(l), { load: reading(0.1) });
    expect(load).toBe(0.1);
    expect(lines).toEqual([]);
  });

  it('waits while the load average falls, and starts once it is under the bound', async () => {
    const lines: string[] = [];
    const load = await waitForQuiet(60_000, (l) => lines.push(l), {
      load: reading(1.8, 1.2, 0.7, 0.4),
      pollMs: 1,
    });
    expect(load).toBe(0.4);
    expect(load).toBeLessThan(QUIET_LOAD);
    expect(lines).toEqual([
      'waiting up to 60 s for the 1-minute load average (1.80) to fall under 0.5',
      'load average 0.40: starting',
    ]);
  });

  it('starts anyway when the time is up, and returns the load it measures on', async () => {
    const lines: string[] = [];
    const load = await waitForQuiet(20, (l) => lines.push(l), { load: reading(2), pollMs: 1 });
    expect(load).toBe(2);
    expect(lines.at(-1)).toBe(
      'load average still 2.00 after 0 s: starting anyway (the report says so)',
    );
  });

  it('does not wait when told not to (the quick run)', async () => {
    const lines: string[] = [];
    expect(await waitForQuiet(0, (l) => lines.push(l), { load: reading(3) })).toBe(3);
    expect(lines).toEqual([]);
  });
});

describe("bench: the host's speed", () => {
  it("reads a program's launch to exit as the median of its runs", () => {
    // A stand-in for Node that takes 60 ms and ignores `-e ''`: every run takes at least that.
    const dir = mkdtempSync(join(tmpdir(), 'bench-launch-'));
    try {
      const slow = join(dir, 'slow-node');
      writeFileSync(slow, '#!/bin/sh\nsleep 0.06\n', { mode: 0o755 });
      expect(nodeLaunchMs(3, slow)).toBeGreaterThanOrEqual(60);
      // The real one, for the figure's shape: one decimal.
      const ms = nodeLaunchMs(3);
      expect(ms).toBeGreaterThan(0);
      expect(Math.round(ms * 10) / 10).toBe(ms);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says both readings when the run has them, and nothing for results from before', () => {
    expect(hostSpeed({})).toBe('');
    expect(hostSpeed({ nodeLaunchMs: { start: 37.2 } })).toContain('at start: 37.2 ms');
    expect(hostSpeed({ nodeLaunchMs: { start: 37.2, end: 51 } })).toContain(
      'at start / end: 37.2 / 51 ms',
    );
  });
});
