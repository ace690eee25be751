/**
 * The `deltaResourceVersions` option (docs/conformance.md, "Delta"): the mock then differs
 * from istiod on purpose, and these cases say exactly how. Each script runs on both servers;
 * the mock's transcript must be istiod's with the described difference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { Exchange, type ServerUnderTest } from './support/exchange.js';
import { casePod, startServers, type Pod, type Servers } from './support/servers.js';

const pods = [casePod(1), casePod(2)];
let servers: Servers;

beforeAll(async () => {
  servers = await startServers(pods, { deltaResourceVersions: true });
}, 60_000);
afterAll(async () => {
  await servers?.close();
});

async function transcript(
  server: ServerUnderTest,
  pod: Pod,
  run: (x: Exchange) => Promise<void>,
): Promise<string[]> {
  const x = new Exchange(server, pod.name, pod.ip);
  try {
    await run(x);
  } finally {
    x.close();
  }
  return x.transcript.lines;
}

/** Both transcripts of one script. */
async function both(pod: Pod, run: (x: Exchange) => Promise<void>) {
  const [istiod, mock] = await Promise.all([
    transcript(servers.istiod, pod, run),
    transcript(servers.mock, pod, run),
  ]);
  return { istiod, mock };
}

describe('delta with deltaResourceVersions', () => {
  it('every resource carries a version, where istiod sends none', async () => {
    const { istiod, mock } = await both(pods[0]!, async (x) => {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
    });
    expect(istiod[1]).toContain(' unversioned ');
    expect(mock).toEqual(istiod.map((line) => line.replace(' unversioned ', ' versioned ')));
  });

  it('a reconnect listing what it has is sent nothing again, where istiod sends everything', async () => {
    const pod = pods[1]!;
    // What the proxy has: the mock's own versions, from an earlier stream.
    const client = new AdsTestClient(servers.mock.xds);
    const node = new Exchange(servers.mock, pod.name, pod.ip).node();
    let have: Record<string, string>;
    try {
      const earlier = client.delta();
      earlier.send({ node, type_url: CLUSTER_TYPE });
      const first = await earlier.nextDelta();
      have = Object.fromEntries(first.resources.map((r) => [r.name, r.version]));
    } finally {
      client.close();
    }
    const { istiod, mock } = await both(pod, async (x) => {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, initial_resource_versions: have });
      await s.read();
    });
    expect(istiod[1]).toMatch(/resources \[.+\] unversioned removed \[\]/);
    expect(mock).toEqual([
      istiod[0],
      istiod[1]!.replace(/resources \[.+\] unversioned/, 'resources []'),
    ]);
  });
});
