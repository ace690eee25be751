/**
 * The test library's fault helpers, through its public API only (`mock-istiod/testing`):
 * inject / withFault, waitForRequest, expectNoResponse, the journal, and the leak check.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AdsTestClient,
  assertNoLeaks,
  CLUSTER_TYPE,
  closeAll,
  leaks,
  LISTENER_TYPE,
  startMockIstiod,
  type AdsTestStream,
  type TestMockIstiod,
} from 'mock-istiod/testing';

const NODE = { id: 'sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local' };
const clients: AdsTestClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await closeAll();
  await assertNoLeaks();
});

async function setup(): Promise<{ istiod: TestMockIstiod; stream: AdsTestStream }> {
  const istiod = await startMockIstiod();
  const client = new AdsTestClient(istiod.xdsAddress);
  clients.push(client);
  return { istiod, stream: client.sotw() };
}

describe('inject and withFault', () => {
  it('inject returns a handle to inspect and remove the fault', async () => {
    const { istiod } = await setup();
    const handle = await istiod.control.inject({
      scenario: 'delay',
      params: { ms: '1s' },
      id: 'slow',
    });
    expect(handle.id).toBe('slow');
    expect(await handle.info()).toMatchObject({
      scenario: 'delay',
      params: { ms: 1_000 },
      state: 'active',
    });
    await handle.remove();
    expect((await istiod.control.listFaults()).faults).toEqual([]);
    expect((await handle.info()).id).toBe('slow');
  });

  it('withFault returns what the block returns and removes the fault even when it throws', async () => {
    const { istiod } = await setup();
    expect(
      await istiod.control.withFault(
        { scenario: 'withhold' },
        async () => (await istiod.control.listFaults()).faults.length,
      ),
    ).toBe(1);
    expect((await istiod.control.listFaults()).faults).toEqual([]);
    await expect(
      istiod.control.withFault({ scenario: 'withhold' }, () => {
        throw new Error('the test failed');
      }),
    ).rejects.toThrow('the test failed');
    expect((await istiod.control.listFaults()).faults).toEqual([]);
  });
});

describe('waitForRequest and expectNoResponse', () => {
  it('waitForRequest finds a request already made, or waits for the next one', async () => {
    const { istiod, stream } = await setup();
    const pending = istiod.waitForRequest('LDS', { node: '*orders-v1-0*' });
    stream.send({ type_url: CLUSTER_TYPE, node: NODE });
    const cds = await stream.next();
    const first = await istiod.waitForRequest('CDS');
    expect(first).toMatchObject({ kind: 'subscribe', typeUrl: CLUSTER_TYPE, nodeId: NODE.id });
    stream.send({
      type_url: CLUSTER_TYPE,
      version_info: cds.version_info,
      response_nonce: cds.nonce,
    });
    const acked = await istiod.waitForRequest(CLUSTER_TYPE, { kind: 'ack' });
    expect(acked.version).toBe(cds.version_info);
    stream.send({ type_url: LISTENER_TYPE });
    expect((await pending).typeUrl).toBe(LISTENER_TYPE);
    await expect(
      istiod.waitForRequest('LDS', { since: acked.seq + 10, timeoutMs: 100 }),
    ).rejects.toMatchObject({
      code: 'WAIT_TIMEOUT',
      message: 'timed out after 100 ms waiting for a LDS request',
    });
    // waitForAck: the node filter is a glob, the wait the control operation's, asking for an
    // ACK only; one that runs out throws WAIT_TIMEOUT saying what it waited for.
    expect(await istiod.waitForAck(CLUSTER_TYPE, { node: '*~orders-v1-0.*' })).toMatchObject({
      result: 'ack',
      version: cds.version_info,
      nodeId: NODE.id,
    });
    await expect(
      istiod.waitForAck(CLUSTER_TYPE, { node: 'orders-v1-0', timeoutMs: 100 }),
    ).rejects.toMatchObject({
      code: 'WAIT_TIMEOUT',
      message: expect.stringMatching(
        /^timed out after 100 ms waiting for an ACK of CDS version .* from orders-v1-0$/,
      ) as string,
    });
    expect(() => istiod.waitForRequest('XDS')).toThrow('not a resource type: "XDS"');
  });

  it('expectNoResponse resolves when nothing was sent, and rejects naming what was', async () => {
    const { istiod, stream } = await setup();
    await istiod.control.inject({ scenario: 'withhold' });
    stream.send({ type_url: CLUSTER_TYPE, node: NODE });
    await istiod.expectNoResponse('CDS', 200);
    const quiet = istiod.expectNoResponse('CDS', 2_000, { node: '*orders*' });
    await istiod.control.release();
    await expect(quiet).rejects.toThrow(
      new RegExp(
        `^expected no CDS response for 2000 ms, but one was sent after \\d+ ms to ${NODE.id}`,
      ),
    );
  });
});

describe('the journal', () => {
  it('records every request and response with time, stream, node, type, version, nonce and NACK detail', async () => {
    const { istiod, stream } = await setup();
    stream.send({ type_url: CLUSTER_TYPE, node: NODE });
    const cds = await stream.next();
    stream.send({
      type_url: CLUSTER_TYPE,
      version_info: '',
      response_nonce: cds.nonce,
      error_detail: { code: 13, message: 'no thanks' },
    });
    await istiod.waitForNack(CLUSTER_TYPE);
    const entries = istiod.journal.query({ typeUrl: CLUSTER_TYPE });
    expect(entries.map((e) => e.kind)).toEqual(['subscribe', 'response', 'nack']);
    expect(entries[1]).toMatchObject({
      direction: 'response',
      nodeId: NODE.id,
      connectionId: 'orders-v1-0.default-1',
      version: cds.version_info,
      nonce: cds.nonce,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    expect(entries[2]).toMatchObject({
      errorDetail: { code: 13, message: 'no thanks' },
      nonce: cds.nonce,
    });
  });
});

describe('the leak check', () => {
  it('fails while a mock with an open stream is up, and passes once it is closed', async () => {
    const { istiod, stream } = await setup();
    stream.send({ type_url: CLUSTER_TYPE, node: NODE });
    await stream.next();
    expect(await leaks()).toEqual(['mock istiod was started and never closed']);
    await istiod.close();
    expect(istiod.streams()).toEqual([]);
    expect(await leaks()).toEqual([]);
  });
});
