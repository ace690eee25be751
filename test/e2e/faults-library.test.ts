/**
 * The test library's Envoy side, through its public API only (`mock-istiod/testing`):
 * `startEnvoy` + `waitForState`, and the leak check that fails while an Envoy or a mock is
 * left running, and passes once they are really gone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertNoLeaks,
  closeAll,
  isMockIstiodError,
  leaks,
  sidecarBootstrap,
  startEnvoy,
  startMockIstiod,
} from 'mock-istiod/testing';

afterEach(async () => {
  await closeAll();
  await assertNoLeaks();
});

describe('startEnvoy', () => {
  it('waits for a state, and the leak check sees what is still running', async () => {
    const istiod = await startMockIstiod({ withholdFirst: true });
    const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(istiod) });
    await envoy.waitForState('PRE_INITIALIZING');
    expect(await leaks()).toEqual([
      'mock istiod was started and never closed',
      `Envoy (pid ${envoy.pid}) was started and never stopped`,
    ]);
    await expect(assertNoLeaks()).rejects.toThrow(/left behind by the test/);

    await istiod.control.release();
    await envoy.waitForState('LIVE');
    await envoy.stop();
    await istiod.close();
    expect(istiod.streams()).toEqual([]);
    expect(() => process.kill(envoy.pid, 0)).toThrow();
    expect(await leaks()).toEqual([]);
  });

  it('rejects a wait at once, with Envoy’s last log lines, when Envoy exits', async () => {
    const istiod = await startMockIstiod();
    const bootstrap = sidecarBootstrap(istiod, { adsClusterName: 'xds-grpc-typo' });
    const started = Date.now();
    // Envoy may exit before its admin address is read (startEnvoy rejects) or just after
    // (the wait rejects): either way, at once and with the reason.
    const failure = await startEnvoy({ bootstrap })
      .then((envoy) => envoy.waitForState('LIVE'))
      .catch((err: unknown) => err);
    expect(isMockIstiodError(failure, 'ENVOY_EXITED')).toBe(true);
    expect(String(failure)).toContain("Unknown gRPC client cluster 'xds-grpc-typo'");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('closeAll stops what a test forgot, so nothing outlives it', async () => {
    const istiod = await startMockIstiod();
    const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(istiod) });
    await envoy.waitForState('LIVE');
    await closeAll();
    expect(envoy.exitStatus).toBeDefined();
    expect((await istiod.control.state()).serving).toBe(false);
    expect(await leaks()).toEqual([]);
  });
});
