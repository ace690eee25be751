/**
 * `mock-istiod serve --fault … --scenario …`: faults applied at start, timelines replayed,
 * and every mistake reported as one line naming the flag and the field (exit 2).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import {
  FREE_SERVE_PORTS,
  isServing,
  JSON_LOGS,
  logLines,
  useCli,
  waitForServing,
} from '../support/fixtures/cli.js';
import { sidecarNode } from '../support/fixtures/nodes.js';

const cli = useCli();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SERVE = ['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS];

describe('serve --fault', () => {
  it('applies the faults at start: listed by the API, acting on the first stream', async () => {
    const run = cli.start([
      ...SERVE,
      '--fault',
      'withhold:types=CDS,id=hold',
      '--fault',
      'delay:ms=1s,jitter=100ms',
    ]);
    const serving = await waitForServing(run);
    const res = await fetch(`http://127.0.0.1:${serving.control?.port}/control/faults`);
    const { faults } = (await res.json()) as { faults: { id: string; params: unknown }[] };
    expect(faults.map((f) => f.id)).toEqual(['hold', 'delay-1']);
    expect(faults[1]?.params).toEqual({ ms: 1_000, jitter: 100, seed: 1 });
    const client = new AdsTestClient(serving.xds);
    try {
      const stream = client.sotw();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
      await expect(stream.next(500)).rejects.toMatchObject({
        code: 'WAIT_TIMEOUT',
        message: 'timed out after 500 ms waiting for a response on this stream',
      });
    } finally {
      client.close();
    }
  });

  it.each([
    [['--fault', 'delay:ms=soon'], '--fault "delay:ms=soon": params.ms: expected a duration'],
    [
      ['--fault', 'explode'],
      '--fault "explode": scenario: unknown scenario "explode"; valid scenarios: withhold,',
    ],
    [
      ['--fault', 'withhold:types=XDS'],
      '--fault "withhold:types=XDS": scope.types[0]: expected one of CDS',
    ],
    [['--fault', 'down:node=x'], '--fault "down:node=x": scope: down acts on the whole server'],
    [['--scenario', '/nonexistent/t.yaml'], '--scenario: cannot read /nonexistent/t.yaml (ENOENT)'],
  ])('%j fails with one line naming the flag', async (args, message) => {
    const run = await cli.run([...SERVE, ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`mock-istiod: ${message}`);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('serve --scenario', () => {
  it('reports every problem of the timeline with its path, before serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-cli-'));
    dirs.push(dir);
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'steps:\n  - at: 1s\n    fault: delay\n    params: { ms: x }\n  - at: 2s\n    remove: nobody\n',
    );
    const run = cli.start([...SERVE, '--scenario', file]);
    expect(await run.exited()).toBe(2);
    expect(run.stderr()).toContain(`--scenario ${file}: steps[0].params.ms: expected a duration`);
    expect(run.stderr()).toContain(
      'steps[1].remove: expected the id of a fault applied by an earlier step',
    );
    expect(logLines(run).some(isServing)).toBe(false);
  });
});
