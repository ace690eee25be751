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
import { buildImage, requireImageTools, usePodman } from '../support/harness/image.js';
import { requireIstio } from '../support/harness/real-agent.js';

/**
 * The image a `podman run` block runs, built as test/e2e/image.test.ts builds its own (the
 * pieces cached), under a tag of its own so that the two never retag each other's.
 */
const IMAGE_TAG = 'mock-istiod:docs-e2e';

const blocks = docBlocks(REPO).filter((b) => b.lang === 'sh' && isE2e(b) && !isNoRun(b));
const files = [...new Set(blocks.map((b) => b.file))];

test('the docs have blocks marked e2e, and the real binaries are there', () => {
  expect(files.length).toBeGreaterThan(0);
  requireIstio(); // fails naming `npm run install-istio` when they are not
});

describe.each(files)('```sh e2e blocks of %s: the real pilot-agent, Envoy and istioctl', (file) => {
  let session: ShSession;
  let podman: ReturnType<typeof usePodman> | undefined;
  const own = blocks.filter((b) => b.file === file);
  const usesPodman = own.some((b) => /^\s*(podman run|docker build)\b/m.test(b.code));
  beforeAll(async () => {
    requireIstio();
    let image: { tag: string; env: NodeJS.ProcessEnv } | undefined;
    if (usesPodman) {
      requireImageTools(); // fails naming the apt-get line when podman & co. are missing
      podman = usePodman();
      const ms = await buildImage(IMAGE_TAG);
      console.log(`${file}: image ${IMAGE_TAG} built in ${(ms / 1000).toFixed(1)} s`);
      image = { tag: IMAGE_TAG, env: podman.env };
    }
    session = new ShSession({ e2e: true, image });
  }, 600_000);
  afterAll(async () => {
    await session?.close();
    podman?.dispose();
  }, 60_000);
  test.each(own.map((b) => [`${b.file}:${b.line}`, b] as const))(
    '%s',
    async (_, block) => {
      expect(await session.runBlock(block)).toEqual([]);
    },
    // An image build in a block (`docker build`, as podman) takes minutes on two shared cores.
    usesPodman ? 600_000 : 120_000,
  );
});
