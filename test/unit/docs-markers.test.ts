/**
 * The docs test's `long` and `cluster` blocks, checked for shape without running them
 * (test/docs/markers.ts), and the commands the e2e session runs as twins (test/docs/commands.ts).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildsWithDocker,
  envoyBootstrapOf,
  notRunnable,
  rewritePorts,
  startsContainer,
  startsUpstream,
} from '../docs/commands.js';
import { markerOf, markerProblems } from '../docs/markers.js';
import { extractBlocks } from '../docs/markdown.js';

const REPO = join(import.meta.dirname, '..', '..');
const FENCE = '```';

function block(marker: string, ...lines: string[]) {
  const [b] = extractBlocks('x.md', [`${FENCE}sh ${marker}`, ...lines, FENCE].join('\n'));
  return b!;
}

describe('```sh long: the scripts, files, projects and flags it names exist', () => {
  it('passes what the docs run', () => {
    const b = block(
      'long',
      'npm run bench -- --only fleet --servers mock   # a part',
      'npx tsx scripts/reliability.ts --only soak --seed 20261201',
      'npx vitest run --project e2e examples',
      'npm run demo -- --real-agent --step',
      'npm run conformance',
    );
    expect(markerOf(b)).toBe('long');
    expect(markerProblems(REPO, b, '')).toEqual([]);
  });

  it('names each line with a missing script, file, project or flag', () => {
    const b = block(
      'long',
      'npm run bench -- --nope',
      'npx tsx scripts/nothing.ts',
      'npm run nosuch',
      'npx vitest run --project e3e examples',
      'make bench',
    );
    expect(markerProblems(REPO, b, '')).toEqual([
      'x.md:2: `--nope` is not an option of bench/run.ts',
      'x.md:3: `scripts/nothing.ts` does not exist',
      'x.md:4: package.json has no script `nosuch`',
      expect.stringMatching(/^x\.md:5: vitest has no project `e3e`/),
      expect.stringMatching(/^x\.md:6: a `long` block holds npm scripts/),
    ]);
  });
});

describe('```sh cluster: kubectl arguments and CLI commands, offline', () => {
  it('renders the kustomizations and accepts files written earlier on the page', () => {
    const b = block(
      'cluster',
      'kubectl apply -k deploy/base',
      'kubectl -n istio-system create secret generic t --from-file=./istiod-certs',
      `kubectl -n default patch deploy orders --type merge -p '{"spec":{}}'`,
      'mock-istiod proxy-status',
    );
    expect(markerProblems(REPO, b, 'mkdir istiod-certs')).toEqual([]);
  });

  it('names a directory that does not render, a missing file, a bad patch and an unknown command', () => {
    const b = block(
      'cluster',
      'kubectl apply -k deploy/nowhere',
      'kubectl create configmap c --from-file=x=./missing/root.pem',
      `kubectl patch deploy d -p '{bad'`,
      'mock-istiod frobnicate',
    );
    const problems = markerProblems(REPO, b, '');
    expect(problems).toEqual([
      expect.stringMatching(/^x\.md:2: `kubectl kustomize deploy\/nowhere` does not render/),
      'x.md:3: `--from-file` names ./missing/root.pem, which neither exists nor is written before',
      expect.stringMatching(/^x\.md:4: the patch after -p is not JSON/),
      'x.md:5: `mock-istiod frobnicate` is not a command of the CLI',
    ]);
  });
});

describe("the e2e session's twins", () => {
  it('knows the upstream, a hand-run Envoy, the image and docker build, in e2e only', () => {
    expect(startsUpstream('npm run upstream -- --mode ok --port 8101   # terminal 2')).toBe(true);
    expect(envoyBootstrapOf('.venv/bin/envoy -c envoy-configs/sidecar-sotw.yaml   # t3')).toBe(
      'envoy-configs/sidecar-sotw.yaml',
    );
    expect(envoyBootstrapOf('envoy --mode validate -c x.yaml')).toBeUndefined();
    expect(startsContainer('podman run --rm mock-istiod:latest')).toBe(true);
    expect(buildsWithDocker('docker build -t x /tmp/ctx')).toBe(true);
    for (const command of ['npm run upstream -- --port 8101', 'podman run x', 'docker build .']) {
      expect(notRunnable(command, true)).toBeUndefined();
      expect(notRunnable(command)).toMatch(/mark the block `no-run`/);
    }
  });

  it("moves the lab's app port (8101) when the session has one", () => {
    expect(rewritePorts('npm run upstream -- --port 8101', { app: 40001 })).toBe(
      'npm run upstream -- --port 40001',
    );
    expect(rewritePorts('npm run upstream -- --port 8101', {})).toBe(
      'npm run upstream -- --port 8101',
    );
  });
});
