/**
 * Resource files that ask for too much, or are not text files at all, are refused by the real
 * file watcher and by `POST /control/resources/reload`, with a problem naming the file and
 * what was wrong, while `mock-istiod serve` (a process of its own) keeps serving the last good
 * set: too many YAML alias expansions, nesting deeper than MAX_RESOURCE_FILE_DEPTH (flow
 * brackets, JSON, block indentation, `- - -`; refused by the depth scan, not after seconds in
 * the parser), invalid UTF-8,
 * a file past the size limit, and, in the watched directory, a FIFO, a symlink to a directory
 * and a symlink loop.
 */
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { waitFor } from '../../src/util/wait.js';
import { MAX_RESOURCE_FILE_BYTES } from '../../src/resources/file-text.js';
import {
  FREE_SERVE_PORTS,
  JSON_LOGS,
  logLines,
  useCli,
  waitForServing,
  type CliRun,
} from '../support/fixtures/cli.js';
import { requestClusters } from '../support/fixtures/handshake.js';
import { clusterName, clustersYaml } from '../support/harness/file-churn.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** 150 uses of one anchor: more expansions than the parser allows (a large anchored file). */
const ALIASES = `- &c\n  '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster\n  name: anchored\n  type: STATIC\n  connect_timeout: 1s\n${'- *c\n'.repeat(150)}`;

const FLOW_DEPTH =
  /line 1: nested more than 256 levels deep \(flow brackets\); a resource file may nest at most 256 levels/;

/**
 * Each bad entry: how to make it in the directory, the words its problem must say, and
 * whether its refusal must be quick (a deep file, which the parser would take seconds over;
 * the depth scan refuses it unparsed).
 */
const BAD: { name: string; make(path: string): void; says: RegExp; quick?: boolean }[] = [
  {
    name: 'aliases.yaml',
    make: (p) => writeFileSync(p, ALIASES),
    says: /too many alias expansions \(more than 100/,
  },
  {
    name: 'deep.yaml',
    make: (p) => writeFileSync(p, `resources: ${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    says: FLOW_DEPTH,
    quick: true,
  },
  {
    name: 'deep.json',
    make: (p) => writeFileSync(p, '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)),
    says: FLOW_DEPTH,
    quick: true,
  },
  {
    name: 'deep-block.yaml',
    make: (p) =>
      writeFileSync(p, Array.from({ length: 5_000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')),
    says: /line 514: content starts at column 514 \(block nesting\); a resource file may indent at most 512 columns/,
    quick: true,
  },
  {
    name: 'deep-dashes.yaml',
    make: (p) => writeFileSync(p, `${'- '.repeat(100_000)}x\n`),
    says: /line 1: content starts at column 200001 \(block nesting\)/,
    quick: true,
  },
  {
    name: 'latin1.yaml',
    make: (p) => writeFileSync(p, Buffer.from('- name: caf\xe9\n', 'latin1')),
    says: /not UTF-8 text/,
  },
  {
    name: 'huge.yaml',
    make: (p) => truncateSync((writeFileSync(p, ''), p), MAX_RESOURCE_FILE_BYTES + 1),
    says: /more than the \d+ a resource file may have/,
  },
  { name: 'fifo.yaml', make: (p) => execFileSync('mkfifo', [p]), says: /not a regular file/ },
  {
    name: 'dir.yaml',
    make: (p) => (mkdirSync(`${p}.target`), symlinkSync(`${p}.target`, p)),
    says: /not a regular file/,
  },
  { name: 'loop.yaml', make: (p) => symlinkSync(p, p), says: /cannot read: ELOOP/ },
];

function failedReloads(run: CliRun): string[] {
  return logLines(run)
    .filter((l) => l.msg.startsWith('resources: reload failed'))
    .map((l) => l.msg);
}

async function clustersServed(xds: string): Promise<string[]> {
  const client = new AdsTestClient(xds);
  try {
    const answer = await requestClusters(client.sotw());
    expect(answer.type_url).toBe(CLUSTER_TYPE);
    return answer.resources.map((r) => clusterName(r.value));
  } finally {
    client.close();
  }
}

/**
 * The shortest of three reloads, in ms. Files are read and parsed on the loading thread
 * (src/resources/file-thread.ts), kept between reloads, so the shortest leaves out its start.
 * These took 5–45 ms on a loaded machine; the parser would take seconds over these files.
 * The event loop's own share is measured by test/adversarial/resource-files.test.ts.
 */
const QUICK_RELOAD_MS = 500;

async function quickestReload(control: string): Promise<number> {
  let quickest = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const reload = await fetch(`${control}/control/resources/reload`, { method: 'POST' });
    await reload.arrayBuffer();
    expect(reload.status).toBe(400);
    quickest = Math.min(quickest, performance.now() - started);
  }
  return quickest;
}

it(
  'refuses each bad file by the watcher and by reload, naming it, and keeps serving the last good set',
  { timeout: 90_000 },
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'mock-istiod-refused-'));
    writeFileSync(join(dir, 'good.yaml'), clustersYaml(['good']));
    const run = cli.start([
      'serve',
      ...FREE_SERVE_PORTS,
      ...JSON_LOGS,
      '--resources',
      dir,
      '--resources-quiet',
      '20ms',
    ]);
    const serving = await waitForServing(run);
    const control = `http://127.0.0.1:${serving.control?.port}`;
    expect(await clustersServed(serving.xds)).toEqual(['good']);

    for (const bad of BAD) {
      const path = join(dir, bad.name);
      bad.make(path);
      // The watcher: a reload that fails, naming this file and what is wrong with it.
      const line = await waitFor(
        () => failedReloads(run).find((msg) => msg.includes(path) && bad.says.test(msg)),
        { timeoutMs: 20_000, description: `the watcher refusing ${bad.name} (${bad.says})` },
      );
      expect(line).not.toMatch(/\n\s+at /);
      // The control API: 400 with the same problem, never 500.
      const reload = await fetch(`${control}/control/resources/reload`, { method: 'POST' });
      const body = (await reload.json()) as { problems?: { path: string; message: string }[] };
      expect(reload.status, JSON.stringify(body)).toBe(400);
      expect(body.problems?.some((p) => p.path === path && bad.says.test(p.message))).toBe(true);
      if (bad.quick) expect(await quickestReload(control), bad.name).toBeLessThan(QUICK_RELOAD_MS);
      expect(run.child.exitCode).toBeNull();
      expect(await clustersServed(serving.xds)).toEqual(['good']);
      unlinkSync(path);
    }
    const status = await fetch(`${control}/healthz`);
    expect(status.status).toBe(200);
  },
);
