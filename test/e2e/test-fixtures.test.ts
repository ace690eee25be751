/**
 * The `envoy` fixture (test/support/fixtures/test.ts): a real sidecar-shaped Envoy against the
 * test's mock, stopped at the end of the test before the mock is checked for streams left.
 */
import { expect } from 'vitest';
import { LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { it } from '../support/fixtures/test.js';

it('starts an Envoy against the mock that goes LIVE and ACKs LDS', async ({ mock, envoy }) => {
  await envoy.waitForState('LIVE', { timeoutMs: 20_000 });
  await mock.waitForAck(LISTENER_TYPE);
  expect(mock.streams()).toHaveLength(1);
  expect(envoy.exitStatus).toBeUndefined();
});
