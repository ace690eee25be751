/**
 * pilot-agent's readiness, played by the agent in front of a real Envoy fed by the mock: each
 * state a sidecar goes through, seen the three ways a cluster sees it (pilot-agent's
 * `/healthz/ready` on the status port, the kubelet's probe through Envoy's readiness listener,
 * and the pod's READY column).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect } from 'vitest';
import { startAgent, type Agent } from '../../src/envoy/agent.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import { LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { it } from '../support/fixtures/test.js';
import { get, makeBrokenInbound } from '../support/harness/lab.js';

const NOT_RECEIVED =
  'config not received from XDS server (is Istiod running?): ' +
  'cds updates: 0 successful, 0 rejected; lds updates: 0 successful, 0 rejected';
const REJECTED =
  'config received from XDS server, but was rejected: ' +
  'cds updates: 1 successful, 0 rejected; lds updates: 0 successful, 1 rejected';

// The agent (and its Envoy) stops here, before the fixtures close the mocks.
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
});

/** The lab's resources on free listener ports, optionally with virtualInbound broken. */
async function labResources(broken = false): Promise<unknown[]> {
  const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
  const resources: unknown[] = makeLabResources({ inboundPort, outboundPort });
  if (!broken) return resources;
  const bad = makeBrokenInbound(inboundPort);
  return resources.map((r) => ((r as { name?: string }).name === 'virtualInbound' ? bad : r));
}

/** An agent with every port free, logging JSON lines into `logs`. */
async function startTestAgent(xdsPort: number, logs: string[]): Promise<Agent> {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return startAgent({
    bootstrap: { discoveryPort: xdsPort },
    ports: { status: 0, admin: 0, readiness: 0, prometheus: 0 },
    probeIntervalMs: 200,
    logger: pino({ level: 'info' }, sink),
  });
}

const messages = (logs: string[]) => logs.map((l) => (JSON.parse(l) as { msg: string }).msg);

describe('mock-istiod agent: readiness like pilot-agent', () => {
  it('withheld: 503 with an empty body and the reason logged; 15021 refuses; pod 1/2', async ({
    startMock,
  }) => {
    const istiod = await startMock({ withholdFirst: true, resources: await labResources() });
    const logs: string[] = [];
    agent = await startTestAgent(istiod.addresses.xds.port, logs);
    await agent.envoy.waitForStat('control_plane.connected_state', (v) => v === 1);

    expect(await get(agent.statusUrl)).toEqual({ status: 503, body: '' });
    expect(agent.lastReadiness()).toEqual({ ready: false, reason: NOT_RECEIVED });
    await waitFor(() => messages(logs).includes(`Envoy proxy is NOT ready: ${NOT_RECEIVED}`), {
      description: 'the NOT ready line in the agent log',
    });
    // Envoy's static listeners only accept once Envoy is LIVE: the kubelet's probe is refused.
    expect(await get(agent.readinessUrl)).toEqual({ error: 'ECONNREFUSED' });
    const view = await agent.waitForPod((v) => v.lastProbe !== '');
    expect(view).toMatchObject({ ready: 1, total: 2, status: 'Running' });
    expect(view.lastProbe).toMatch(/connect: connection refused$/);

    await istiod.control.release();
    await agent.waitForPod((view) => view.ready === 2);
    expect(await get(agent.readinessUrl)).toEqual({ status: 200, body: '' });
    expect(await get(agent.statusUrl)).toEqual({ status: 200, body: '' });
    expect(messages(logs)).toContain('Envoy proxy is ready');
  });

  it('rejected: Envoy is LIVE, but the agent answers 503 through 15021 and the pod stays 1/2', async ({
    startMock,
  }) => {
    const istiod = await startMock({ resources: await labResources(true) });
    agent = await startTestAgent(istiod.addresses.xds.port, []);
    const { nack } = await istiod.waitForNack(LISTENER_TYPE);
    expect(nack.message).toContain("unknown cluster 'no-such-cluster'");
    // A rejected first LDS response still ends Envoy's initialization.
    await agent.envoy.waitForLive();

    expect(await get(agent.readinessUrl)).toEqual({ status: 503, body: '' });
    expect(agent.lastReadiness()).toEqual({ ready: false, reason: REJECTED });
    await agent.waitForPod((view) => /statuscode: 503$/.test(view.lastProbe));
    expect(agent.podView().ready).toBe(1);

    // The fix arrives: the next push is accepted and the pod becomes ready.
    await istiod.control.setResources({ resources: await labResources() });
    await agent.waitForPod((view) => view.ready === 2);
    expect(await get(agent.readinessUrl)).toEqual({ status: 200, body: '' });
  });

  it('once ready, stays ready: istiod down (connected_state 0) and a rejected push keep 200', async ({
    startMock,
  }) => {
    const resources = await labResources();
    let istiod = await startMock({ resources });
    const xdsPort = istiod.addresses.xds.port;
    agent = await startTestAgent(xdsPort, []);
    await agent.waitForPod((view) => view.ready === 2);
    expect(agent.probe.receivedFirstUpdate && agent.probe.atLeastOnceReady).toBe(true);

    await istiod.close();
    await agent.envoy.waitForStat('control_plane.connected_state', (v) => v === 0);
    expect(await get(agent.readinessUrl)).toEqual({ status: 200, body: '' });
    expect(agent.podView().ready).toBe(2);

    istiod = await startMock({ resources, xds: { host: '127.0.0.1', port: xdsPort } });
    await agent.envoy.waitForStat('control_plane.connected_state', (v) => v === 1, {
      timeoutMs: 15_000,
    });
    await istiod.control.setResources({ resources: await labResources(true) });
    await istiod.waitForNack(LISTENER_TYPE);
    await agent.envoy.waitForStat('listener_manager.lds.update_rejected', (v) => Number(v) >= 1);
    expect(await get(agent.readinessUrl)).toEqual({ status: 200, body: '' });
    expect(agent.lastReadiness()).toEqual({ ready: true });
  });

  it('serves Prometheus stats on its 15090-style listener, control_plane included', async ({
    startMock,
  }) => {
    const istiod = await startMock({ resources: await labResources() });
    agent = await startTestAgent(istiod.addresses.xds.port, []);
    await agent.envoy.waitForLive();
    const scraped = await get(agent.prometheusUrl);
    expect(scraped).toMatchObject({ status: 200 });
    expect('body' in scraped ? scraped.body : '').toMatch(
      /^envoy_control_plane_connected_state\{\} 1$/m,
    );
  });
});
