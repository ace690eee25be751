/**
 * `/metrics` after a known sequence of connections, pushes, ACKs, NACKs and stale nonces,
 * driven by the raw ADS test client: istiod's metric names, labels and types (no `_total`
 * on istiod's counters), and one registry per server.
 */
import { describe, expect } from 'vitest';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { ack, requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it } from '../support/fixtures/test.js';

async function scrape(server: TestMockIstiod): Promise<{ type: string; text: string }> {
  const res = await fetch(`http://127.0.0.1:${server.addresses.control?.port}/metrics`);
  expect(res.status).toBe(200);
  return { type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The value of one sample line, e.g. `pilot_xds_pushes{type="cds"}`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  it('counts connections, pushes, ACKs, NACKs and expired nonces with istiod names', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.sotw();
    const cds = await requestClusters(stream);
    // A stale nonce, then the ACK.
    stream.send({ type_url: CLUSTER_TYPE, version_info: cds.version_info, response_nonce: 'old' });
    ack(stream, cds);
    stream.send({ type_url: LISTENER_TYPE });
    const lds = await stream.next();
    stream.send({
      type_url: LISTENER_TYPE,
      response_nonce: lds.nonce,
      error_detail: { code: 13, message: "route: unknown cluster 'x'" },
    });
    await server.waitForNack(LISTENER_TYPE);

    const { type, text } = await scrape(server);
    expect(type).toContain('text/plain');
    expect(sample(text, 'pilot_xds{version="1.24.0"}')).toBe(1);
    expect(sample(text, 'pilot_xds_pushes{type="cds"}')).toBe(1);
    expect(sample(text, 'pilot_xds_pushes{type="lds"}')).toBe(1);
    expect(sample(text, 'pilot_xds_expired_nonce{type="cds"}')).toBe(1);
    expect(sample(text, 'pilot_total_xds_rejects{type="lds"}')).toBe(1);
    expect(sample(text, 'pilot_total_xds_rejects{type="cds"}')).toBeUndefined();
    expect(sample(text, 'pilot_xds_lds_reject{node="orders-v1-0.default",err="Internal"}')).toBe(1);
    expect(sample(text, 'pilot_xds_push_time_count{type="cds"}')).toBe(1);
    // istiod's buckets; how long the push took depends on the machine's load, so the one it
    // falls in is not asserted, only that it is counted once.
    expect(sample(text, 'pilot_xds_push_time_bucket{le="0.01",type="cds"}')).toBeDefined();
    expect(sample(text, 'pilot_xds_push_time_bucket{le="+Inf",type="cds"}')).toBe(1);
    expect(sample(text, `pilot_xds_config_size_bytes_count{type="${CLUSTER_TYPE}"}`)).toBe(1);
    expect(sample(text, 'mock_istiod_requests_total{type="CDS",kind="ack"}')).toBe(1);
    expect(sample(text, 'mock_istiod_requests_total{type="LDS",kind="nack"}')).toBe(1);
    expect(sample(text, 'mock_istiod_proxy_sync{type="CDS",status="SYNCED"}')).toBe(1);
    expect(sample(text, 'mock_istiod_proxy_sync{type="LDS",status="ERROR"}')).toBe(1);
    expect(sample(text, 'mock_istiod_streams{protocol="sotw"}')).toBe(1);
    expect(sample(text, 'mock_istiod_withheld')).toBe(0);
    // istiod's counters have no _total suffix; its reject gauges are gauges.
    expect(text).toContain('# TYPE pilot_xds_pushes counter');
    expect(text).toContain('# TYPE pilot_total_xds_rejects counter');
    expect(text).toContain('# TYPE pilot_xds_cds_reject gauge');
    expect(text).toContain(
      '# HELP pilot_xds Number of endpoints connected to this pilot using XDS.',
    );
    expect(text).not.toMatch(/^pilot_\w+_total/m);

    stream.close();
    await waitFor(() => server.streams().length === 0, { description: 'the stream to close' });
    // A version no proxy runs is removed (istiod keeps it at 0): clients cannot fill /metrics.
    expect(sample((await scrape(server)).text, 'pilot_xds{version="1.24.0"}')).toBeUndefined();
  });

  it('observes the convergence time once a proxy got every changed type it subscribes to', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.sotw();
    await requestClusters(stream);
    stream.send({ type_url: LISTENER_TYPE });
    await stream.next();
    expect(sample((await scrape(server)).text, 'pilot_proxy_convergence_time_count')).toBe(0);
    await server.control.setResources({ resources: makeLabResources({ appPort: 8102 }) });
    await stream.next();
    await stream.next();
    const { text } = await scrape(server);
    expect(sample(text, 'pilot_proxy_convergence_time_count')).toBe(1);
    expect(sample(text, 'pilot_proxy_convergence_time_bucket{le="30"}')).toBe(1);
    expect(sample(text, 'pilot_xds_pushes{type="cds"}')).toBe(2);
  });

  it('counts faults applied by scenario and shows when responses are withheld', async ({
    mock: server,
  }) => {
    await server.control.applyFault({ scenario: 'withhold', id: 'hold' });
    await server.control.withhold();
    const { text } = await scrape(server);
    expect(sample(text, 'mock_istiod_faults_applied_total{scenario="withhold"}')).toBe(1);
    expect(sample(text, 'mock_istiod_withheld')).toBe(1);
  });

  it('keeps a registry per server, so two mocks in one process count separately', async ({
    startMock,
    connect,
  }) => {
    const setup = async () => {
      const server = await startMock();
      return { server, client: connect(server) };
    };
    const a = await setup();
    const b = await setup();
    a.client.sotw().send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    await waitFor(() => a.server.streams()[0]?.types.get(CLUSTER_TYPE)?.sent);
    expect(sample((await scrape(a.server)).text, 'pilot_xds_pushes{type="cds"}')).toBe(1);
    expect(sample((await scrape(b.server)).text, 'pilot_xds_pushes{type="cds"}')).toBeUndefined();
    expect(a.server.metrics.registry).not.toBe(b.server.metrics.registry);
  });
});
