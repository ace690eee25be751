/**
 * The journal read from a cursor (`after(since)`), in place: what a long poll reads while it
 * waits, instead of a copy of the whole ring.
 */
import { describe, expect, it } from 'vitest';
import { filterEntries, Journal } from '../../src/journal/journal.js';

function journalOf(size: number, count: number): Journal {
  const journal = new Journal(size);
  for (let i = 0; i < count; i += 1) {
    journal.record({ kind: 'ack', direction: 'request', nodeId: `n${i % 3}` });
  }
  return journal;
}

const seqs = (entries: Iterable<{ seq: number }>) => [...entries].map((e) => e.seq);

describe('the journal read from a cursor', () => {
  it('yields the entries after the cursor, oldest first, across the ring wrapping', () => {
    const journal = journalOf(5, 12);
    expect(journal.lastSeq).toBe(12);
    expect(seqs(journal.after(0))).toEqual([8, 9, 10, 11, 12]);
    expect(seqs(journal.after(9))).toEqual([10, 11, 12]);
    expect(seqs(journal.after(12))).toEqual([]);
    expect(seqs(journal.after(40))).toEqual([]);
    expect(seqs(journalOf(5, 3).after(1))).toEqual([2, 3]);
  });

  it('answers a query as filtering every entry did', () => {
    const journal = journalOf(7, 23);
    const all = [...journal.after(0)];
    for (const filter of [{}, { since: 19 }, { node: 'n1', since: 17 }, { since: 18, limit: 2 }]) {
      expect(journal.query(filter)).toEqual(filterEntries(all, filter));
    }
  });

  it('yields nothing once cleared, and what comes after', () => {
    const journal = journalOf(4, 6);
    journal.clear();
    expect(seqs(journal.after(0))).toEqual([]);
    journal.record({ kind: 'close', direction: 'stream' });
    expect(seqs(journal.after(0))).toEqual([7]);
  });
});
