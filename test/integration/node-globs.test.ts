/**
 * Node-id globs come from outside (a query string, a fault scope, a resource set's match)
 * and are matched against node ids, which any xDS client chooses. The pattern that froze the
 * event loop for 32.6 s as a backtracking regular expression (`*a*a*a*a*a*X` against a
 * 152-character id) is sent here the way an attacker would, through the real control port,
 * while a stream with that id is open; the event loop, measured with
 * `monitorEventLoopDelay`, must never stall 100 ms. A glob past MAX_GLOB_LENGTH is refused
 * with a 400 that names the field.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect } from 'vitest';
import { MAX_GLOB_LENGTH } from '../../src/util/glob.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { handshake } from '../support/fixtures/handshake.js';
import { it } from '../support/fixtures/test.js';
import type { TestMockIstiod } from '../../src/testing/start.js';

// A sidecar's four parts, 152 characters, its pod name a run of `a`s.
const LONG_ID = `sidecar~10.0.0.1~${'a'.repeat(101)}.default~default.svc.cluster.local`;
const EVIL = '*a*a*a*a*a*X';
const BUDGET_MS = 100;

function node(id = LONG_ID) {
  return { id, cluster: 'a'.repeat(152), metadata: { CLUSTER_ID: 'Kubernetes' } };
}

function base(mock: TestMockIstiod): string {
  return `http://127.0.0.1:${mock.addresses.control?.port}`;
}

/** Runs `work` and returns the longest the event loop was kept from turning meanwhile. */
async function worstStall(work: () => Promise<void>): Promise<number> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  try {
    await work();
  } finally {
    delay.disable();
  }
  return delay.max / 1e6;
}

describe('a node-id glob chosen to backtrack', () => {
  it('answers GET /control/wait-for-ack?node=… without stalling the event loop', async ({
    mock,
    ads,
  }) => {
    const stream = ads.sotw();
    await handshake(stream, { node: node() });
    // The route's first answer loads and compiles code; that is not what is measured.
    const warm = await fetch(`${base(mock)}/control/wait-for-ack?type=LDS&timeout=1ms&node=x`);
    expect(warm.status).toBe(408);
    await warm.body?.cancel();
    const stall = await worstStall(async () => {
      const query = `type=LDS&timeout=300ms&node=${encodeURIComponent(EVIL)}`;
      const answer = await fetch(`${base(mock)}/control/wait-for-ack?${query}`);
      // Nothing matches: the wait times out with its problem body.
      expect(answer.status).toBe(408);
      await answer.body?.cancel();
    });
    expect(stall).toBeLessThan(BUDGET_MS);
  });

  it('applies a fault scoped by it without stalling, and the fault leaves the node alone', async ({
    mock,
    ads,
  }) => {
    const stream = ads.sotw();
    const { lds } = await handshake(stream, { node: node() });
    const stall = await worstStall(async () => {
      const applied = await fetch(`${base(mock)}/control/faults`, {
        method: 'POST',
        body: JSON.stringify({ scenario: 'withhold', scope: { node: EVIL, types: ['LDS'] } }),
      });
      expect(applied.status).toBe(201);
      await applied.body?.cancel();
      // The ACK and a push make the fault ask whether the stream is in its scope.
      stream.send({
        type_url: LISTENER_TYPE,
        version_info: lds.version_info,
        response_nonce: lds.nonce,
      });
      const push = await fetch(`${base(mock)}/control/push`, { method: 'POST' });
      expect(push.status).toBe(200);
      await push.body?.cancel();
      const types = new Set([(await stream.next()).type_url, (await stream.next()).type_url]);
      expect(types).toEqual(new Set([CLUSTER_TYPE, LISTENER_TYPE]));
    });
    expect(stall).toBeLessThan(BUDGET_MS);
  });

  it("selects a resource set by it without stalling, when a proxy's id is matched", async ({
    mock,
    ads,
  }) => {
    const stall = await worstStall(async () => {
      const set = await fetch(`${base(mock)}/control/resources`, {
        method: 'PUT',
        body: JSON.stringify({
          sets: [
            { name: 'evil', match: { nodeId: EVIL, cluster: EVIL }, resources: [] },
            { name: 'default', resources: [] },
          ],
        }),
      });
      expect(set.status).toBe(200);
      await set.body?.cancel();
      const stream = ads.sotw();
      stream.send({ type_url: CLUSTER_TYPE, node: node() });
      expect((await stream.next()).type_url).toBe(CLUSTER_TYPE);
    });
    expect(stall).toBeLessThan(BUDGET_MS);
  });
});

describe(`a glob longer than ${MAX_GLOB_LENGTH} characters`, () => {
  it('is refused with 400 naming the field, in a query, a fault scope and a match', async ({
    mock,
  }) => {
    const tooLong = `*${'a'.repeat(MAX_GLOB_LENGTH)}`;
    const wait = await fetch(
      `${base(mock)}/control/wait-for-ack?type=LDS&timeout=1s&node=${tooLong}`,
    );
    expect(wait.status).toBe(400);
    expect(await wait.json()).toMatchObject({
      problems: [
        {
          path: 'node',
          message: `a node-id glob may have at most ${MAX_GLOB_LENGTH} characters; this one has ${MAX_GLOB_LENGTH + 1}`,
        },
      ],
    });
    // A megabyte-long one, just under the body limit, in a fault scope.
    const huge = `*${'a'.repeat(1_000_000)}*`;
    const fault = await fetch(`${base(mock)}/control/faults`, {
      method: 'POST',
      body: JSON.stringify({ scenario: 'withhold', scope: { node: huge } }),
    });
    expect(fault.status).toBe(400);
    expect(await fault.json()).toMatchObject({
      problems: [{ path: 'scope.node', message: expect.stringMatching(/at most 1024/) as string }],
    });
    const sets = await fetch(`${base(mock)}/control/resources`, {
      method: 'PUT',
      body: JSON.stringify({ sets: [{ name: 'big', match: { nodeId: huge }, resources: [] }] }),
    });
    expect(sets.status).toBe(400);
    const body = (await sets.json()) as { problems: { path: string; message: string }[] };
    expect(body.problems.map((p) => p.message).join('\n')).toMatch(/at most 1024/);
    // Nothing was applied.
    const faults = await fetch(`${base(mock)}/control/faults`);
    expect(await faults.json()).toEqual({ faults: [] });
  });
});
