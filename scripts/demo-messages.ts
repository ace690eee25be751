/**
 * What the classroom demo says around its steps (the opening lines, the step titles, the
 * closing lines), in English and in Korean (`npm run demo -- --lang ko`). The Korean follows
 * the course's own words (사이드카, 부트스트랩, 파드, 관리 포트…) and its tone. Commands, their
 * output, and the texts of Envoy, pilot-agent and Kubernetes stay as those programs print them.
 */
import { defineCatalogue } from '../src/util/catalogue.js';

interface Ports {
  admin: number;
  status: number;
  readiness: number;
  prometheus: number;
}

export const DEMO_TEXT = defineCatalogue(
  {
    intro: 'mock-istiod classroom demo: a sidecar, its agent and its control plane, no cluster.',
    components: (v: { app: number; xds: number; tls: boolean }) =>
      `  app (lab upstream) 127.0.0.1:${v.app}    mock istiod xDS 127.0.0.1:${v.xds}${v.tls ? ' over TLS' : ''} (withholding)`,
    sidecarEmulated: '  sidecar: agent (emulated pilot-agent) in front of a real Envoy',
    sidecarReal: '  sidecar: the real pilot-agent in front of a real Envoy',
    ports: (p: Ports) =>
      `  Envoy admin :${p.admin}   pilot-agent status :${p.status}   readiness :${p.readiness}   Prometheus :${p.prometheus}`,
    page: (v: { control: number }) => `  live page: http://127.0.0.1:${v.control}/ui/`,
    titleA: '1/2 Ready: the sidecar waits for istiod',
    titleB: 'istiod answers: LIVE, 2/2, traffic flows',
    titleC: 'istiod goes down: Envoy keeps serving',
    titleD: 'a push Envoy rejects: NACK, old config kept',
    titleE: 'Unknown gRPC client cluster: refused before starting',
    titleF: 'two clusters, one CLUSTER_ID: config gets mixed',
    pressEnter: '(press Enter for the next step)',
    done: "Done: the seed's three field symptoms. (e) is only the sidecar in CrashLoopBackOff,",
    done2: '(a) the pod stuck at 1/2 Ready, (f) multi-cluster config mixed by a shared CLUSTER_ID.',
  },
  {
    intro:
      'mock-istiod 교실 데모: 클러스터 없이 사이드카 하나와 그 에이전트, 컨트롤 플레인을 띄운다.',
    components: (v) =>
      `  앱(실습 업스트림) 127.0.0.1:${v.app}    mock istiod xDS 127.0.0.1:${v.xds}${v.tls ? '(TLS)' : ''} (답을 보류하는 중)`,
    sidecarEmulated: '  사이드카: agent(pilot-agent 를 흉내 낸 것)와 진짜 Envoy',
    sidecarReal: '  사이드카: 진짜 pilot-agent 와 진짜 Envoy',
    ports: (p) =>
      `  Envoy 관리 포트 :${p.admin}   pilot-agent 상태 포트 :${p.status}   준비 프로브 :${p.readiness}   Prometheus :${p.prometheus}`,
    page: (v) => `  실시간 페이지: http://127.0.0.1:${v.control}/ui/`,
    titleA: '1/2 Ready: 사이드카가 istiod 를 기다린다',
    titleB: 'istiod 가 답한다: LIVE, 2/2, 트래픽이 흐른다',
    titleC: 'istiod 가 내려가도 Envoy 는 계속 일한다',
    titleD: 'Envoy 가 거절하는 설정: NACK, 이전 설정은 그대로',
    titleE: 'Unknown gRPC client cluster: 뜨기도 전에 거절된다',
    titleF: '두 클러스터에 CLUSTER_ID 하나: 설정이 섞인다',
    pressEnter: '(다음 단계로 가려면 Enter 를 누르세요)',
    done: '끝. 현장에서 만나는 세 모습을 모두 봤다. (e) 사이드카만 CrashLoopBackOff,',
    done2: '(a) 파드가 1/2 Ready 에서 멈춤, (f) CLUSTER_ID 가 같아 멀티 클러스터 설정이 섞임.',
  },
);
