/**
 * What the classroom demo says in step (f), the seed's third field symptom (two clusters that
 * share a CLUSTER_ID get each other's configuration), in English and in Korean.
 */
import { defineCatalogue } from '../src/util/catalogue.js';

export const CLUSTERS_TEXT = defineCatalogue(
  {
    setup: (v: { east: number; west: number }) =>
      'Two clusters, east and west, each run the pod frontend-v1-0 (namespace default) and an ' +
      `orders service: east's orders answers on :${v.east}, west's on :${v.west}.`,
    sameKey:
      'Neither cluster was given a name: both sidecars start without ISTIO_META_CLUSTER_ID, so ' +
      "both say CLUSTER_ID Kubernetes, and the mock files both clusters' configuration under that " +
      "one key (resource sets selected by CLUSTER_ID; west's came first).",
    started: 'Both sidecars are LIVE. The proxies as the mock sees them:',
    through: (v: { cluster: string; port: number }) =>
      `${v.cluster}'s frontend calls orders through its sidecar (virtualOutbound, bound at :${v.port}):`,
    lookMixed: (v: { west: number }) =>
      `east's request was answered by west's orders (ok:${v.west}): both proxies give the same key, ` +
      "so the mock serves both from the first set that matches, west's, and warned as the second " +
      'stream opened. The labels are the keys that select config.',
    fix:
      'The fix: give each cluster its own name. The sidecars restart with ' +
      "ISTIO_META_CLUSTER_ID=east and =west, and the mock files each cluster's configuration under " +
      'that name.',
    lookSeparated: (v: { east: number }) =>
      `Each frontend now reaches the orders of its own cluster (east: ok:${v.east}), and the mock ` +
      'has nothing to warn about.',
  },
  {
    setup: (v) =>
      'east 와 west 두 클러스터에 같은 파드 frontend-v1-0(네임스페이스 default)과 orders 서비스가 ' +
      `하나씩 떠 있다. east 의 orders 는 :${v.east}, west 의 orders 는 :${v.west} 에서 답한다.`,
    sameKey:
      '두 클러스터 모두 이름을 정하지 않고 설치했다. 두 사이드카는 ISTIO_META_CLUSTER_ID 없이 떠서 ' +
      '똑같이 CLUSTER_ID Kubernetes 를 내밀고, mock 은 두 클러스터의 설정을 그 열쇠 하나에 걸어 ' +
      '둔다(CLUSTER_ID 로 고르는 리소스 세트, west 의 것이 먼저다).',
    started: '두 사이드카 모두 LIVE 다. mock 이 보는 프록시들:',
    through: (v) =>
      `${v.cluster} 의 frontend 가 자기 사이드카(virtualOutbound, :${v.port})를 거쳐 orders 를 부른다:`,
    lookMixed: (v) =>
      `east 의 요청에 west 의 orders 가 답했다(ok:${v.west}). 두 프록시가 같은 열쇠를 내미니 mock 은 ` +
      '먼저 맞는 세트, 곧 west 의 설정을 둘 모두에게 주고, 두 번째 스트림이 열릴 때 경고를 남겼다. ' +
      '이름표는 설정을 고르는 열쇠다.',
    fix:
      '고치는 법은 클러스터마다 제 이름을 주는 것이다. 사이드카를 ISTIO_META_CLUSTER_ID=east, =west ' +
      '로 다시 띄우고, mock 도 각 클러스터의 설정을 그 이름 밑에 둔다.',
    lookSeparated: (v) =>
      `이제 frontend 마다 제 클러스터의 orders 에 닿고(east: ok:${v.east}), mock 도 더는 경고하지 않는다.`,
  },
);
