/**
 * down / up and flap against a real Envoy: with the xDS port closed, connections are
 * refused, `connected_state` drops to 0, `update_failure` grows and traffic keeps flowing on
 * the last configuration; once the port is back, Envoy reconnects reporting the version it
 * runs, which is still the mock's version (versions are kept), and nothing is re-pushed.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { assertNoLeaks } from '../../src/testing/leaks.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { closeFaultLabs, get, startFaultLab, type FaultLab } from '../support/harness/fault-lab.js';

afterEach(async () => {
  await closeFaultLabs();
  await assertNoLeaks();
});

function tcpConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

function opens(lab: FaultLab): number {
  return lab.istiod.journal.query({ kind: 'open' }).length;
}

describe('down / up', () => {
  it('refuses connections while down; Envoy keeps serving, then reconnects with the same version', async () => {
    const lab = await startFaultLab();
    const { istiod, envoy } = lab;
    const acked = await istiod.waitForAck(CLUSTER_TYPE);
    await istiod.waitForAck(LISTENER_TYPE);
    const failures = await lab.stat('cluster_manager.cds.update_failure');

    const fault = await istiod.control.inject({ scenario: 'down' });
    expect((await istiod.control.state()).serving).toBe(false);
    expect(await tcpConnect(istiod.addresses.xds.port)).toBe('ECONNREFUSED');
    await lab.connected(0);
    await envoy.waitForStat('cluster_manager.cds.update_failure', (v) => Number(v) >= failures + 2);
    expect(await get(lab.inboundUrl())).toMatchObject({ status: 200 });
    expect(await envoy.ready()).toEqual({ status: 200, body: 'LIVE' });

    const since = istiod.journal.query().at(-1)?.seq ?? 0;
    await fault.remove();
    expect((await istiod.control.state()).serving).toBe(true);
    const reconnect = await istiod.waitForRequest('CDS', { kind: 'reconnect', since });
    expect(reconnect.version).toBe(acked.version);
    expect(istiod.snapshot().get(CLUSTER_TYPE).version).toBe(acked.version);
    await lab.connected(1);
    await istiod.waitForAck(LISTENER_TYPE);
    expect(await lab.stat('cluster_manager.cds.update_rejected')).toBe(0);
  });

  it('with `for` comes back by itself and is then done', async () => {
    const lab = await startFaultLab();
    const before = opens(lab);
    const fault = await lab.istiod.control.inject({ scenario: 'down', params: { for: '1s' } });
    await lab.connected(0);
    await fault.whenDone();
    await lab.connected(1);
    // Envoy counts itself connected when its stream opens; the mock sees the stream with
    // its first request, a moment later.
    await waitFor(() => opens(lab) > before, { description: 'the mock to see the new stream' });
  });
});

describe('flap', () => {
  it('takes the port down and up on schedule; Envoy follows each time and keeps serving', async () => {
    const lab = await startFaultLab();
    const before = opens(lab);
    const fault = await lab.istiod.control.inject({
      scenario: 'flap',
      params: { down: '600ms', up: '1200ms', cycles: 2 },
    });
    await lab.connected(0);
    await lab.connected(1);
    await lab.connected(0);
    expect(await get(lab.inboundUrl())).toMatchObject({ status: 200 });
    await fault.whenDone({ timeoutMs: 15_000 });
    expect(await fault.info()).toMatchObject({ counts: { downs: 2 }, reason: '2 outages' });
    await lab.connected(1);
    // Envoy reports connected when its stream is up; the mock journals the open when the
    // stream's first request is read, a moment later on a busy machine.
    await waitFor(() => opens(lab) >= before + 2, {
      timeoutMs: 5_000,
      description: 'the mock to journal both reconnections',
    });
    expect(await lab.stat('cluster_manager.cds.update_failure')).toBeGreaterThanOrEqual(2);
  });
});
