/**
 * The push path without gRPC: N real SotW streams on fake calls, wired as the mock wires
 * them (journal, metrics, sent resources, collision warnings, withhold switch and fault
 * engine), each subscribed to CDS and LDS; then the time of the synchronous pass that a
 * change makes over every stream, per stream. Shows what the stream code costs apart from
 * grpc-js and Node's HTTP/2 (docs/BENCHMARKS.md).
 *
 *   npx tsx bench/micro/push-path.ts [streams=1000] [bare]   (bare: no event listeners)
 */
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { SentResources } from '../../src/journal/sent-resources.js';
import { FaultEngine } from '../../src/faults/engine.js';
import type { FaultHost } from '../../src/faults/model.js';
import { attachJournal, Journal } from '../../src/journal/journal.js';
import { createXdsMetrics } from '../../src/metrics/metrics.js';
import type { ProxyIdentity } from '../../src/core/identity.js';
import type { AdsStream, StreamContext } from '../../src/server/ads-stream.js';
import type { AdsCall } from '../../src/server/ads-service.js';
import { attachCollisionWarnings } from '../../src/app/collisions.js';
import { ServerEventEmitter } from '../../src/core/events.js';
import { combinePolicies, createWithholdSwitch } from '../../src/core/policy.js';
import { SotwStream } from '../../src/server/sotw-stream.js';
import { createSnapshotStore } from '../../src/snapshot/store.js';
import { validateSets } from '../../src/snapshot/validated-set.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { decodeDiscoveryResponse, encodeDiscoveryRequest } from '../../src/xds/wire.js';
import { changeOneCluster, makeBenchResources } from '../lib/resource-set.js';
import { median } from '../lib/stats.js';

/** Just enough of a grpc-js call: the stream reads `data`, writes, and asks for the peer. */
class FakeCall extends EventEmitter {
  last: Buffer | undefined;
  getPeer(): string {
    return 'ipv4:127.0.0.1:1';
  }
  write(message: Buffer): boolean {
    this.last = message;
    return true;
  }
  end(): void {}
}

const streamCount = Number(process.argv[2] ?? 1000);
const withListeners = process.argv[3] !== 'bare';
const log = pino({ level: 'warn' });
let resources = makeBenchResources({ clusters: 2 });
const validated = validateSets([{ name: 'default', resources }]);
if (!validated.ok) throw new Error(validated.problems.map((p) => p.message).join('; '));
const store = createSnapshotStore(validated.value, {});
const events = new ServerEventEmitter();
const streams = new Map<string, AdsStream>();
if (withListeners) {
  attachJournal(new Journal(), events);
  createXdsMetrics(events, {
    streams: () => [...streams.values()].flatMap((s) => s.view() ?? []),
    withheld: false,
  });
  new SentResources(events);
  attachCollisionWarnings(events, log);
}
// No fault is applied here: the engine only listens to the events, as in the mock.
const host: FaultHost = {
  events,
  openStreams: () => [...streams.values()].flatMap((s) => s.view() ?? []),
  resend: () => 0,
  resync: () => undefined,
  disconnect: () => 0,
  down: () => Promise.resolve(),
  up: () => Promise.resolve(),
  serving: true,
};
let counter = 0;
const ctx: StreamContext = {
  snapshotFor: (proxy: ProxyIdentity) => store.snapshotFor(proxy),
  policy: combinePolicies(
    createWithholdSwitch(false),
    new FaultEngine({ host, logger: log, controlPlaneId: 'mock-istiod' }),
  ),
  controlPlaneId: 'mock-istiod',
  events,
  log,
  connectionId: (id) => `${id}-${++counter}`,
  register: (s) => streams.set(s.connectionId, s),
  unregister: (s) => streams.delete(s.connectionId),
};

const send = (call: FakeCall, request: Parameters<typeof encodeDiscoveryRequest>[0]) =>
  call.emit('data', Buffer.from(encodeDiscoveryRequest(request)));
const ack = (call: FakeCall) => {
  const response = decodeDiscoveryResponse(call.last as Buffer);
  send(call, {
    type_url: response.type_url,
    version_info: response.version_info,
    response_nonce: response.nonce,
  });
};
const nextTick = () => new Promise((resolve) => setImmediate(resolve));

const calls = Array.from({ length: streamCount }, (_, i) => {
  const call = new FakeCall();
  new SotwStream(call as unknown as AdsCall, ctx);
  const id = `sidecar~10.0.${i >> 8}.${i & 255}~pod-${i}.bench~bench.svc.cluster.local`;
  send(call, {
    type_url: CLUSTER_TYPE,
    node: {
      id,
      cluster: 'bench.bench',
      metadata: { CLUSTER_ID: 'Kubernetes' },
      user_agent_name: 'envoy',
      user_agent_version: '',
    },
  });
  return call;
});
await nextTick();
for (const call of calls) {
  ack(call);
  send(call, { type_url: LISTENER_TYPE });
}
await nextTick();
for (const call of calls) ack(call);

const passes: number[] = [];
for (let push = 1; push <= 30; push++) {
  resources = changeOneCluster(resources, push);
  const result = store.set(resources);
  if (!result.ok) throw new Error('the changed set was rejected');
  const started = performance.now();
  for (const stream of streams.values()) stream.onSnapshot();
  passes.push(performance.now() - started);
  await nextTick();
  for (const call of calls) ack(call);
  await nextTick();
}
// The first pushes run before V8 has optimized the path: leave them out.
const ms = median(passes.slice(10));
process.stdout.write(
  `${streamCount} streams, ${withListeners ? 'with' : 'without'} event listeners: ` +
    `push pass ${ms.toFixed(2)} ms, ${((ms * 1000) / streamCount).toFixed(2)} µs per stream\n`,
);
