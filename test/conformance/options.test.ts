/**
 * The mock's named options that leave istiod's behaviour on purpose (docs/conformance.md): each
 * case runs against both servers, like the differential suite, and asserts the one difference
 * its option makes; everything else in the transcript still matches istiod's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLUSTER_TYPE, SYNCZ_DEBUG_TYPE } from '../../src/xds/type-urls.js';
import type { ConformanceCase } from './support/case.js';
import { runOn } from './support/run.js';
import { casePod, startServers, type Servers } from './support/servers.js';

let servers: Servers;
const pods = [casePod(1), casePod(2)];

beforeAll(async () => {
  servers = await startServers(pods, { debugAuth: false, ambient: true });
}, 60_000);
afterAll(async () => {
  await servers?.close();
});

async function both(c: ConformanceCase, n: number): Promise<{ istiod: string[]; mock: string[] }> {
  const pod = pods[n]!;
  const [istiod, mock] = await Promise.all([
    runOn(c, servers.istiod, pod),
    runOn(c, servers.mock, pod),
  ]);
  return { istiod, mock };
}

const plaintextSyncz: ConformanceCase = {
  rule: 'Options',
  title: 'debugAuth: false answers syncz on a plaintext stream',
  async run(x) {
    const s = x.sotw();
    s.send({ node: x.node(), type_url: SYNCZ_DEBUG_TYPE });
    await s.read();
    await s.end(300);
  },
};

const ztunnel: ConformanceCase = {
  rule: 'Options',
  title: 'ambient: true serves a ztunnel node',
  async run(x) {
    const s = x.sotw();
    s.send({ node: x.node({ type: 'ztunnel' }), type_url: CLUSTER_TYPE });
    await s.read();
    await s.end(300);
  },
};

it.concurrent(
  'debugAuth: false: the mock answers syncz where istiod ends the stream UNAUTHENTICATED',
  async () => {
    const { istiod, mock } = await both(plaintextSyncz, 0);
    expect(istiod.slice(1)).toEqual([
      '✕ UNAUTHENTICATED "authentication required"',
      '✕ UNAUTHENTICATED "authentication required"',
    ]);
    expect(mock[0]).toBe(istiod[0]);
    expect(mock[1]).toMatch(/^← istio\.io\/debug\/syncz version V1\(push\) nonce version\+uuid/);
    expect(mock[2]).toBe('✕ (stream still open)');
  },
);

it.concurrent(
  'ambient: true: the mock serves a ztunnel node where istiod ends the stream UNKNOWN',
  async () => {
    const { istiod, mock } = await both(ztunnel, 1);
    expect(istiod.slice(1)).toEqual([
      '✕ UNKNOWN "ztunnel requires PILOT_ENABLE_AMBIENT=true"',
      '✕ UNKNOWN "ztunnel requires PILOT_ENABLE_AMBIENT=true"',
    ]);
    expect(mock[1]).toMatch(/^← CDS version V1\(push\)/);
    expect(mock[2]).toBe('✕ (stream still open)');
  },
);
