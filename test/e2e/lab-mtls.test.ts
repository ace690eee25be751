/**
 * The `mtls` lab variant, checked by the real Envoy's validate mode: virtualInbound
 * terminates Istio's mutual TLS with the SDS secrets `default` and `ROOTCA` from the
 * `sds-grpc` cluster, which Istio's bootstrap defines (pilot-agent's SDS server on a Unix
 * socket). Loaded into a bootstrap that has that cluster, Envoy accepts the listener. Pushed
 * to an Envoy whose bootstrap has no SDS server, it is ACKed and Envoy never goes LIVE. The
 * end-to-end proof (pilot-agent's SDS and the mock's CA) needs the real pilot-agent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { validateEnvoyConfig } from '../../src/envoy/validate.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { SDS_CLUSTER } from '../../src/resources/istio-mtls.js';
import { sidecarBootstrap } from '../../src/testing/envoy.js';
import { freePorts } from '../../src/util/ports.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { it } from '../support/fixtures/test.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Resource = Record<string, unknown>;

/** A resource as a bootstrap's static_resources entry: the same fields, without `@type`. */
function bare({ '@type': _type, ...fields }: Resource): Resource {
  return fields;
}

/** Istio's bootstrap cluster for pilot-agent's SDS server (a Unix socket, HTTP/2). */
const sdsGrpcCluster = {
  name: SDS_CLUSTER,
  type: 'STATIC',
  connect_timeout: '1s',
  typed_extension_protocol_options: {
    'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
      '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
      explicit_http_config: { http2_protocol_options: {} },
    },
  },
  load_assignment: {
    cluster_name: SDS_CLUSTER,
    endpoints: [
      {
        lb_endpoints: [
          {
            endpoint: {
              address: { pipe: { path: './var/run/secrets/workload-spiffe-uds/socket' } },
            },
          },
        ],
      },
    ],
  },
};

async function validate(withSdsCluster: boolean) {
  const resources = makeLabResources({ mtls: true }) as Resource[];
  const ofType = (type: string) => resources.filter((r) => r['@type'] === type).map(bare);
  const bootstrap = {
    // SDS needs the node's id and cluster, as Istio's bootstrap sets them.
    node: {
      id: 'sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local',
      cluster: 'orders-v1.default',
    },
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: 0 } } },
    static_resources: {
      clusters: [...ofType(CLUSTER_TYPE), ...(withSdsCluster ? [sdsGrpcCluster] : [])],
      listeners: ofType(LISTENER_TYPE),
    },
  };
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-mtls-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'bootstrap.json');
  writeFileSync(file, JSON.stringify(bootstrap));
  return { file, result: await validateEnvoyConfig(file) };
}

describe('the mtls lab variant', () => {
  it("Envoy's validate mode accepts its listener beside Istio's sds-grpc cluster", async () => {
    const { file, result } = await validate(true);
    expect(result.output).toContain(`configuration '${file}' OK`);
    expect(result.exitCode).toBe(0);
  });

  it('validate mode does not check sds-grpc: without it, the bootstrap still validates', async () => {
    // A fact worth knowing: only a running Envoy finds out that no SDS server answers.
    const { result } = await validate(false);
    expect(result.exitCode).toBe(0);
  });

  it("pushed to mock-istiod's own bootstrap (no sds-grpc): LDS is ACKed, Envoy stays INITIALIZING", async ({
    startMock,
    startEnvoy,
  }) => {
    const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
    const istiod = await startMock({
      resources: makeLabResources({ mtls: true, inboundPort, outboundPort }),
    });
    const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(istiod) });
    await istiod.waitForAck(LISTENER_TYPE);
    // The listener waits for its secrets `default` and `ROOTCA`, which never come.
    await envoy.waitForState('INITIALIZING');
    expect(await envoy.ready()).toEqual({ status: 503, body: 'INITIALIZING' });
  });

  it('is served as it is: no warning, the inbound filter chain names default and ROOTCA', async ({
    mock: istiod,
  }) => {
    const change = await istiod.control.setResources({
      resources: makeLabResources({ mtls: true }),
    });
    expect(change.warnings).toEqual([]);
    const inbound = JSON.stringify(makeLabResources({ mtls: true })[2]);
    expect(inbound).toContain('"require_client_certificate":true');
    expect(inbound).toMatch(/"name":"default","sds_config".*"cluster_name":"sds-grpc"/);
    expect(inbound).toMatch(/"name":"ROOTCA","sds_config"/);
  });
});
