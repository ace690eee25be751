/**
 * stale against a real Envoy: a response carrying the previous version's resources and a
 * reused nonce is applied and ACKed like any other — Envoy does not order versions or check
 * nonces for freshness — so its configuration and `version_text` go back; removing the fault
 * brings the current version again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLabUpstream } from '../../scripts/lab-upstream.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { assertNoLeaks } from '../../src/testing/leaks.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { closeFaultLabs, startFaultLab, waitForBody } from '../support/harness/fault-lab.js';

afterEach(async () => {
  await closeFaultLabs();
  await assertNoLeaks();
});

describe('stale', () => {
  it('sends the previous version with a reused nonce: Envoy applies it and goes back', async () => {
    const lab = await startFaultLab();
    const { istiod, envoy, ports } = lab;
    const v1 = istiod.snapshot().get(CLUSTER_TYPE).version;
    const second = await startLabUpstream({ mode: 'ok', port: 0 });
    try {
      await istiod.control.setResources({
        resources: makeLabResources({ ...ports, appPort: second.port }),
      });
      const v2 = istiod.snapshot().get(CLUSTER_TYPE).version;
      await istiod.waitForAck(LISTENER_TYPE);
      await waitForBody(lab.inboundUrl(), `ok:${second.port} /orders`);
      const lastCds = istiod.journal.query({ typeUrl: CLUSTER_TYPE, kind: 'response' }).at(-1);

      const fault = await istiod.control.inject({ scenario: 'stale' });
      await waitForBody(lab.inboundUrl(), `ok:${ports.appPort} /orders`);
      expect(await envoy.stat('cluster_manager.cds.version_text')).toBe(v1);
      const staleCds = istiod.journal.query({ typeUrl: CLUSTER_TYPE, kind: 'response' }).at(-1);
      expect(staleCds).toMatchObject({ version: v1, nonce: lastCds?.nonce });
      await istiod.waitForAck(CLUSTER_TYPE, { version: v1 });
      expect(await lab.stat('cluster_manager.cds.update_rejected')).toBe(0);
      expect((await fault.info()).counts.replaced).toBe(2);

      await fault.remove();
      await waitForBody(lab.inboundUrl(), `ok:${second.port} /orders`);
      await envoy.waitForStat('cluster_manager.cds.version_text', (v) => v === v2);
    } finally {
      await second.close();
    }
  });
});
