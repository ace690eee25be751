/**
 * What the relay adds per response, side by side in one run: an upstream mock serving the
 * lab plays istiod; one SotW stream subscribes to it directly and one through a relay
 * (`relay`); each push changes one cluster, and the time from the change to the response on
 * each stream is taken, ACKs sent as a proxy sends them. All in one process, so the CPU per
 * relayed response is that of the rounds through the relay less that of the direct rounds.
 *
 *   npx tsx bench/micro/relay-latency.ts [--pushes 300]
 */
import { parseArgs } from 'node:util';
import { AdsTestClient, type AdsTestStream } from '../../src/testing/ads-client.js';
import { startMockIstiod } from '../../src/testing/start.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';

const { values } = parseArgs({ options: { pushes: { type: 'string', default: '300' } } });
const pushes = Number(values.pushes);
const NODE = { id: 'sidecar~10.0.0.1~app-0.default~default.svc.cluster.local' };

const upstream = await startMockIstiod({ resources: makeLabResources(), versioning: 'per-type' });
const relay = await startMockIstiod({ relay: upstream.xdsAddress });

async function subscribe(client: AdsTestClient): Promise<AdsTestStream> {
  const stream = client.sotw();
  stream.send({ node: NODE, type_url: CLUSTER_TYPE });
  const first = await stream.next();
  stream.send({
    type_url: CLUSTER_TYPE,
    version_info: first.version_info,
    response_nonce: first.nonce,
  });
  return stream;
}

/** One push: a changed cluster; the ms until `stream` has it, ACKed. */
async function push(stream: AdsTestStream, n: number): Promise<number> {
  const extra = {
    '@type': CLUSTER_TYPE,
    name: 'bench',
    type: 'STATIC',
    connect_timeout: `${n + 1}s`,
  };
  const started = performance.now();
  await upstream.control.setResources({ resources: [...makeLabResources(), extra] });
  const response = await stream.next(10_000);
  const ms = performance.now() - started;
  stream.send({
    type_url: CLUSTER_TYPE,
    version_info: response.version_info,
    response_nonce: response.nonce,
  });
  return ms;
}

/**
 * One round: a fresh client, on its own (the other kind of stream is closed), subscribed, then
 * pushed to `pushes` times; its times and the process's CPU over the pushes.
 */
async function round(address: string, from: number) {
  const client = new AdsTestClient(address);
  const stream = await subscribe(client);
  const cpu = process.cpuUsage();
  const times: number[] = [];
  for (let i = 0; i < pushes; i++) times.push(await push(stream, from + i));
  const used = process.cpuUsage(cpu);
  client.close();
  // Until the upstream has let the stream go (through the relay, its own one too).
  while (upstream.streams().length > 0) await new Promise((r) => setTimeout(r, 20));
  return { times, cpuUs: used.user + used.system };
}

const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

const results = { direct: [] as number[], relayed: [] as number[] };
const cpu = { direct: 0, relayed: 0 };
let n = 0;
for (const label of ['direct', 'relayed', 'direct', 'relayed', 'direct', 'relayed'] as const) {
  const { times, cpuUs } = await round(
    label === 'direct' ? upstream.xdsAddress : relay.xdsAddress,
    n,
  );
  n += pushes;
  results[label].push(...times);
  cpu[label] += cpuUs;
}
for (const label of ['direct', 'relayed'] as const) {
  const sorted = results[label].sort((a, b) => a - b);
  const perPush = cpu[label] / sorted.length;
  console.log(
    `${label.padEnd(8)} p50 ${at(sorted, 0.5).toFixed(2)} ms  p99 ${at(sorted, 0.99).toFixed(2)} ms  ` +
      `CPU per push ${perPush.toFixed(0)} µs (the whole process)`,
  );
}
const added = (q: number) =>
  at(
    results.relayed.sort((a, b) => a - b),
    q,
  ) -
  at(
    results.direct.sort((a, b) => a - b),
    q,
  );
console.log(
  `the relay adds p50 ${added(0.5).toFixed(2)} ms, p99 ${added(0.99).toFixed(2)} ms, and ` +
    `${((cpu.relayed - cpu.direct) / results.relayed.length).toFixed(0)} µs of CPU per relayed response`,
);
await relay.close();
await upstream.close();
