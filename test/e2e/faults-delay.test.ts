/**
 * delay against a real Envoy: while its first CDS response is delayed a sidecar waits in
 * PRE_INITIALIZING, connected, and goes LIVE once it arrives; a jittered delay draws the
 * same durations from the same seed, so the journal's request → response gaps are known.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { jittered, seededRandom } from '../../src/faults/random.js';
import type { JournalEntry } from '../../src/journal/journal.js';
import { assertNoLeaks } from '../../src/testing/leaks.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { closeFaultLabs, startFaultLab } from '../support/harness/fault-lab.js';

afterEach(async () => {
  await closeFaultLabs();
  await assertNoLeaks();
});

function gapMs(request: JournalEntry, response: JournalEntry): number {
  return Date.parse(response.time) - Date.parse(request.time);
}

describe('delay', () => {
  it('of CDS keeps Envoy PRE_INITIALIZING and connected until the response arrives', async () => {
    const lab = await startFaultLab({
      faults: [{ scenario: 'delay', params: { ms: '1500ms' }, scope: { types: ['CDS'] } }],
    });
    const request = await lab.istiod.waitForRequest('CDS');
    await lab.connected(1);
    expect(await lab.envoy.ready()).toEqual({ status: 503, body: 'PRE_INITIALIZING' });
    await lab.envoy.waitForState('LIVE', { timeoutMs: 20_000 });
    const response = lab.istiod.journal.query({ typeUrl: CLUSTER_TYPE, kind: 'response' })[0];
    expect(response && gapMs(request, response)).toBeGreaterThanOrEqual(1_490);
    // LDS was not in scope: answered at once.
    const ldsRequest = await lab.istiod.waitForRequest('LDS');
    const ldsResponse = lab.istiod.journal.query({ typeUrl: LISTENER_TYPE, kind: 'response' })[0];
    expect(ldsResponse && gapMs(ldsRequest, ldsResponse)).toBeLessThan(500);
  });

  it('jittered draws the seeded durations, in order', async () => {
    const params = { ms: 400, jitter: 300, seed: 42 };
    const lab = await startFaultLab({ faults: [{ scenario: 'delay', params, id: 'jitter' }] });
    await lab.envoy.waitForState('LIVE', { timeoutMs: 20_000 });
    const random = seededRandom(params.seed);
    const expected = [jittered(random, 400, 300), jittered(random, 400, 300)];
    expect((await lab.istiod.control.getFault({ id: 'jitter' })).fault?.counts).toEqual({
      delayed: 2,
      delayedMs: expected[0]! + expected[1]!,
    });
    const cdsRequest = await lab.istiod.waitForRequest('CDS');
    const cds = lab.istiod.journal.query({ typeUrl: CLUSTER_TYPE, kind: 'response' })[0]!;
    expect(gapMs(cdsRequest, cds)).toBeGreaterThanOrEqual(expected[0]! - 10);
  });
});
