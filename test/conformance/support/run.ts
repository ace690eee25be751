/**
 * Runs conformance cases as vitest tests: each case against both servers at once, its two
 * transcripts attached to the test (the table reporter prints them), and the mock's expected
 * to equal istiod's line for line.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MockIstiodOptions } from '../../../src/app/options.js';
import type { ConformanceCase } from './case.js';
import { Exchange, type ServerUnderTest } from './exchange.js';
import { casePod, startServers, type Pod, type Servers } from './servers.js';

export interface ConformanceRow {
  rule: string;
  title: string;
  istiod: string[];
  mock: string[];
  agree: boolean;
}

declare module 'vitest' {
  interface TaskMeta {
    conformance?: ConformanceRow;
  }
}

/** One case against one server: its transcript (a case that throws says so in it). */
export async function runOn(
  c: ConformanceCase,
  server: ServerUnderTest,
  pod: Pod,
): Promise<string[]> {
  const x = new Exchange(server, pod.name, pod.ip);
  try {
    await c.run(x);
  } catch (err) {
    x.transcript.add(`!! the case failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    x.close();
  }
  return x.transcript.lines;
}

/**
 * Declares one test per case. Cases run concurrently (each with its own pod name) unless a
 * case runs `alone`; give those their own file.
 */
export function conformanceSuite(
  list: readonly ConformanceCase[],
  options: { mock?: Partial<MockIstiodOptions>; concurrent?: boolean } = {},
): void {
  let servers: Servers;
  const pods = list.map((_c, i) => casePod(i + 1));
  beforeAll(async () => {
    servers = await startServers(pods, options.mock);
  }, 60_000);
  afterAll(async () => {
    await servers?.close();
  });
  const declare = options.concurrent === false ? it : it.concurrent;
  list.forEach((c, i) => {
    const pod = pods[i]!;
    declare(`${c.rule}: ${c.title}`, async ({ task }) => {
      const [istiod, mock] = await Promise.all([
        runOn(c, servers.istiod, pod),
        runOn(c, servers.mock, pod),
      ]);
      const agree = JSON.stringify(istiod) === JSON.stringify(mock);
      task.meta.conformance = { rule: c.rule, title: c.title, istiod, mock, agree };
      expect(mock, "the mock's transcript (left: istiod's)").toEqual(istiod);
    });
  });
}
