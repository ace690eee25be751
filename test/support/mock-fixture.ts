/**
 * A mock istiod and an ADS test client, closed when the test that started them ends (even a
 * failed one). Only test/integration/control-api-faults.test.ts still uses it, while its
 * helpers are rewritten elsewhere; new tests take the `mock` and `ads` fixtures of
 * fixtures/test.ts instead. The clean-up is the test's own (`onTestFinished`, registered by
 * `setup`), not a module-level `afterEach`.
 */
import { onTestFinished } from 'vitest';
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
  return {
    /** The running server of the current test, if `setup` was called. */
    get server(): TestMockIstiod | undefined {
      return current.server;
    },
    /** Starts a mock and a client (stopping the test's earlier ones, if any); call it in a test. */
    setup: async (options: Parameters<typeof startMockIstiod>[0] = {}): Promise<MockFixture> => {
      await stop();
      onTestFinished(stop);
      const server = await startMockIstiod(options);
      const client = new AdsTestClient(server.xdsAddress);
      current = { server, client };
      return { server, client };
    },
  };
}
