/**
 * Docs that cannot drift: every code block of README.md, examples/README.md and docs/*.md
 * is run, or says why not (the convention: docs/docs-tests.md).
 *
 * - ```ts: type-checked and run as a user would (ts-snippets.ts), against a real mock and
 *   the real Envoy the snippet starts;
 * - ```sh: run as one terminal session per file against a mock and a real Envoy on free
 *   ports (sh-session.ts), with the documented outputs checked by shape;
 * - ```ts e2e: the text of an examples/ file an e2e test runs (checked to be that file);
 * - ```text, ```json, ```yaml and blocks marked `no-run`: shown, not run.
 *
 * A failure names the file and line of the block. The summary table at the end counts what
 * ran in each file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  docBlocks,
  docFiles,
  isE2e,
  isNoRun,
  RUN_LANGS,
  SHOWN_LANGS,
  type Block,
} from './markdown.js';
import { markerOf, markerProblems } from './markers.js';
import { REPO, ShSession } from './sh-session.js';
import { TsSnippets } from './ts-snippets.js';

const FILES = docFiles(REPO);
const blocks = docBlocks(REPO);
/** The words that say why a block is not run, in English or (docs/*.ko.md) in Korean. */
const NO_RUN_REASON =
  /docs tests? (do|does) not run|not run by the docs tests?|문서 테스트는 (이 블록을 |이 명령을 |이 명령들을 )?실행하지 않/i;
const runs = (lang: string) => (b: Block) =>
  b.lang === lang && !isNoRun(b) && !isE2e(b) && markerOf(b) === undefined;
const tsBlocks = blocks.filter(runs('ts'));
/** The examples/ file a ```ts e2e block is, from its first line (`// examples/x.ts …`). */
const exampleOf = (b: Block): string | undefined =>
  /^\/\/ (examples\/[\w./-]+\.ts)\b/.exec(b.code)?.[1];
const label = (b: Block) => `${b.file}:${b.line}`;

interface Counts {
  ts: number;
  sh: number;
  commands: number;
  shown: number;
  e2e: number;
  long: number;
  cluster: number;
  noRun: number;
  failed: number;
}
const counts = new Map<string, Counts>(
  FILES.map((f) => [
    f,
    {
      ts: 0,
      sh: 0,
      commands: 0,
      shown: 0,
      e2e: 0,
      long: 0,
      cluster: 0,
      noRun: 0,
      failed: 0,
    },
  ]),
);
const count = (b: Block) => counts.get(b.file)!;
/** The blocks run, by file: `ts 162`, `sh 140`. */
const ran = new Map<string, string[]>();
const noteRan = (b: Block) => ran.set(b.file, [...(ran.get(b.file) ?? []), `${b.lang} ${b.line}`]);

