/**
 * Free ports for tests, where a port must be written into config before its listener exists
 * (Envoy's listeners come over LDS seconds later). Between the check and the bind, another
 * process could take the port. The likeliest taker is any process binding port 0 (every
 * Envoy admin API and upstream in a parallel test run), to which the OS hands out ports from
 * its ephemeral range; so a port is chosen below that range, at random, and checked free.
 * Where the range cannot be read (not Linux), the OS chooses, as before.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port chosen: above the well-known ones and istiod's and Envoy's 150xx. */
const LOWEST = 20_000;
const TRIES = 50;

/** The range Linux hands port-0 binds from (`ip_local_port_range`), if it can be read. */
function ephemeralLow(): number | undefined {
  try {
    const text = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
    const low = Number(text.trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

const below = ephemeralLow();

/** Binds `port` (0: any) on `host` and lets it go: the port bound, or undefined if taken. */
function probe(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err),
    );
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * The ports this process handed out lately. A port is free until whoever asked binds it,
 * which for a listener Envoy gets over LDS is seconds later: in that time the same process
 * (a lab's inbound port, then its sidecar's Prometheus port) must not be handed it again.
 */
const handedOut = new Set<number>();
const REMEMBERED = 4_096;

function handOut(port: number): number {
  handedOut.add(port);
  if (handedOut.size > REMEMBERED) handedOut.delete(handedOut.values().next().value as number);
  return port;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  if (below !== undefined && below - LOWEST >= 1_000) {
    for (let i = 0; i < TRIES; i++) {
      const candidate = LOWEST + Math.floor(Math.random() * (below - LOWEST));
      if (handedOut.has(candidate)) continue;
      const port = await probe(candidate, host);
      if (port !== undefined) return handOut(port);
    }
  }
  for (let i = 0; i < TRIES; i++) {
    const port = await probe(0, host);
    if (port === undefined) break;
    if (!handedOut.has(port)) return handOut(port);
  }
  throw new Error(`no free port on ${host}`);
}

/** Several distinct free ports at once. */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort(host));
  return [...ports];
}
