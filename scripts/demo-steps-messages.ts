/**
 * What the classroom demo says in steps (a)–(e), in English and in Korean: the sentences and
 * the "what to look at" lines. The evidence itself (commands, stats, Envoy's and
 * pilot-agent's texts) is printed as those programs print it, in both languages.
 */
import { defineCatalogue } from '../src/util/catalogue.js';

export const STEPS_TEXT = defineCatalogue(
  {
    withheld: 'Envoy opened its ADS stream to the mock, which accepts it and answers nothing.',
    lookWithheld: (v: { readiness: number; ready: number }) =>
      'connected_state 1 with zero CDS updates: connected but withheld, not unreachable. ' +
      `Envoy is PRE_INITIALIZING, so its listeners (:${v.readiness} included) refuse connections: ` +
      `the kubelet's probe fails and the pod shows READY ${v.ready}/2.`,
    released: 'The mock now answers: CDS, then LDS.',
    lookReleased: 'LIVE, workers started, the readiness probe passes through Envoy: READY 2/2.',
    down: 'istiod goes away (its port closes).',
    lookDown:
      'connected_state 0, but Envoy keeps its last config: traffic still flows, and the pod stays ' +
      'READY 2/2 (pilot-agent cached "ready" the first time it saw it).',
    up: 'istiod comes back on the same port; Envoy reconnects on its own.',
    rejectedPush: (v: { cluster: string }) =>
      `A push whose virtualInbound routes to ${v.cluster}, a cluster Envoy does not have.`,
    lookRejected:
      'update_rejected 1: Envoy NACKed the push and kept the config it had; traffic is unchanged.',
    fixPushed: 'The fix is pushed; Envoy accepts it.',
    unknownCluster: (v: { file: string }) =>
      `${v.file}: ADS names 'xds-grpc-typo', the static cluster is 'xds-grpc'.`,
    lookUnknownCluster:
      'Envoy refuses the bootstrap before starting: in a pod the sidecar would exit at once and ' +
      'restart (CrashLoopBackOff). validate catches it before you deploy.',
  },
  {
    withheld:
      'Envoy 가 mock 으로 ADS 스트림을 열었다. mock 은 스트림을 받아 주기만 하고 아무것도 답하지 않는다.',
    lookWithheld: (v) =>
      'connected_state 는 1 인데 CDS 업데이트는 0 이다. istiod 에 닿지 못한 것이 아니라, 닿았는데 ' +
      `답을 못 받은 것이다. Envoy 가 PRE_INITIALIZING 에 머물러 리스너(:${v.readiness} 포함)가 ` +
      `연결을 받지 않으니, kubelet 의 프로브가 실패하고 파드는 READY ${v.ready}/2 로 보인다.`,
    released: '이제 mock 이 답한다. CDS 를 먼저, 그다음 LDS 를 보낸다.',
    lookReleased: 'LIVE 가 되고 워커가 떴다. 준비 프로브가 Envoy 를 거쳐 통과하니 READY 2/2 다.',
    down: 'istiod 가 내려간다(포트가 닫힌다).',
    lookDown:
      'connected_state 는 0 이 됐지만 Envoy 는 마지막으로 받은 설정을 그대로 쥐고 있다. 트래픽은 ' +
      '계속 흐르고 파드도 READY 2/2 그대로다(pilot-agent 는 한 번 본 "ready" 를 기억해 둔다).',
    up: 'istiod 가 같은 포트로 돌아온다. Envoy 는 알아서 다시 붙는다.',
    rejectedPush: (v) =>
      `virtualInbound 가 ${v.cluster} 로 가도록 바꾼 설정을 밀어 넣는다. Envoy 에게는 없는 클러스터다.`,
    lookRejected:
      'update_rejected 가 1 이다. Envoy 는 이 설정을 NACK 으로 거절하고 갖고 있던 설정을 지켰다. ' +
      '트래픽은 그대로다.',
    fixPushed: '고친 설정을 밀어 넣자 Envoy 가 받아들인다.',
    unknownCluster: (v) =>
      `${v.file}: ADS 는 'xds-grpc-typo' 를 가리키는데 정적 클러스터 이름은 'xds-grpc' 다.`,
    lookUnknownCluster:
      'Envoy 는 뜨기도 전에 이 부트스트랩을 거절한다. 파드였다면 사이드카가 곧바로 죽고 다시 뜨기를 ' +
      '되풀이한다(CrashLoopBackOff). --mode validate 로 배포 전에 걸러진다.',
  },
);
