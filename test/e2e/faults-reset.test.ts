/**
 * reset against a real Envoy: the stream ends with istiod's status and wording, Envoy logs
 * the status it got, counts a failed update, drops `connected_state` and reconnects after
 * its back-off (at once, after N responses, or after T); a reset that keeps going keeps the
 * proxy away while its last configuration keeps serving.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RESET_PRESETS } from '../../src/faults/scenarios/reset.js';
import { assertNoLeaks } from '../../src/testing/leaks.js';
import { waitFor } from '../../src/util/wait.js';
import { closeFaultLabs, get, startFaultLab, type FaultLab } from '../support/harness/fault-lab.js';

/**
 * Envoy's log line for a closed ADS stream. Envoy prints `grpc-message` as it arrived, and
 * grpc-js percent-encodes it (`encodeURI`): `… closed: 16, authentication%20failure{via_upstream}`.
 * Envoy warns at once for most codes, but logs UNAVAILABLE, RESOURCE_EXHAUSTED and
 * DEADLINE_EXCEEDED (worth retrying) at debug level until they persist: the lab turns on
 * debug logs for Envoy's `config` component to see them.
 */
function closedLine(lab: FaultLab, code: number, message: string): string | undefined {
  const wanted = `gRPC config stream to xds-grpc closed: ${code}, ${encodeURI(message)}{via_upstream}`;
  return lab.envoy
    .logs()
    .split('\n')
    .find((line) => line.includes(wanted));
}

async function reconnected(lab: FaultLab, opensBefore: number): Promise<void> {
  await waitFor(() => lab.istiod.journal.query({ kind: 'open' }).length > opensBefore, {
    timeoutMs: 10_000,
    description: 'Envoy to open a new stream',
  });
  await lab.connected(1);
}

describe('reset with each of istiod’s refusals, one Envoy for all', () => {
  let lab: FaultLab;
  beforeAll(async () => {
    lab = await startFaultLab({ envoy: { extraArgs: ['--component-log-level', 'config:debug'] } });
  });
  afterAll(async () => {
    await closeFaultLabs();
    await assertNoLeaks();
  });

  it.each(Object.entries(RESET_PRESETS))(
    '%s: Envoy logs the status and reconnects',
    async (preset, p) => {
      const failuresBefore = await lab.stat('cluster_manager.cds.update_failure');
      const opensBefore = lab.istiod.journal.query({ kind: 'open' }).length;
      const fault = await lab.istiod.control.inject({
        scenario: 'reset',
        params: { preset, times: 1 },
      });
      const message = p.message(lab.istiod.streams()[0]);
      expect(await fault.info()).toMatchObject({ state: 'done', counts: { ended: 1 } });
      const line = await waitFor(() => closedLine(lab, p.code, message), {
        description: `Envoy's log line for ${p.code} ${message}`,
      });
      expect(line).toContain('StreamAggregatedResources');
      const retriable = [8, 14].includes(p.code);
      expect(line).toContain(retriable ? '[debug][config]' : '[warning][config]');
      await lab.envoy.waitForStat(
        'cluster_manager.cds.update_failure',
        (v) => Number(v) > failuresBefore,
      );
      await reconnected(lab, opensBefore);
      expect(await get(lab.inboundUrl())).toMatchObject({ status: 200 });
      await fault.remove();
    },
  );

  it('after N responses: the stream ends once the Nth response went out', async () => {
    const opensBefore = lab.istiod.journal.query({ kind: 'open' }).length;
    const fault = await lab.istiod.control.inject({
      scenario: 'reset',
      params: { code: 'INTERNAL', message: 'closed after one response', times: 1 },
      trigger: { afterResponses: 1 },
    });
    expect((await fault.info()).state).toBe('armed');
    expect(
      (
        await lab.istiod.control.push({
          types: ['type.googleapis.com/envoy.config.cluster.v3.Cluster'],
        })
      ).streams,
    ).toBe(1);
    await fault.whenActive();
    await waitFor(() => closedLine(lab, 13, 'closed after one response'), {
      description: 'the INTERNAL log line',
    });
    await reconnected(lab, opensBefore);
  });

  it('after T: the stream ends when the time is up', async () => {
    const applied = Date.now();
    const fault = await lab.istiod.control.inject({
      scenario: 'reset',
      params: { code: 'UNAVAILABLE', message: 'closed after 800ms', times: 1 },
      trigger: { after: '800ms' },
    });
    await waitFor(() => closedLine(lab, 14, 'closed after 800ms'), { description: 'the log line' });
    expect(Date.parse((await fault.info()).activatedAt ?? '') - applied).toBeGreaterThanOrEqual(
      790,
    );
    await lab.connected(1);
  });
});

describe('reset without a limit', () => {
  afterEach(async () => {
    await closeFaultLabs();
    await assertNoLeaks();
  });

  it('refuses every reconnection (update_failure climbs) while traffic keeps flowing', async () => {
    const lab = await startFaultLab();
    const fault = await lab.istiod.control.inject({
      scenario: 'reset',
      params: { preset: 'authentication' },
    });
    await waitFor(async () => ((await fault.info()).counts.ended ?? 0) >= 3, {
      timeoutMs: 15_000,
      description: 'three streams refused',
    });
    // The mock counts a stream ended when it ends it, before Envoy has read the end.
    await lab.envoy.waitForStat('cluster_manager.cds.update_failure', (v) => Number(v) >= 3);
    expect(await get(lab.inboundUrl())).toMatchObject({ status: 200 });
    await fault.remove();
    await lab.connected(1);
  });
});
