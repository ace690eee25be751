/**
 * `omitMissingResources` (off by default): the mock's way before it followed istiod with
 * names that have no resource. istiod answers each such EDS or RDS name with an empty
 * resource of that name ("SotW: names that do not exist"); with the option, the mock leaves
 * them out, so that what named them (a cluster, a listener) warms until one is served. Each
 * case runs as in the suite, and the mock's transcript must differ from istiod's exactly so.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { missingNames } from './cases/sotw-names.js';
import type { ConformanceCase } from './support/case.js';
import { runOn } from './support/run.js';
import { casePod, startServers, type Servers } from './support/servers.js';
import { NOWHERE, ORDERS } from './support/sotw-steps.js';

const pods = [casePod(1), casePod(2)];
let servers: Servers | undefined;
beforeAll(async () => {
  servers = await startServers(pods, { omitMissingResources: true });
}, 60_000);
afterAll(async () => {
  await servers?.close();
});

function named(title: string): ConformanceCase {
  const found = missingNames.find((c) => c.title.startsWith(title));
  if (!found) throw new Error(`no case "${title}" in sotw-names.ts`);
  return found;
}

/** Both transcripts of a case, and istiod's with these names left out of every response. */
async function run(c: ConformanceCase, pod: number, missing: readonly string[]) {
  if (!servers) throw new Error('the servers did not start');
  const [istiod, mock] = await Promise.all([
    runOn(c, servers.istiod, pods[pod]!),
    runOn(c, servers.mock, pods[pod]!),
  ]);
  const omitted = istiod.map((line) =>
    line.startsWith('←')
      ? line.replace(/resources \[([^\]]*)\]/, (_all, list: string) => {
          const kept = list.split(', ').filter((n) => n !== '' && !missing.includes(n));
          return `resources [${kept.join(', ')}]`;
        })
      : line,
  );
  return { istiod, mock, omitted };
}

it('omitMissingResources: an unknown EDS name gets nothing (istiod: an empty ClusterLoadAssignment)', async () => {
  const { istiod, mock, omitted } = await run(named('EDS: an unknown name'), 0, [NOWHERE]);
  expect(istiod.some((line) => line.includes(`resources [${NOWHERE}]`))).toBe(true);
  expect(mock).not.toEqual(istiod);
  expect(mock).toEqual(omitted);
});

it('omitMissingResources: known and unknown EDS names: only the known one is sent', async () => {
  const { istiod, mock, omitted } = await run(named('EDS: known and unknown'), 1, [NOWHERE]);
  expect(istiod.some((line) => line.includes(ORDERS) && line.includes(NOWHERE))).toBe(true);
  expect(mock).not.toEqual(istiod);
  expect(mock).toEqual(omitted);
});
