/**
 * Replaying timelines against a mock: steps in order and on time, every kind of action, and
 * stopping a run.
 */
import * as grpc from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import { parseTimeline, type Timeline } from '../../src/timelines/timeline.js';
import { runTimeline } from '../../src/index.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it } from '../support/fixtures/test.js';

function timeline(text: string): Timeline {
  const parsed = parseTimeline(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.value;
}

describe('runTimeline', () => {
  it('runs each kind of step in order, on time', async ({ mock: server, ads: client }) => {
    const started = Date.now();
    const run = runTimeline(
      server,
      timeline(`
steps:
  - { at: 0s, fault: withhold, id: hold }
  - { at: 200ms, remove: hold }
  - { at: 300ms, fault: withhold }
  - { at: 400ms, release: true }
  - { at: 500ms, push: { types: [CDS] } }
  - { at: 600ms, disconnect: { code: ABORTED, message: timeline } }
  - { at: 700ms, fault: down }
  - { at: 800ms, reset: true }
`),
    );
    const stream = client.sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const first = await stream.next();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190); // held until the remove step
    stream.send({
      type_url: CLUSTER_TYPE,
      version_info: first.version_info,
      response_nonce: first.nonce,
    });
    const pushed = await stream.next();
    expect(Date.now() - started).toBeGreaterThanOrEqual(490);
    expect(pushed.version_info).toBe(first.version_info);
    expect(await stream.done).toEqual({ code: grpc.status.ABORTED, details: 'timeline' });
    await run.done;
    expect(Date.now() - started).toBeGreaterThanOrEqual(790);
    expect((await server.control.state()).serving).toBe(true); // brought down, then reset
    expect((await server.control.listFaults()).faults).toEqual([]);
  });

  it('with start: first-stream waits for a stream; stop() ends the run before its next step', async ({
    mock: server,
    connect,
  }) => {
    const run = runTimeline(
      server,
      timeline(
        'start: first-stream\nsteps:\n  - { at: 0s, fault: delay, params: { ms: 1 } }\n  - { at: 5s, fault: down }',
      ),
    );
    await expect(
      waitFor(async () => (await server.control.listFaults()).faults.length > 0, {
        timeoutMs: 200,
      }),
    ).rejects.toThrow();
    connect(server).sotw().send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    await waitFor(async () => (await server.control.listFaults()).faults.length === 1, {
      description: 'the 0s step',
    });
    run.stop();
    await run.done;
    expect((await server.control.state()).serving).toBe(true);
    expect((await server.control.listFaults()).faults.map((f) => f.scenario)).toEqual(['delay']);
  });
});
