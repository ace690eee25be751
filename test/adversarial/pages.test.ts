/**
 * Live page connections a browser (or anything else) may open: hundreds at once and dropped
 * at once, pages that stop reading while the server has much to tell them, odd query strings
 * and headers on the event stream, and paths that try to leave the page's folder. The page
 * that opens afterwards must get its snapshot. Then the five checks of verify.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { SseReader } from '../support/fixtures/sse.js';
import { CDS, eachLimited, exchange, request } from './support/attack.js';
import { rawRequest, requestText } from './support/raw-http.js';
import { useTarget, type Target } from './support/target.js';
import { verifyTarget } from './support/verify.js';

const attacked = useTarget();
let target: Target;
beforeAll(() => {
  target = attacked();
});

describe('live page connections', () => {
  it('300 pages opened 50 at once, and dropped at once', async () => {
    const pages: SseReader[] = [];
    for (let wave = 0; wave < 6; wave++) {
      const opened = await Promise.all(
        Array.from({ length: 50 }, () => {
          target.inputs += 1;
          return SseReader.open(`${target.controlUrl}/ui/events`);
        }),
      );
      pages.push(...opened);
    }
    await Promise.all(pages.slice(0, 20).map((page) => page.next('snapshot')));
    for (const page of pages) page.close();
    const fresh = await SseReader.open(`${target.controlUrl}/ui/events`);
    try {
      expect(await fresh.next('snapshot')).toBeTruthy();
    } finally {
      fresh.close();
    }
  });

  it('20 pages that stop reading while 300 streams come and go', async () => {
    const frozen = await Promise.all(
      Array.from({ length: 20 }, () => SseReader.open(`${target.controlUrl}/ui/events`)),
    );
    for (const page of frozen) page.pause();
    const client = new AdsTestClient(target.xdsAddress);
    try {
      await eachLimited(
        Array.from({ length: 300 }, (_, i) => i),
        10,
        async (i) => {
          target.inputs += 1;
          const node = sidecarNode(`churn-${i}`, 'adversarial', '127.0.0.1');
          await exchange(client, i % 2 === 0 ? 'sotw' : 'delta', [{ node, type_url: CDS }]);
        },
      );
    } finally {
      client.close();
      for (const page of frozen) page.close();
    }
    const fresh = await SseReader.open(`${target.controlUrl}/ui/events`);
    try {
      expect(await fresh.next('snapshot')).toBeTruthy();
    } finally {
      fresh.close();
    }
  });

  it('odd query strings and headers on the event stream, and paths out of the page folder', async () => {
    const self = new URL(target.controlUrl).host;
    for (const path of [
      `/ui/events?token=${'t'.repeat(100_000)}`,
      `/ui/events?lang=${'x'.repeat(10_000)}`,
      '/ui/events?since=-1&since=99999999999999999999',
      '/ui/../../../../etc/passwd',
      '/ui/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/ui/..%2f..%2f..%2fetc%2fpasswd',
      '/ui/%00',
      `/ui/${'a/'.repeat(5_000)}`,
    ]) {
      target.inputs += 1;
      const answer = await rawRequest(
        target.controlUrl,
        requestText('GET', path, { Host: self, 'Last-Event-ID': 'l'.repeat(8_000) }),
        5_000,
      ).catch(() => ({ status: -1, body: '', head: '' }));
      expect(answer.body, path.slice(0, 40)).not.toContain('root:');
      expect(
        answer.status === -1 || answer.status === 0 || answer.status < 500,
        path.slice(0, 40),
      ).toBe(true);
    }
    const other = await request(`${target.controlUrl}/ui/events`, {
      headers: { Origin: 'https://attacker.example' },
    });
    expect(other.status).toBe(403);
  });

  it('lives, never stalls, stays small, serves the last good set, loses no journal line', async () => {
    await verifyTarget('pages', target);
  });
});
