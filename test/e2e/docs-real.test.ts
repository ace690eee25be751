/**
 * The docs' recipes that need the real binaries: every ```sh block marked `e2e` in README.md,
 * examples/README.md and docs/*.md, run as one terminal session per file against the real
 * Envoy, pilot-agent and istioctl (docs/docs-tests.md). A mock or pilot-agent a block starts
 * keeps running, on free ports, for the file's later blocks, as in the user's other
 * terminals; after each block the pod must still be ready. Everything is stopped when the
 * file ends, even after a failure, and every command has a deadline.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { docBlocks, isE2e, isNoRun } from '../docs/markdown.js';
import { REPO, ShSession } from '../docs/sh-session.js';
import { requireIstio } from '../support/harness/real-agent.js';

const blocks = docBlocks(REPO).filter((b) => b.lang === 'sh' && isE2e(b) && !isNoRun(b));
const files = [...new Set(blocks.map((b) => b.file))];

test('the docs have blocks marked e2e, and the real binaries are there', () => {
  expect(files.length).toBeGreaterThan(0);
  requireIstio(); // fails naming `npm run install-istio` when they are not
});

describe.each(files)('```sh e2e blocks of %s: the real pilot-agent, Envoy and istioctl', (file) => {
  let session: ShSession;
  beforeAll(() => {
    requireIstio();
    session = new ShSession({ e2e: true });
  });
  afterAll(() => session?.close(), 30_000);
  const own = blocks.filter((b) => b.file === file);
  test.each(own.map((b) => [`${b.file}:${b.line}`, b] as const))(
    '%s',
    async (_, block) => {
      expect(await session.runBlock(block)).toEqual([]);
    },
    120_000,
  );
});
