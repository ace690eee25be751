/**
 * Pushes: a full push (a config change) gives every type one new push version, and re-sends
 * every type a stream watches, in istiod's push order (CDS, EDS, LDS, RDS), changed or not.
 * These cases push, which reaches every stream: they run alone (pushes.test.ts).
 */
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import { deltaAcked, deltaAll, sotwAcked, sotwAll } from './versions-shared.js';

export default cases('Pushes', [
  {
    title: 'a push re-sends CDS and LDS, unchanged, both at one new version',
    alone: true,
    async run(x) {
      const s = x.sotw();
      await sotwAcked(s, { node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await sotwAcked(s, { type_url: LISTENER_TYPE, resource_names: [] });
      await s.silent();
      await x.push();
      await s.read();
      await s.read();
      await s.silent();
    },
  },
  {
    title: 'a push re-sends every watched type in the order CDS, EDS, LDS, RDS',
    alone: true,
    async run(x) {
      const s = x.sotw();
      await sotwAll(x, s);
      await s.silent();
      await x.push();
      for (let i = 0; i < 4; i++) await s.read();
      await s.silent();
    },
  },
  {
    title: 'delta: a push re-sends every resource of every watched type, at one new version',
    alone: true,
    async run(x) {
      const s = x.delta();
      await deltaAll(x, s);
      await s.silent();
      await x.push();
      for (let i = 0; i < 4; i++) await s.read();
      await s.silent();
    },
  },
  {
    title: 'a stream opened after a push is answered with the new version',
    alone: true,
    async run(x) {
      const a = x.sotw();
      await sotwAcked(a, { node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await x.push();
      await a.read();
      const b = x.sotw();
      await sotwAcked(b, { node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await sotwAcked(b, { type_url: LISTENER_TYPE, resource_names: [] });
    },
  },
  {
    title: 'two pushes give two new versions, each shared by the types re-sent',
    alone: true,
    async run(x) {
      const s = x.sotw();
      await sotwAcked(s, { node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await sotwAcked(s, { type_url: LISTENER_TYPE, resource_names: [] });
      await x.push();
      const c = await s.read();
      const l = await s.read();
      s.send({
        type_url: CLUSTER_TYPE,
        resource_names: [],
        version_info: c.version,
        response_nonce: c.nonce,
      });
      s.send({
        type_url: LISTENER_TYPE,
        resource_names: [],
        version_info: l.version,
        response_nonce: l.nonce,
      });
      await x.push();
      await s.read();
      await s.read();
      await s.silent();
    },
  },
  {
    title: 'a push re-sends a type the proxy has not ACKed yet',
    alone: true,
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
      await x.push();
      await s.read();
      await s.silent();
    },
  },
  {
    title: 'a push re-sends a type the proxy NACKed',
    alone: true,
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      const r = await s.read();
      s.send({
        type_url: CLUSTER_TYPE,
        resource_names: [],
        version_info: '',
        response_nonce: r.nonce,
        error_detail: { code: 13, message: 'probe rejects this' },
      });
      await s.silent();
      await x.push();
      await s.read();
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'delta: a push after CDS only re-sends CDS, every cluster, nothing removed',
    alone: true,
    async run(x) {
      const s = x.delta();
      await deltaAcked(s, { node: x.node(), type_url: CLUSTER_TYPE });
      await x.push();
      await s.read();
      await s.silent();
    },
  },
  {
    title: 'the ACK of a pushed version is not answered, and syncz shows it acknowledged',
    alone: true,
    async run(x) {
      const s = x.sotw();
      await sotwAcked(s, { node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await x.push();
      const r = await s.read();
      s.send({
        type_url: CLUSTER_TYPE,
        resource_names: [],
        version_info: r.version,
        response_nonce: r.nonce,
      });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a SotW and a delta stream of one proxy are both pushed the one new version',
    alone: true,
    async run(x) {
      const s = x.sotw();
      await sotwAcked(s, { node: x.node(), type_url: LISTENER_TYPE, resource_names: [] });
      const d = x.delta();
      await deltaAcked(d, { node: x.node(), type_url: CLUSTER_TYPE });
      await x.push();
      await s.read();
      await d.read();
    },
  },
]);
