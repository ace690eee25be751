/**
 * The probes' count of what V8 optimizes (bench/lib/v8-compiles.ts), read from the lines a
 * real Node prints with `--trace-opt`: a format V8 may change with any Node release.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { compileCounter, describeCompiles, probeServer } from '../../bench/lib/v8-compiles.js';

/** What a Node process with `flags` prints while one function gets hot enough for TurboFan. */
function traceOf(flags: readonly string[]): string[] {
  const script = `
    function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
    let total = 0;
    for (let i = 0; i < 20000; i++) total += hot(100);
    console.log('done', total);
  `;
  const run = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.split('\n');
}

describe('bench: counting V8 optimizations', () => {
  it('counts the functions a real Node optimizes while counting is on, TurboFan among them', () => {
    const counter = compileCounter(['--max-semi-space-size=16']);
    expect(counter.extra.nodeFlags).toEqual(['--max-semi-space-size=16', '--trace-opt']);
    const lines = traceOf(counter.extra.nodeFlags ?? []);
    const feed = (all: string[]) => all.forEach((line) => counter.extra.onOtherLine?.(line));

    feed(lines);
    counter.start();
    expect(counter.stop()).toEqual({ count: 0, turbofan: 0, ms: 0 });

    counter.start();
    feed(lines);
    const counted = counter.stop();
    expect(counted.count).toBeGreaterThan(0);
    expect(counted.turbofan).toBeGreaterThan(0);
    expect(counted.turbofan).toBeLessThanOrEqual(counted.count);
    expect(counted.ms).toBeGreaterThan(0);
    expect(describeCompiles(counted)).toMatch(
      /^\d+ functions optimized \(\d+ to TurboFan, \d+ ms compiling\)$/,
    );

    feed(lines);
    expect(counter.stop()).toEqual(counted);
  });

  it('counts nothing in lines that are not a finished optimization', () => {
    const counter = compileCounter();
    counter.start();
    for (const line of traceOf([])) counter.extra.onOtherLine?.(line);
    expect(counter.stop().count).toBe(0);
  });

  it("starts the mock with the probe's flags, and counts on Node servers only", () => {
    const mock = probeServer('mock', {
      mockFlags: ' --no-lazy  --max-semi-space-size=16',
      compiles: true,
    });
    expect(mock.extra.nodeFlags).toEqual(['--no-lazy', '--max-semi-space-size=16', '--trace-opt']);
    expect(mock.counter).toBeDefined();
    const floor = probeServer('h2', { mockFlags: '--no-lazy', compiles: true });
    expect(floor.extra.nodeFlags).toEqual(['--trace-opt']);
    const peer = probeServer('peer', { mockFlags: '--no-lazy', compiles: true });
    expect(peer).toEqual({ extra: { nodeFlags: [] } });
    expect(probeServer('mock', { mockFlags: undefined, compiles: false })).toEqual({
      extra: { nodeFlags: [] },
    });
  });
});
