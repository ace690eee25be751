/** The node of a stream's first request: probes before it, node types, typed metadata. */
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';

/** What pilot-agent sends to report the application's health (istiod's HealthInfoType). */
export const HEALTH_INFO_TYPE = 'type.googleapis.com/istio.v1.HealthInformation';

export default cases('The node', [
  {
    title: 'a HealthInformation probe as the first request is skipped, node and all',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: HEALTH_INFO_TYPE });
      await s.silent();
      s.send({ type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a HealthInformation probe before the first request is skipped: the node comes next',
    async run(x) {
      const s = x.sotw();
      s.send({ type_url: HEALTH_INFO_TYPE });
      await s.silent();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
    },
  },
  {
    title: 'delta: a HealthInformation probe as the first request is skipped, node and all',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: HEALTH_INFO_TYPE });
      await s.silent();
      s.send({ type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a request after a probe still needs the node: INVALID_ARGUMENT',
    async run(x) {
      const s = x.sotw();
      s.send({ type_url: HEALTH_INFO_TYPE });
      s.send({ type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a waypoint node is accepted',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node({ type: 'waypoint' }), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end(300);
    },
  },
  {
    title: 'a ztunnel node ends the stream: UNKNOWN, ambient is off',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node({ type: 'ztunnel' }), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'delta: an unknown node type ends the stream',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node({ type: 'gateway' }), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'an INSTANCE_IPS that is not a list of IPs falls back to the id IP',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node({ metadata: { INSTANCE_IPS: 'not-an-ip' } }), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end(300);
    },
  },
  {
    title: 'metadata of the wrong type (NAMESPACE a number) ends the stream: INVALID_ARGUMENT',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node({ metadata: { NAMESPACE: 7 } }), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a PROXY_CONFIG that is not an object ends the stream: INVALID_ARGUMENT',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node({ metadata: { PROXY_CONFIG: 'yes' } }), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'LABELS that are not a map of strings end the stream: INVALID_ARGUMENT',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node({ metadata: { LABELS: { app: 3 } } }), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a proxy without PROXY_CONFIG is served but not listed in syncz',
    async run(x) {
      const s = x.sotw();
      const { metadata, ...node } = x.node();
      const rest = { ...metadata };
      delete rest['PROXY_CONFIG'];
      s.send({ node: { ...node, metadata: rest }, type_url: CLUSTER_TYPE });
      await s.read();
      await x.syncz();
    },
  },
]);
