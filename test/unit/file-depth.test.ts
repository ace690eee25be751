/**
 * The nesting scan that refuses a deep resource file before the YAML parser sees it: it
 * counts flow brackets and block indentation, not what is quoted or commented, passes real
 * configurations, and takes linear time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { MAX_RESOURCE_FILE_DEPTH, nestingProblem } from '../../src/resources/file-depth.js';
import { packageRoot } from '../../src/util/package-root.js';

const LIMIT = MAX_RESOURCE_FILE_DEPTH;
const FLOW =
  /^line (\d+): nested more than 256 levels deep \(flow brackets\); a resource file may nest at most 256 levels$/;
const BLOCK =
  /^line (\d+): content starts at column \d+ \(block nesting\); a resource file may indent at most 512 columns \(256 levels\)$/;

const brackets = (n: number): string => '['.repeat(n) + ']'.repeat(n);
const jsonNest = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const blockNest = (n: number, step = 1): string =>
  Array.from({ length: n }, (_, i) => `${' '.repeat(step * i)}k:`).join('\n') + ' 1\n';

describe('nestingProblem', () => {
  it('passes nesting up to the limit and refuses one level more, naming the line', () => {
    expect(nestingProblem(`a: 1\nresources: ${brackets(LIMIT)}\n`)).toBeUndefined();
    expect(nestingProblem(`a: 1\nresources: ${brackets(LIMIT + 1)}\n`)).toMatch(FLOW);
    expect(nestingProblem(`a: 1\nresources: ${brackets(LIMIT + 1)}`)?.match(FLOW)?.[1]).toBe('2');
    expect(nestingProblem(jsonNest(LIMIT))).toBeUndefined();
    expect(nestingProblem(jsonNest(LIMIT + 1))).toMatch(FLOW);
    expect(nestingProblem(blockNest(2 * LIMIT + 1))).toBeUndefined();
    expect(nestingProblem(blockNest(2 * LIMIT + 2))?.match(BLOCK)?.[1]).toBe(`${2 * LIMIT + 2}`);
    expect(nestingProblem(`${'- '.repeat(LIMIT)}x\n`)).toBeUndefined();
    expect(nestingProblem(`${'- '.repeat(LIMIT + 1)}x\n`)).toMatch(BLOCK);
    expect(nestingProblem(`${'  ? '.repeat(LIMIT)}x\n`)).toMatch(BLOCK);
  });

  it('does not count brackets in quoted scalars, with their escapes, or in comments', () => {
    const many = '['.repeat(2 * LIMIT);
    expect(nestingProblem(`a: "${many}"\n`)).toBeUndefined();
    expect(nestingProblem(`a: "\\"${many}\\\\"\n`)).toBeUndefined();
    expect(nestingProblem(`a: 'it''s ${many}'\n`)).toBeUndefined();
    expect(nestingProblem(`{"a": "${many}", "b": ["${many}"]}`)).toBeUndefined();
    expect(nestingProblem(`[&x '${many}', !!str "${many}"]\n`)).toBeUndefined();
    expect(nestingProblem(`a: 1 # ${many}\n# ${many}\nb: 2\n`)).toBeUndefined();
    // A quoted scalar over lines, as YAML allows: its first line is not counted (its later
    // lines are, in the scan that ends quotes at the line's end).
    expect(nestingProblem(`a: "x ${many}\n  y ${'['.repeat(LIMIT)}"\nb: 1\n`)).toBeUndefined();
    // A blank or comment-only line nests nothing, however far indented.
    expect(
      nestingProblem(`a: 1\n${' '.repeat(4 * LIMIT)}\n${' '.repeat(4 * LIMIT)}# x\n`),
    ).toBeUndefined();
  });

  it('counts brackets after a quote inside a word, and after the closing escape', () => {
    const deep = '['.repeat(LIMIT + 1);
    expect(nestingProblem(`a: [it's ${deep}`)).toMatch(FLOW);
    expect(nestingProblem(`a: ["x\\" ${deep}`)).toBeUndefined(); // still quoted
    expect(nestingProblem(`a: ["x\\\\" ${deep}`)).toMatch(FLOW);
    expect(nestingProblem(`a: ['x'' ${deep}`)).toBeUndefined(); // still quoted
    expect(nestingProblem(`a: ['x''' ${deep}`)).toMatch(FLOW);
    expect(nestingProblem(`a: [x#1 ${deep}`)).toMatch(FLOW); // # in a word is no comment
    expect(nestingProblem(`a: [x - '${deep}`)).toMatch(FLOW); // - inside a plain scalar
  });

  it('cannot be led to hide brackets by a quote it reads differently from the parser', () => {
    const deep = '['.repeat(LIMIT + 1);
    // A quoted scalar over lines whose next line closes brackets inside the quote.
    expect(nestingProblem(`[ "x\n${']" [ "x\n'.repeat(LIMIT + 1)}`)).toMatch(FLOW);
    // A quote in a plain scalar going on over a line.
    expect(nestingProblem(`k: a\n  'b\nv: ${deep}`)).toMatch(FLOW);
    expect(nestingProblem(`k: 'x\n [ '\nv: ${deep}`)).toMatch(FLOW);
    // A bracket in a plain scalar, left open, does not turn off the block check.
    expect(nestingProblem(`a: x[\n${blockNest(2 * LIMIT + 2)}`)).toMatch(BLOCK);
    // Closing brackets quoted after an anchor or a tag close nothing.
    expect(nestingProblem(`[ &a ']' `.repeat(LIMIT + 1))).toMatch(FLOW);
    expect(nestingProblem(`[ !!str "]" `.repeat(LIMIT + 1))).toMatch(FLOW);
  });

  it('passes the example configurations, which the parser reads', () => {
    const dir = join(packageRoot(), 'envoy-configs', 'resources');
    const names = readdirSync(dir).filter((n) => n.endsWith('.yaml'));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const text = readFileSync(join(dir, name), 'utf8');
      expect(parseAllDocuments(text)).toBeTruthy();
      expect(nestingProblem(text), name).toBeUndefined();
    }
  });

  it('takes linear time: 1 MiB of configuration in milliseconds, a deep file at once', () => {
    const one = readFileSync(join(packageRoot(), 'envoy-configs', 'resources', 'lab.yaml'), 'utf8');
    const big = one.repeat(Math.ceil((1 << 20) / one.length));
    nestingProblem(big); // compiled once
    const started = performance.now();
    expect(nestingProblem(big)).toBeUndefined();
    // About 10 ms on an idle machine, 30 on a busy one; the bound leaves room for both.
    expect(performance.now() - started).toBeLessThan(200);
    const flow = `resources: ${brackets(1_000_000)}`;
    const block = blockNest(5_000);
    const deepStarted = performance.now();
    expect(nestingProblem(flow)).toMatch(FLOW);
    expect(nestingProblem(block)).toMatch(BLOCK);
    expect(performance.now() - deepStarted).toBeLessThan(100);
  });
});
