/**
 * Every file in envoy-configs/ against the real Envoy: `envoy --mode validate` accepts the good
 * ones and rejects the broken ones with the message each file promises; the one mistake
 * validate cannot see (no HTTP/2 on xds-grpc) is shown failing at run time instead.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { CONFIG_SPECS } from '../../scripts/generate-envoy-configs.js';
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import { envoyValidateError } from '../../src/bootstrap/validate-message.js';
import { validateEnvoyConfig } from '../../src/envoy/validate.js';
import { waitFor } from '../../src/util/wait.js';
import { packageRoot } from '../../src/util/package-root.js';
import { it } from '../support/fixtures/test.js';

const configPath = (file: string) => join(packageRoot(), 'envoy-configs', file);

describe('envoy --mode validate on envoy-configs/', () => {
  for (const spec of CONFIG_SPECS) {
    const expected = spec.validate.ok ? 'OK' : `rejected: ${spec.validate.message}`;
    it(`${spec.file}: ${expected}`, async () => {
      const file = configPath(spec.file);
      const result = await validateEnvoyConfig(file);
      if (spec.validate.ok) {
        expect(result.output).toContain(`configuration '${file}' OK`);
        expect(result.exitCode).toBe(0);
      } else {
        expect(result.exitCode).toBe(1);
        expect(envoyValidateError(result.output)).toMatch(
          new RegExp(`^error initializing configuration '${file}': `),
        );
        expect(envoyValidateError(result.output)).toContain(spec.validate.message);
      }
    });
  }
});

describe('sidecar-broken-no-http2: what validate cannot see', () => {
  it('never gets a stream through: protocol errors, connected_state 0, PRE_INITIALIZING', async ({
    mock: istiod,
    startEnvoy,
  }) => {
    const spec = CONFIG_SPECS.find((s) => s.file === 'sidecar-broken-no-http2.yaml');
    const opened: string[] = [];
    istiod.events.on('stream-open', (stream) => opened.push(stream.connectionId));
    // The same mistake on free ports (the committed file uses a sidecar's fixed ports).
    const bootstrap = makeSidecarBootstrap({
      discoveryPort: istiod.addresses.xds.port,
      adminPort: 0,
    });
    spec?.breakIt?.(bootstrap);
    const envoy = await startEnvoy({ bootstrap });
    await envoy.waitForStat('cluster.xds-grpc.upstream_cx_protocol_error', (v) => Number(v) >= 2);
    // Envoy counts a stream as connected while it is being set up, so between retries the
    // stat flickers to 1 for a moment: wait for the resting value.
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 0);
    expect(await envoy.ready()).toEqual({ status: 503, body: 'PRE_INITIALIZING' });
    // Envoy logs the failing stream once it has stayed down for a while (about a second).
    const line = await waitFor(
      () =>
        envoy
          .logs()
          .split('\n')
          .find((l) =>
            l.includes('StreamAggregatedResources gRPC config stream to xds-grpc closed'),
          ),
      { timeoutMs: 15_000, description: "Envoy's warning about the closed ADS stream" },
    );
    expect(line).toContain('14, upstream connect error or disconnect/reset before headers');
    expect(envoy.logs()).toContain('reset reason: protocol error');
    expect(opened).toEqual([]);
  });
});
