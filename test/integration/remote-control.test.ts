/**
 * `connectMockIstiod(url)` drives a mock over its control API with the same methods as
 * `mock.control`: one example, written against `MockIstiodControl`, runs against both,
 * with a real ADS stream playing the proxy to see each action's effect.
 */
import { describe, expect } from 'vitest';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { makeLabResources } from '../../src/resources/lab.js';
import type { AdsTestClient } from '../../src/testing/ads-client.js';
import type { MockIstiodControl } from '../../src/testing/control.js';
import { connectMockIstiod } from '../../src/testing/remote.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { isMockIstiodError } from '../../src/util/errors.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { handshake, requestClusters } from '../support/fixtures/handshake.js';
import { it } from '../support/fixtures/test.js';

/** The example: every action, each checked by what the proxy stream or the mock shows. */
async function example(
  control: MockIstiodControl,
  server: TestMockIstiod,
  connect: (mock: TestMockIstiod) => AdsTestClient,
) {
  const client = connect(server);
  await control.reset();
  const stream = client.sotw();
  await handshake(stream);
  await server.waitForAck(CLUSTER_TYPE);

  expect(await control.push({ types: ['CDS'] })).toEqual({ streams: 1 });
  const acks = await control.journal({ kind: 'ack', type: CLUSTER_TYPE });
  expect(acks.length).toBeGreaterThan(0);

  expect(await control.withhold()).toEqual({ withheld: true });
  expect((await server.control.state()).withheld).toBe(true);
  expect(await control.release()).toEqual({ released: true, withheld: false });
  expect((await control.release()).released).toBe(false);

  const seen = await control.withFault(
    { scenario: 'delay', id: 'slow', params: { ms: 20 } },
    async (fault) => {
      expect(fault.id).toBe('slow');
      expect((await fault.info()).state).toBe('active');
      return (await control.listFaults()).faults.map((f) => f.id);
    },
  );
  expect(seen).toEqual(['slow']);
  expect(await control.listFaults()).toEqual({ faults: [] });

  const bad = await control
    .inject({ scenario: 'delay', params: { ms: 'soon' } })
    .catch((e: unknown) => e);
  expect(isMockIstiodError(bad, 'CONTROL_REFUSED') && bad.details.status).toBe(400);
  expect(isMockIstiodError(bad) && bad.problems.map((p) => p.path)).toEqual(['params.ms']);

  const refused = await control
    .setResources({
      resources: [
        {
          '@type': 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
          name: 'a',
          connect_timeout: 'soon',
        },
      ],
    })
    .catch((e: unknown) => e);
  expect(isMockIstiodError(refused, 'CONTROL_REFUSED') && refused.problems[0]?.path).toMatch(
    /^resources\[0\]/,
  );
  const changed = await control.setResources({
    resources: [...makeLabResources(), makeStaticCluster({ name: 'extra', endpoints: [] })],
  });
  expect('version' in changed && changed.changed).toContain('CDS');

  // A fault's waits: on its trigger (none yet, then at 150 ms), and on a fault gone.
  const later = await control.inject({
    scenario: 'delay',
    id: 'later',
    params: { ms: 1 },
    trigger: { after: '150ms' },
  });
  await expect(later.whenActive({ timeoutMs: 20 })).rejects.toMatchObject({
    code: 'WAIT_TIMEOUT',
    details: { lastValue: { fault: { id: 'later', state: 'armed' } } },
  });
  expect((await later.whenActive()).state).toBe('active');
  await later.remove();
  expect((await later.info()).state).toBe('active');
  await expect(later.whenDone()).rejects.toMatchObject({
    code: 'CONTROL_REFUSED',
    details: { status: 404 },
  });

  expect(await control.disconnect({ code: 7, message: 'go away' })).toEqual({
    disconnected: 1,
    code: 'PERMISSION_DENIED',
  });
  await waitFor(() => server.streams().length === 0, {
    timeoutMs: 5_000,
    description: 'the stream to end',
  });

  // And on its end: an outage of 100 ms is done once the port is open again.
  const outage = await control.inject({ scenario: 'down', params: { for: '100ms' } });
  expect(await outage.whenDone()).toMatchObject({ state: 'done', counts: { downs: 1 } });
  expect((await server.control.state()).serving).toBe(true);
  await outage.remove();

  expect(await control.down()).toEqual({ serving: false });
  expect((await server.control.state()).serving).toBe(false);
  expect(await control.up()).toEqual({ serving: true });
  expect((await server.control.state()).serving).toBe(true);
  // A new client: the first one's channel is in its reconnect back-off after the port closed.
  const after = connect(server);
  await requestClusters(after.sotw());
  await waitFor(() => server.streams().length === 1, {
    timeoutMs: 5_000,
    description: 'a new stream',
  });
}

describe('the same example in process and over HTTP', () => {
  it('runs against mock.control', async ({ mock, control, connect }) => {
    await example(control, mock, connect);
  });

  describe('with a token', () => {
    it.override({ mockOptions: { controlToken: 's3cret' }, controlVia: 'remote' });

    it('runs against connectMockIstiod(url), with a token', async ({ mock, control, connect }) => {
      const url = `http://127.0.0.1:${mock.addresses.control?.port}`;
      const refused = await connectMockIstiod(url).catch((e: unknown) => e);
      expect(isMockIstiodError(refused, 'CONTROL_REFUSED') && refused.details.status).toBe(401);
      await example(control, mock, connect);
    });
  });

  it('says when nothing answers at the URL', async () => {
    const err = await connectMockIstiod('http://127.0.0.1:1', { timeoutMs: 2_000 }).catch(
      (e: unknown) => e,
    );
    expect(isMockIstiodError(err, 'CONTROL_API_FAILED') && err.message).toMatch(
      /cannot reach mock-istiod at 127\.0\.0\.1:1 \(/,
    );
  });
});
