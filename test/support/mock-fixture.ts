/**
 * A mock istiod and an ADS test client per test, both closed after each test (even a failed
 * one). Call `useMockIstiod()` at the top of a test file.
 */
import { afterEach } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';

export interface MockFixture {
  server: TestMockIstiod;
  client: AdsTestClient;
}

export function useMockIstiod() {
  let current: Partial<MockFixture> = {};
  const stop = async () => {
    current.client?.close();
    await current.server?.close();
    current = {};
  };
  afterEach(stop);
  return {
    /** The running server of the current test, if `setup` was called. */
    get server(): TestMockIstiod | undefined {
      return current.server;
    },
    /** Starts a mock and a client (stopping the test's earlier ones, if any). */
    setup: async (options: Parameters<typeof startMockIstiod>[0] = {}): Promise<MockFixture> => {
      await stop();
      const server = await startMockIstiod(options);
      const client = new AdsTestClient(server.xdsAddress);
      current = { server, client };
      return { server, client };
    },
  };
}
