/**
 * The pieces that bound what clients choose, alone: the one text cut, a metric's series
 * budget, the page snapshot's size fit, the journal's byte bound and the limit flags.
 */
import { describe, expect, it } from 'vitest';
import { cutText } from '../../src/util/cut-text.js';
import { OTHER_LABEL, SeriesBudget } from '../../src/metrics/label-bounds.js';
import { snapshotFrame } from '../../src/live/ui-trim.js';
import type { UiSnapshot } from '../../src/live/ui-events.js';
import { Journal } from '../../src/journal/journal.js';
import { parseLimitFlags } from '../../src/cli/serve/limit-flags.js';

describe('cutText', () => {
  it('keeps short texts, cuts long ones with their UTF-8 length, and keeps it when cut again', () => {
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('abcdé', 3)).toBe('abc…[truncated, 6 bytes]');
    expect(cutText(cutText('x'.repeat(100), 50), 10)).toBe(
      `${'x'.repeat(10)}…[truncated, 100 bytes]`,
    );
    // Half a surrogate pair is never left at the end.
    expect(cutText('a😀b', 2)).toBe('a…[truncated, 6 bytes]');
  });
});

describe('SeriesBudget', () => {
  it('admits up to seriesMax label sets, then counts the rest as other; a released one frees a place', () => {
    const budget = new SeriesBudget({ labelMaxLength: 4, seriesMax: 2 });
    expect(budget.label('one')).toBe('one');
    expect(budget.label('twotwo')).toBe('twot…[truncated, 6 bytes]');
    expect(budget.label('three')).toBe(OTHER_LABEL);
    expect(budget.admit('a\tb')).toBe('other\tother');
    expect(budget.label('one')).toBe('one');
    budget.release('one');
    expect(budget.label('four')).toBe('four');
    expect(budget.cut('a\tb')).toBe('a b');
  });
});

describe('snapshotFrame', () => {
  it('drops the oldest journal rows, then other lists, until the frame fits, and says so', () => {
    const row = (seq: number) => ({ seq, text: 'x'.repeat(1000) });
    const snapshot = {
      journal: Array.from({ length: 100 }, (_, i) => row(i)),
      stats: [],
      proxies: [row(1000)],
      admins: [],
      faults: [],
    } as unknown as UiSnapshot;
    const frame = snapshotFrame(snapshot, 20_000);
    expect(Buffer.byteLength(frame)).toBeLessThanOrEqual(20_000);
    const data = JSON.parse(frame.split('\n')[1]?.slice('data: '.length) ?? '') as {
      journal: { seq: number }[];
      proxies: unknown[];
      trimmed: Record<string, number>;
    };
    expect(data.journal.at(-1)?.seq).toBe(99);
    expect(data.trimmed.journal).toBe(100 - data.journal.length);
    expect(data.proxies).toHaveLength(1);
    // Small enough already: as it was, with no `trimmed`.
    expect(snapshotFrame(snapshot, 1e9)).not.toContain('trimmed');
  });
});

describe('Journal byte bound', () => {
  it('drops the oldest entries past maxBytes, keeping at least the newest', () => {
    const journal = new Journal(100, 1000);
    for (let i = 0; i < 5; i++) {
      journal.record({ kind: 'stale', direction: 'request', nonce: `${i}${'n'.repeat(300)}` });
    }
    expect(journal.query().map((e) => e.seq)).toEqual([4, 5]);
    journal.record({ kind: 'stale', direction: 'request', nonce: 'n'.repeat(5000) });
    expect(journal.query().map((e) => e.seq)).toEqual([6]);
    journal.clear();
    journal.record({ kind: 'open', direction: 'stream' });
    expect(journal.query().map((e) => e.seq)).toEqual([7]);
  });
});

describe('limit flags', () => {
  it('sets only the limits given, and refuses what is not a positive integer', () => {
    expect(parseLimitFlags({})).toEqual({});
    expect(parseLimitFlags({ 'nack-text-max': '100', 'journal-max-bytes': '2048' })).toEqual({
      nackTextMax: 100,
      journalMaxBytes: 2048,
    });
    expect(() => parseLimitFlags({ 'metric-series-max': '0' })).toThrow(
      '--metric-series-max: expected a positive integer, got "0"',
    );
  });
});
