/**
 * The suite's own fixtures (test/support/fixtures/test.ts): what they give a test, and what
 * their teardown counts as left behind — checked here on the pieces the teardown runs, since
 * a test cannot watch its own teardown fail.
 */
import { describe, expect } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { handshake } from '../support/fixtures/handshake.js';
import { createMocks } from '../support/fixtures/mocks.js';
import { it, test } from '../support/fixtures/test.js';

describe('the mock fixtures', () => {
  it('give a started mock, an ADS client on it, its control handle and the HTTP client', async ({
    mock,
    ads,
    control,
    client,
  }) => {
    await handshake(ads.sotw());
    await mock.waitForAck(CLUSTER_TYPE);
    expect(mock.streams()).toHaveLength(1);
    expect(control).toBe(mock.control);
    expect(await control.listFaults()).toEqual({ faults: [] });
    expect(await client.call('listFaults')).toEqual({ faults: [] });
  });

  describe('with controlVia: remote', () => {
    test.override({ controlVia: 'remote' });
    it('give a control handle over the control port, with the same answers', async ({
      mock,
      control,
    }) => {
      expect(control).not.toBe(mock.control);
      expect(await control.listFaults()).toEqual(await mock.control.listFaults());
      await control.withhold();
      expect((await mock.control.state()).withheld).toBe(true);
    });
  });

  describe('with options', () => {
    test.override({ mockOptions: { withholdFirst: true } });
    it('start the mock with mockOptions', async ({ control }) => {
      expect((await control.state()).withheld).toBe(true);
    });
  });
});

describe('what the teardown counts as left behind', () => {
  it('a stream whose client the test never closed, named by its node; the mock is closed all the same', async () => {
    const mocks = createMocks();
    const mock = await mocks.start();
    const client = new AdsTestClient(mock.xdsAddress);
    try {
      await handshake(client.sotw());
      const problems = await mocks.closeAll();
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/1 stream\(s\) still open at the end of the test/);
      expect(problems[0]).toMatch(/sotw stream of sidecar~10\.0\.0\.1~orders-v1-0/);
      expect(mock.streams()).toEqual([]);
    } finally {
      client.close();
    }
  });

  it('nothing once the test closed its clients, or closed the mock itself', async () => {
    const mocks = createMocks();
    const mock = await mocks.start();
    const client = new AdsTestClient(mock.xdsAddress);
    await handshake(client.sotw());
    client.close();
    const closedByTest = await mocks.start();
    await closedByTest.close();
    expect(await mocks.closeAll()).toEqual([]);
  });
});
