/**
 * The relay is invisible: the conformance cases, state of the world and delta, run against
 * istiod's own server directly and through a mock relaying to it (`relay`), with no fault,
 * and the two transcripts agree line for line. Left out, each for its reason: TLS and
 * identity (the relay's port is plaintext) and what looks at the server itself (its log
 * lines, its debug endpoints over HTTP), which through a relay are the mock's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { CASES } from './cases/index.js';
import type { ServerUnderTest } from './support/exchange.js';
import { runOn } from './support/run.js';
import { casePod, startServers, type Servers } from './support/servers.js';

/** Rules whose cases cannot pass through a SotW relay on a plaintext port (above). */
const NOT_RELAYED = /^(Identity|Log lines|Debug types by namespace)/;

const cases = CASES.filter((c) => !c.alone && !NOT_RELAYED.test(c.rule));
const pods = cases.map((_c, i) => casePod(i + 1));
/** The relayed runs' pods: istiod knows them all, each case runs on two of its own. */
const relayedPods = cases.map((_c, i) => casePod(cases.length + i + 1));
let servers: Servers;
let relay: TestMockIstiod;
let relayed: ServerUnderTest;

beforeAll(async () => {
  servers = await startServers([...pods, ...relayedPods]);
  relay = await startMockIstiod({ relay: servers.istiod.xds });
  relayed = {
    ...servers.istiod,
    label: 'relay',
    xds: relay.xdsAddress,
  };
}, 60_000);
afterAll(async () => {
  await relay?.close();
  await servers?.close();
});

cases.forEach((c, i) => {
  it.concurrent(`${c.rule}: ${c.title}`, async () => {
    const [pod, other] = [pods[i]!, relayedPods[i]!];
    const [istiod, through] = await Promise.all([
      runOn(c, servers.istiod, pod),
      runOn(c, relayed, other),
    ]);
    // The relayed run's own pod, named as the direct run's (istiod quotes node ids).
    const asDirect = (line: string) =>
      line.replace(new RegExp(`\\b${other.name}\\b`, 'g'), pod.name).replaceAll(other.ip, pod.ip);
    expect(through.map(asDirect), "through the relay (left: istiod's directly)").toEqual(istiod);
  });
});
