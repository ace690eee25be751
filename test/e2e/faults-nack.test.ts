/**
 * nack against a real Envoy: every named config of the catalogue is rejected (the type's
 * `update_rejected` +1, Envoy's message recorded as the NACK's error_detail), the old
 * configuration keeps serving, and each after-NACK policy shows: stop (nothing more sent),
 * resend (rejected again and again), rollback (the last ACKed set is accepted again).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NACK_CATALOGUE } from '../../src/faults/nack-catalogue.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { freePorts } from '../../src/util/ports.js';
import { assertNoLeaks } from '../../src/testing/leaks.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { closeFaultLabs, get, startFaultLab, type FaultLab } from '../support/harness/fault-lab.js';

const STATS: Record<string, string> = {
  [CLUSTER_TYPE]: 'cluster_manager.cds',
  [LISTENER_TYPE]: 'listener_manager.lds',
};

/** The part of Envoy's message that does not depend on addresses and ports. */
function essence(envoyError: string): string {
  return envoyError.replace(/ '<address>'.*$/, '').replace(/, …$/, '');
}

describe('the nack catalogue, one Envoy for all', () => {
  let lab: FaultLab;
  beforeAll(async () => {
    lab = await startFaultLab();
  });
  afterAll(async () => {
    await closeFaultLabs();
    await assertNoLeaks();
  });

  // The gRPC configs are NACKed by grpc-go (proxyless-grpc-go.test.ts).
  const forEnvoy = NACK_CATALOGUE.filter((c) => c.client !== 'grpc');
  it.each(forEnvoy.map((c) => [c.name, c] as const))(
    '%s is rejected by Envoy, and the old config keeps serving',
    async (name, config) => {
      const { envoy, istiod } = lab;
      const stat = STATS[config.typeUrl] as string;
      const rejectedBefore = await lab.stat(`${stat}.update_rejected`);
      const listeners = await envoy.dynamicListeners();
      const clusters = (await envoy.dynamicActiveClusters()).sort();

      const fault = await istiod.control.inject({ scenario: 'nack', params: { config: name } });
      const { nack } = await istiod.waitForNack(config.typeUrl, {
        version: `${istiod.snapshot().get(config.typeUrl).version}+nack.${name}`,
      });
      expect(nack.code).toBe(13);
      expect(nack.message).toContain(essence(config.envoyError));
      await envoy.waitForStat(`${stat}.update_rejected`, (v) => v === rejectedBefore + 1);
      expect(await envoy.dynamicListeners()).toEqual(listeners);
      expect((await envoy.dynamicActiveClusters()).sort()).toEqual(clusters);
      expect(await get(lab.inboundUrl())).toMatchObject({ status: 200 });
      expect((await fault.info()).counts).toMatchObject({ sent: 1, rejected: 1 });

      // Removing the fault sends the current (good) version again, and Envoy accepts it.
      const since = istiod.journal.query().at(-1)?.seq ?? 0;
      await fault.remove();
      await istiod.waitForRequest(config.typeUrl, { kind: 'ack', since });
      expect(await lab.stat(`${stat}.update_rejected`)).toBe(rejectedBefore + 1);
    },
  );
});

describe('after the NACK', () => {
  afterEach(async () => {
    await closeFaultLabs();
    await assertNoLeaks();
  });

  it('stop (the default) sends nothing more of the type while applied', async () => {
    const lab = await startFaultLab();
    const fault = await lab.istiod.control.inject({
      scenario: 'nack',
      params: { config: 'unknown-cluster' },
    });
    await lab.envoy.waitForStat('listener_manager.lds.update_rejected', (v) => v === 1);
    // Envoy counts the rejection before its NACK reaches the mock; a change made before that
    // would go out bad too (the fault has not stopped yet).
    await waitFor(async () => (await fault.info()).counts.rejected === 1, {
      description: 'the mock has the NACK',
    });
    // A real change while stopped is held too: the proxy stays on its last good config.
    const [outboundPort] = (await freePorts(1)) as [number];
    const changed = await lab.istiod.control.setResources({
      resources: makeLabResources({ ...lab.ports, outboundPort }),
    });
    expect(changed.changed).toEqual(['LDS']);
    await lab.istiod.expectNoResponse('LDS', 1_500);
    expect(await lab.stat('listener_manager.lds.update_rejected')).toBe(1);
    expect((await fault.info()).counts.rejected).toBe(1);
  });

  it('resend sends the bad config again every interval: update_rejected keeps climbing', async () => {
    const lab = await startFaultLab();
    await lab.istiod.control.inject({
      scenario: 'nack',
      params: { config: 'duplicate-address', after: 'resend', interval: '200ms' },
    });
    await lab.envoy.waitForStat('listener_manager.lds.update_rejected', (v) => Number(v) >= 3);
    expect(await lab.stat('listener_manager.lds.update_success')).toBe(1);
    expect(await get(lab.inboundUrl())).toMatchObject({ status: 200 });
  });

  it('rollback sends the last ACKed set: rejected once, then accepted again', async () => {
    const lab = await startFaultLab();
    const good = lab.istiod.snapshot().get(CLUSTER_TYPE).version;
    const since = lab.istiod.journal.query().at(-1)?.seq ?? 0;
    const fault = await lab.istiod.control.inject({
      scenario: 'nack',
      params: { config: 'malformed-endpoint', after: 'rollback' },
    });
    await lab.envoy.waitForStat('cluster_manager.cds.update_rejected', (v) => v === 1);
    await lab.envoy.waitForStat('cluster_manager.cds.update_success', (v) => v === 2);
    expect(await lab.envoy.stat('cluster_manager.cds.version_text')).toBe(good);
    await waitFor(async () => (await fault.info()).counts.rolledBack === 1, {
      description: 'one rollback',
    });
    // Envoy counts the success before its ACK reaches the mock.
    const ack = await lab.istiod.waitForRequest('CDS', { kind: 'ack', since });
    expect(ack.version).toBe(good);
    const stream = lab.istiod.streams()[0];
    expect(stream?.types.get(CLUSTER_TYPE)?.acked?.version).toBe(good);
    expect(stream?.types.get(CLUSTER_TYPE)?.nack).toBeUndefined();
  });
});
