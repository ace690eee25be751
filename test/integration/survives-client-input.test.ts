/**
 * One client's input cannot end the process: `mock-istiod serve` in a process of its own, a
 * live page open (`GET /ui/events`, which starts the admin polling), and proxies whose node
 * metadata names an admin address that is no URL (`ENVOY_ADMIN_ADDRESS: "a b"`). The process
 * lives through the poll timer's ticks and a page connecting, and keeps serving.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { waitFor } from '../../src/util/wait.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { requestClusters, requestClustersOnce } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { SseReader } from '../support/fixtures/sse.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** Admin addresses a client may write that are not `host:port`. */
const BAD_ADDRESSES = ['a b', 'http://', '[::1', ':::', '%zz', 'x'.repeat(70_000)];

/** A stand-in admin API that only counts the mock's polls (`/server_info` once per poll). */
async function countingAdmin(): Promise<{ server: Server; port: number; polls(): number }> {
  let polls = 0;
  const server = createServer((req, res) => {
    if (req.url === '/server_info') polls++;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, port, polls: () => polls };
}

it('proxies naming an admin address that is no URL leave the process serving, page open', async () => {
  const run = cli.start(['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS]);
  const serving = await waitForServing(run);
  const control = `http://127.0.0.1:${serving.control?.port}`;
  const page = await SseReader.open(`${control}/ui/events`);
  closers.push(() => page.close());
  await page.next('snapshot');

  const client = new AdsTestClient(serving.xds);
  closers.push(() => client.close());
  for (const [i, address] of BAD_ADDRESSES.entries()) {
    const node = sidecarNode(`bad-admin-${i}`);
    const answer = await requestClusters(client.sotw(), {
      node: { ...node, metadata: { ...node.metadata, ENVOY_ADMIN_ADDRESS: address } },
    });
    expect(answer.type_url).toBe(CLUSTER_TYPE);
  }
  // An admin API added by hand: its polls show the poll timer ticking with those proxies on.
  const admin = await countingAdmin();
  closers.push(() => admin.server.close());
  const added = await fetch(`${control}/ui/admins`, {
    method: 'POST',
    body: JSON.stringify({ address: `127.0.0.1:${admin.port}` }),
    headers: { 'content-type': 'application/json' },
  });
  expect(added.status).toBe(201);
  await waitFor(() => admin.polls() >= 3 || undefined, {
    timeoutMs: 10_000,
    description: 'three polls of the admin API added by hand (the poll timer ticking)',
  });
  // A second page: the snapshot it gets on connecting reads every proxy's admin address.
  const second = await SseReader.open(`${control}/ui/events`);
  closers.push(() => second.close());
  const snapshot = await second.next<{ proxies: unknown[] }>('snapshot');
  expect(snapshot.proxies).toHaveLength(BAD_ADDRESSES.length);

  expect(run.child.exitCode).toBeNull();
  expect((await requestClustersOnce(serving.xds)).type_url).toBe(CLUSTER_TYPE);
  expect((await fetch(`${control}/healthz`)).status).toBe(200);
});
