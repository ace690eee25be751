/**
 * A timeline replayed by `mock-istiod serve --scenario file.yaml`, watched from a real Envoy:
 * held at first (PRE_INITIALIZING, connected), released at its step (LIVE), then an outage
 * (connected_state 0) that ends on schedule. Each step is logged with its note.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLabUpstream, type LabUpstream } from '../../scripts/lab-upstream.js';
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import { startEnvoy } from '../../src/testing/envoy.js';
import { assertNoLeaks, closeAll } from '../../src/testing/leaks.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import {
  FREE_SERVE_PORTS,
  JSON_LOGS,
  logLines,
  useCli,
  waitForServing,
} from '../support/fixtures/cli.js';
import { get } from '../support/harness/fault-lab.js';

const TIMELINE = `
name: classroom
start: first-stream
steps:
  - at: 0s
    fault: withhold
    id: hold
    note: "step 1: Envoy waits, PRE_INITIALIZING, connected_state 1"
  - at: 1500ms
    remove: hold
    note: "step 2: released, Envoy goes LIVE"
  - at: 3s
    fault: down
    params: { for: 1500ms }
    note: "step 3: istiod goes away for a while"
`;

const cli = useCli();
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  await closeAll();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await assertNoLeaks();
});

describe('serve --scenario', () => {
  it('replays the timeline against a real Envoy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-timeline-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'classroom.yaml');
    writeFileSync(file, TIMELINE);
    const upstream: LabUpstream = await startLabUpstream({ mode: 'ok', port: 0 });
    cleanups.push(() => upstream.close());
    const [inbound, outbound] = (await freePorts(2)) as [number, number];
    const run = cli.start([
      ...['serve', '--scenario', file, ...FREE_SERVE_PORTS, ...JSON_LOGS],
      ...['--inbound-port', String(inbound), '--outbound-port', String(outbound)],
      ...['--app-port', String(upstream.port)],
    ]);
    const lines = () => logLines(run);
    const port = Number((await waitForServing(run)).xds.split(':').at(-1));
    const envoy = await startEnvoy({
      bootstrap: makeSidecarBootstrap({ discoveryPort: port, adminPort: 0 }),
    });
    const connected = (value: number) =>
      envoy.waitForStat('control_plane.connected_state', (v) => v === value, { timeoutMs: 10_000 });

    await connected(1);
    expect(await envoy.ready()).toEqual({ status: 503, body: 'PRE_INITIALIZING' });
    await envoy.waitForState('LIVE', { timeoutMs: 10_000 });
    expect(lines().some((l) => l.msg.startsWith('step 2'))).toBe(true);
    expect(await get(`http://127.0.0.1:${inbound}/orders`)).toEqual({
      status: 200,
      body: `ok:${upstream.port} /orders`,
    });
    await connected(0);
    expect(await get(`http://127.0.0.1:${inbound}/orders`)).toMatchObject({ status: 200 });
    await connected(1);
    const notes = lines()
      .filter((l) => l.msg.startsWith('step '))
      .map((l) => l.msg.slice(0, 6));
    expect(notes).toEqual(['step 1', 'step 2', 'step 3']);
    await waitFor(() => lines().some((l) => l.msg === 'timeline finished'), {
      description: 'the timeline to finish',
    });
  });
});
