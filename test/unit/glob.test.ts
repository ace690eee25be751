import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compiledGlobBytes,
  globMatches,
  globProblem,
  MAX_GLOB_LENGTH,
} from '../../src/util/glob.js';

/**
 * The regular expression every node filter used to be turned into: the oracle for the
 * glob's meaning, safe only on small inputs since it backtracks.
 */
function regexOracle(glob: string, value: string): boolean {
  const body = glob
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 's').test(value);
}

// Few letters, so that pieces meet often; the regex's own metacharacters and a line break
// and an astral character (two code units) besides.
const letter = fc.constantFrom('a', 'b', '~', '.', '|', '\n', '😀');
const globChar = fc.oneof(letter, fc.constantFrom('*', '?'));
const text = (chars: fc.Arbitrary<string>, maxLength: number, minLength = 0) =>
  fc.array(chars, { minLength, maxLength }).map((parts) => parts.join(''));

describe('node-id globs', () => {
  it('agree with the regular expression they replace', () => {
    fc.assert(
      fc.property(text(globChar, 10), text(letter, 14), (glob, value) => {
        expect(globMatches(glob, value)).toBe(regexOracle(glob, value));
      }),
      { numRuns: 20_000 },
    );
  });

  it('agree on pieces longer than one 32-bit word of the single-pass search', () => {
    // The value holds the piece (its `?` filled in), one character of it maybe changed, so
    // that long pieces both match and just miss.
    const ab = fc.constantFrom('a', 'a', 'a', 'b');
    const cases = fc
      .record({
        piece: text(fc.constantFrom('a', 'a', '?', 'b'), 80, 33),
        fill: ab,
        before: text(ab, 20),
        after: text(ab, 20),
        change: fc.option(fc.nat(79)),
      })
      .map(({ piece, fill, before, after, change }) => {
        const inner = [...piece].map((c) => (c === '?' ? fill : c));
        if (change !== null && change < inner.length) inner[change] = 'c';
        return { glob: `*${piece}*`, value: before + inner.join('') + after };
      });
    let matched = 0;
    fc.assert(
      fc.property(cases, ({ glob, value }) => {
        const expected = regexOracle(glob, value);
        if (expected && glob.length > 40) matched++;
        expect(globMatches(glob, value)).toBe(expected);
      }),
      { numRuns: 5_000 },
    );
    expect(matched).toBeGreaterThan(100);
  });

  it('agree on values built to match the glob', () => {
    // A value made from the glob itself, each `*` and `?` filled in, must match.
    const filled = fc
      .tuple(text(globChar, 12), fc.array(text(letter, 4), { minLength: 12, maxLength: 12 }))
      .map(([glob, fills]) => {
        let i = 0;
        const value = [...glob]
          .map((c) => (c === '*' ? (fills[i++] ?? '') : c === '?' ? 'a' : c))
          .join('');
        return { glob, value };
      });
    fc.assert(
      fc.property(filled, ({ glob, value }) => {
        expect(globMatches(glob, value)).toBe(true);
        expect(regexOracle(glob, value)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it('match the examples in the docs', () => {
    const id = 'sidecar~10.0.0.7~orders-v1-abc.shop~shop.svc.cluster.local';
    expect(globMatches('sidecar~*~orders-*', id)).toBe(true);
    expect(globMatches('sidecar~10.0.0.?~*', id)).toBe(true);
    expect(globMatches('sidecar~*~reviews-*', id)).toBe(false);
    expect(globMatches(id, id)).toBe(true);
    expect(globMatches('*', '')).toBe(true);
    expect(globMatches('?', '')).toBe(false);
  });

  it('answer the finding-35 pattern at once, and longer ones too', () => {
    // `*a*a*a*a*a*X` against 152 characters took 32.6 s as a regular expression; here the
    // value is 15,200 characters.
    const id = 'a'.repeat(152);
    const patterns = [
      '*a*a*a*a*a*X',
      `${'*a'.repeat(500)}*X`,
      `*${'a?'.repeat(500)}X*`,
      `*${'a'.repeat(1000)}X*`,
    ];
    for (const glob of patterns) {
      const started = performance.now();
      expect(globMatches(glob, id.repeat(100))).toBe(false);
      expect(performance.now() - started).toBeLessThan(100);
    }
  });

  it(`refuse a glob longer than ${MAX_GLOB_LENGTH} characters, or an empty one`, () => {
    expect(globProblem('x'.repeat(MAX_GLOB_LENGTH))).toBeUndefined();
    expect(globProblem('x'.repeat(MAX_GLOB_LENGTH + 1))).toBe(
      `a node-id glob may have at most ${MAX_GLOB_LENGTH} characters; this one has ${MAX_GLOB_LENGTH + 1}`,
    );
    expect(globProblem('')).toMatch(/expected a node-id glob/);
    expect(globProblem(7)).toMatch(/expected a node-id glob/);
  });

  it('keep what they compile within 4 MiB, however many different globs come', () => {
    for (let i = 0; i < 3_000; i++) {
      // Each with a middle piece of `?` and characters of its own: the largest tables.
      const glob = `*${String.fromCharCode(0x4e00 + i)}${'?x'.repeat(200)}${i}*`;
      expect(globMatches(glob, 'sidecar~10.0.0.1~a.b~b.svc.cluster.local')).toBe(false);
    }
    expect(compiledGlobBytes()).toBeGreaterThan(0);
    expect(compiledGlobBytes()).toBeLessThanOrEqual(4 * 1024 * 1024);
    // A glob seen before still matches as it did.
    expect(globMatches('sidecar~*.b~*', 'sidecar~10.0.0.1~a.b~b.svc.cluster.local')).toBe(true);
    expect(globMatches('sidecar~*.b~*', 'sidecar~10.0.0.1~a.c~c.svc.cluster.local')).toBe(false);
  });
});
