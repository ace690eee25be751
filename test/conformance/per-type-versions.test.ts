/**
 * The mock with `versioning: 'per-type'` (its former scheme, off by default): where it
 * differs from istiod on purpose. A push keeps each unchanged type at its version, and a
 * delta stream is sent only what changed, so istiod's full push of unchanged resources is
 * not there. Each test runs a "Pushes" case against both servers and asserts the difference.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConformanceCase } from './support/case.js';
import { Exchange, type ServerUnderTest } from './support/exchange.js';
import { casePod, startServers, type Pod, type Servers } from './support/servers.js';
import pushes from './cases/versions-pushes.js';

const pods = [casePod(1), casePod(2)];
let servers: Servers;

beforeAll(async () => {
  servers = await startServers(pods, { versioning: 'per-type' });
}, 60_000);
afterAll(async () => {
  await servers?.close();
});

function pushCase(title: string): ConformanceCase {
  const found = pushes.find((c) => c.title === title);
  if (!found) throw new Error(`no "Pushes" case titled ${JSON.stringify(title)}`);
  return found;
}

async function run(c: ConformanceCase, server: ServerUnderTest, pod: Pod): Promise<string[]> {
  const x = new Exchange(server, pod.name, pod.ip);
  try {
    await c.run(x);
  } finally {
    x.close();
  }
  return x.transcript.lines;
}

/** The lines a transcript has after its first push. */
function afterPush(lines: readonly string[]): string[] {
  return lines.slice(lines.indexOf('⟳ push') + 1);
}

async function both(c: ConformanceCase, pod: Pod): Promise<{ istiod: string[]; mock: string[] }> {
  const [istiod, mock] = await Promise.all([
    run(c, servers.istiod, pod),
    run(c, servers.mock, pod),
  ]);
  return { istiod, mock };
}

it("per-type: a push re-sends CDS and LDS at the versions they had, not at istiod's new one", async () => {
  const c = pushCase('a push re-sends CDS and LDS, unchanged, both at one new version');
  const { istiod, mock } = await both(c, pods[0] as Pod);
  const pushed = (lines: string[]) => afterPush(lines).filter((l) => l.startsWith('← '));
  expect(
    pushed(istiod)
      .slice(0, 2)
      .every((l) => l.includes(' version V2(push) ')),
  ).toBe(true);
  expect(
    pushed(mock)
      .slice(0, 2)
      .every((l) => l.includes(' version V1(push) ')),
  ).toBe(true);
});

it('per-type: a delta stream is sent nothing on a push that changed nothing', async () => {
  const c = pushCase('delta: a push after CDS only re-sends CDS, every cluster, nothing removed');
  const { istiod, mock } = await both(c, pods[1] as Pod);
  expect(afterPush(istiod)[0]).toMatch(/^← Δ CDS system_version V2\(push\) /);
  expect(afterPush(mock)).toEqual(['← (silent)', '← (silent)']);
});