afterAll(() => {
  const rows = [...counts.entries()].map(([file, c]) => [
    file,
    String(c.ts),
    `${c.sh} (${c.commands})`,
    String(c.shown),
    String(c.e2e),
    String(c.long),
    String(c.cluster),
    String(c.noRun),
    String(c.failed),
  ]);
  const total = (key: keyof Counts) => [...counts.values()].reduce((n, c) => n + c[key], 0);
  rows.push([
    'total',
    String(total('ts')),
    `${total('sh')} (${total('commands')})`,
    String(total('shown')),
    String(total('e2e')),
    String(total('long')),
    String(total('cluster')),
    String(total('noRun')),
    String(total('failed')),
  ]);
  const head = [
    'file',
    'ts run',
    'sh run (commands)',
    'shown',
    'e2e',
    'long',
    'cluster',
    'no-run',
    'failed',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  const list = [...ran.entries()].map(([file, run]) => `  ${file}: ${run.join(', ')}`);
  console.log(
    ['docs snippets:', line(head), ...rows.map(line), 'blocks run (language, line):', ...list].join(
      '\n',
    ),
  );
});

describe('every block is run or shown on purpose', () => {
  test.each(FILES)('%s', (file) => {
    const wrong = blocks
      .filter((b) => b.file === file)
      .filter((b) => ![...RUN_LANGS, ...SHOWN_LANGS].includes(b.lang as never))
      .map(
        (b) =>
          `${label(b)}: a code block needs a language: ts or sh (run), text, json or yaml ` +
          `(shown), found "${b.lang}" (docs/docs-tests.md)`,
      );
    for (const b of blocks.filter((b) => b.file === file && isE2e(b))) {
      if ((b.lang !== 'sh' && !(b.lang === 'ts' && exampleOf(b))) || isNoRun(b)) {
        wrong.push(
          `${label(b)}: \`e2e\` marks a \`sh\` block the e2e project runs with the real ` +
            'binaries, or a `ts` block that is an examples/ file (its first line ' +
            '`// examples/<file>.ts`); it is neither another language nor `no-run` (docs/docs-tests.md)',
        );
      }
    }
    for (const b of blocks.filter(
      (b) => b.file === file && (isNoRun(b) || markerOf(b) !== undefined),
    )) {
      if (!NO_RUN_REASON.test(b.before)) {
        wrong.push(
          `${label(b)}: the sentence before a \`${markerOf(b) ?? 'no-run'}\` block says why the docs tests do not ` +
            'run it (docs/docs-tests.md)',
        );
      }
    }
    for (const b of blocks.filter((b) => b.file === file)) {
      const marker = markerOf(b);
      if (isNoRun(b)) count(b).noRun += 1;
      else if (isE2e(b)) count(b).e2e += 1;
      else if (marker !== undefined) count(b)[marker] += 1;
      else if ((SHOWN_LANGS as readonly string[]).includes(b.lang)) count(b).shown += 1;
    }
    expect(wrong).toEqual([]);
  });
});

describe('```sh long and ```sh cluster blocks: checked for shape, not run', () => {
  const marked = blocks.filter((b) => markerOf(b) !== undefined);
  test('there are some, and each is nothing else', () => {
    expect(marked.length).toBeGreaterThan(0);
    const mixed = marked
      .filter(
        (b) =>
          isNoRun(b) ||
          isE2e(b) ||
          b.flags.filter((f) => markerOf({ ...b, flags: [f] })).length > 1,
      )
      .map((b) => `${label(b)}: one of no-run, e2e, long or cluster (docs/docs-tests.md)`);
    expect(mixed).toEqual([]);
  });
  test.each(marked.map((b) => [label(b), b] as const))('%s', (_, block) => {
    // What the page's blocks before this one run: a file may be written there.
    const earlier = blocks
      .filter((b) => b.file === block.file && b.line < block.line && b.lang === 'sh')
      .map((b) => b.code)
      .join('\n');
    expect(markerProblems(REPO, block, earlier)).toEqual([]);
  });
});

describe('```ts e2e blocks: each is its examples/ file, which an e2e test runs', () => {
  const twins = blocks.filter((b) => b.lang === 'ts' && isE2e(b) && exampleOf(b));
  test.each(twins.map((b) => [label(b), b] as const))('%s', (_, block) => {
    const path = exampleOf(block)!;
    const file = readFileSync(join(REPO, path), 'utf8');
    expect(`${block.code}\n`, `${label(block)} must be ${path}, line for line`).toBe(file);
    const runners = readdirSync(join(REPO, 'test', 'e2e')).filter(
      (name) =>
        name.endsWith('.test.ts') &&
        readFileSync(join(REPO, 'test', 'e2e', name), 'utf8').includes(`'${path}'`),
    );
    expect(runners, `a test in test/e2e names '${path}' and runs it`).not.toEqual([]);
  });
});

test('the timeline shown in docs/faults.md is examples/classroom.yaml', () => {
  const shown = blocks.find(
    (b) => b.file === 'docs/faults.md' && b.code.startsWith('name: classroom'),
  );
  const file = readFileSync(join(REPO, 'examples', 'classroom.yaml'), 'utf8');
  expect(`${shown?.code}\n`).toBe(file.replace(/^#.*\n/, ''));
});

describe('```ts blocks: type-checked and run', () => {
  let snippets: TsSnippets;
  let typeErrors: Map<Block, string[]>;
  beforeAll(async () => {
    snippets = new TsSnippets(tsBlocks);
    typeErrors = await snippets.typecheck();
  });
  afterAll(() => snippets.close());

  test.each(tsBlocks.map((b) => [label(b), b] as const))('%s', async (_, block) => {
    count(block).ts += 1;
    noteRan(block);
    try {
      expect(typeErrors.get(block) ?? [], `${label(block)}: type errors`).toEqual([]);
      const failed = await snippets.run(block);
      expect(failed ?? 'ran').toBe('ran');
    } catch (err) {
      count(block).failed += 1;
      throw err;
    }
  });
});

describe.each(FILES.filter((f) => blocks.some((b) => b.file === f && runs('sh')(b))))(
  '```sh blocks of %s: one session against a mock and a real Envoy',
  (file) => {
    let session: ShSession;
    beforeAll(() => {
      session = new ShSession();
    });
    afterAll(() => session.close());
    const shBlocks = blocks.filter((b) => b.file === file && runs('sh')(b));
    test.each(shBlocks.map((b) => [label(b), b] as const))('%s', async (_, block) => {
      count(block).sh += 1;
      noteRan(block);
      const before = session.commands;
      const problems = await session.runBlock(block);
      count(block).commands += session.commands - before;
      if (problems.length > 0) count(block).failed += 1;
      expect(problems).toEqual([]);
    });
  },
);
