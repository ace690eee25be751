/**
 * Proxyless gRPC: a node whose metadata says `GENERATOR: grpc` is answered by istiod's gRPC
 * generator, which builds only what the client names, LDS and CDS included: a client's
 * `host:port` target (short names resolved, the listener named as asked), a server's
 * `xds.istio.io/grpc/lds/inbound/<ip>:<port>` (only for a port the pod serves), the route
 * configuration and cluster those name. gRPC speaks state of the world, in the order LDS,
 * RDS, CDS, EDS. The mock serves what istiod's generator answered for the suite's names.
 */
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
} from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import type { Exchange, Stream } from '../support/exchange.js';
import { ack, nack, NOWHERE, ORDERS } from '../support/sotw-steps.js';

const TARGET = 'orders.default.svc.cluster.local:8101';
const SHORT = 'orders:8101';
const SERVER = 'xds.istio.io/grpc/lds/inbound/0.0.0.0:8101';
const SERVER_V6 = 'xds.istio.io/grpc/lds/inbound/[::]:8101';
/** A server listener for a port the pod does not serve. */
const SERVER_ELSEWHERE = 'xds.istio.io/grpc/lds/inbound/0.0.0.0:9999';

/** A stream whose first request, from a gRPC node, asks for `names` of `typeUrl`. */
function grpcOpen(x: Exchange, typeUrl: string, names: string[]): Stream {
  const s = x.sotw();
  s.send({
    node: x.node({ metadata: { GENERATOR: 'grpc' } }),
    type_url: typeUrl,
    resource_names: names,
  });
  return s;
}

/** Asks for `names` of `typeUrl` on an open stream and ACKs the answer. */
async function askAndAck(s: Stream, typeUrl: string, names: string[]): Promise<void> {
  s.send({ type_url: typeUrl, resource_names: names });
  ack(s, await s.read(), names);
}

/** What a gRPC client does to dial the target: LDS, RDS, CDS, EDS, each ACKed. */
async function dial(x: Exchange): Promise<Stream> {
  const s = grpcOpen(x, LISTENER_TYPE, [TARGET]);
  ack(s, await s.read(), [TARGET]);
  await askAndAck(s, ROUTE_TYPE, [ORDERS]);
  await askAndAck(s, CLUSTER_TYPE, [ORDERS]);
  await askAndAck(s, ENDPOINT_TYPE, [ORDERS]);
  return s;
}

/** LDS asked for `names` first: what is answered. */
const listenersAsked = (title: string, names: string[]) => ({
  title,
  async run(x: Exchange) {
    const s = grpcOpen(x, LISTENER_TYPE, names);
    await s.read();
  },
});

export const proxylessListeners = cases('Proxyless gRPC: listeners by name', [
  listenersAsked("LDS: a client's target by its FQDN is answered with that listener", [TARGET]),
  listenersAsked('LDS: a short name is resolved, the listener named as asked', [SHORT]),
  listenersAsked('LDS: two names of one service are answered with a listener each', [
    TARGET,
    SHORT,
  ]),
  listenersAsked('LDS: a name of no service is answered with no listener', ['nowhere:1']),
  listenersAsked('LDS: known and unknown names: only the known one', [TARGET, 'nowhere:1']),
  listenersAsked("LDS: a server's inbound listener for a port the pod serves", [SERVER]),
  listenersAsked('LDS: the inbound listener on IPv6', [SERVER_V6]),
  listenersAsked('LDS: no inbound listener for a port the pod does not serve', [SERVER_ELSEWHERE]),
  listenersAsked('LDS: an inbound name that is no address is answered with nothing', [
    'xds.istio.io/grpc/lds/inbound/garbage',
  ]),
  listenersAsked('LDS: a client and a server listener together', [TARGET, SERVER]),
  {
    title: 'LDS: a first request with no names is answered with no listener',
    async run(x) {
      const s = grpcOpen(x, LISTENER_TYPE, []);
      await s.read();
    },
  },
]);

export const proxylessChanges = cases('Proxyless gRPC: names added and removed', [
  {
    title: 'LDS: a name added on the ACK is answered with both',
    async run(x) {
      const s = grpcOpen(x, LISTENER_TYPE, [TARGET]);
      ack(s, await s.read(), [TARGET, SERVER]);
      await s.read();
    },
  },
  {
    title: 'LDS: a name removed on the ACK is not answered',
    async run(x) {
      const s = grpcOpen(x, LISTENER_TYPE, [TARGET, SERVER]);
      ack(s, await s.read(), [TARGET]);
      await s.silent();
    },
  },
  {
    title: 'CDS: a name added on the ACK is answered with both known names',
    async run(x) {
      const s = grpcOpen(x, CLUSTER_TYPE, [ORDERS]);
      ack(s, await s.read(), [ORDERS, NOWHERE]);
      await s.read();
    },
  },
  {
    title: 'a NACK of LDS is not answered; the next request is',
    async run(x) {
      const s = grpcOpen(x, LISTENER_TYPE, [TARGET]);
      const r = await s.read();
      nack(s, r, { names: [TARGET], message: 'bad listener' });
      await s.silent();
      ack(s, r, [TARGET, SERVER]);
      await s.read();
    },
  },
]);

export const proxylessTypes = cases('Proxyless gRPC: routes, clusters and endpoints by name', [
  {
    title: 'RDS: the route configuration a client listener names',
    async run(x) {
      const s = grpcOpen(x, ROUTE_TYPE, [ORDERS]);
      await s.read();
    },
  },
  {
    title: 'RDS: a route configuration of no service is answered with nothing',
    async run(x) {
      const s = grpcOpen(x, ROUTE_TYPE, [NOWHERE]);
      await s.read();
    },
  },
  {
    title: 'CDS: a cluster of no service is answered with nothing',
    async run(x) {
      const s = grpcOpen(x, CLUSTER_TYPE, [NOWHERE]);
      await s.read();
    },
  },
  {
    title: 'CDS: a subset with no DestinationRule is answered with nothing',
    async run(x) {
      const s = grpcOpen(x, CLUSTER_TYPE, ['outbound|8101|v1|orders.default.svc.cluster.local']);
      await s.read();
    },
  },
  {
    title: 'EDS: the endpoints of the cluster, by name',
    async run(x) {
      const s = grpcOpen(x, ENDPOINT_TYPE, [ORDERS]);
      await s.read();
    },
  },
  {
    title: "a client's whole dial: LDS, RDS, CDS, EDS, each ACKed, then nothing more",
    async run(x) {
      const s = await dial(x);
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a second stream of the same client (grpc-go opens several) dials the same way',
    async run(x) {
      await dial(x);
      const again = await dial(x);
      await again.silent();
    },
  },
]);

export const proxylessPushes = cases('Proxyless gRPC: pushes', [
  {
    title: "a push re-sends every type of a client's dial, at one new version",
    alone: true,
    async run(x) {
      const s = await dial(x);
      await s.silent();
      await x.push();
      for (let i = 0; i < 4; i++) await s.read();
      await s.silent();
    },
  },
]);

export default [...proxylessListeners, ...proxylessChanges, ...proxylessTypes, ...proxylessPushes];
