import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, freePorts } from '../../src/util/ports.js';

const low = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

describe('freePort', () => {
  it('chooses below the range the OS hands port-0 binds from, so a parallel test cannot take it', async () => {
    const ports = await freePorts(20);
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(low);
    }
  });

  it('gives a port that can be bound', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });

  it('never hands out the same port twice while it may still be unbound (a lab port, then a sidecar port)', async () => {
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const port = await freePort();
      expect(seen.has(port)).toBe(false);
      seen.add(port);
    }
  });
});
