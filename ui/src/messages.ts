/**
 * Every string the page shows, in English and Korean, under the same keys. Envoy's and
 * Istio's own texts (state names such as `PRE_INITIALIZING`, `SYNCED`, NACK error texts) are
 * never translated: the page shows them as those programs print them. Korean follows the
 * course's own terms (사이드카, 부트스트랩, 프록시, 파드, 설정, 관리 포트) and its plain style.
 *
 * `{name}` marks a value filled in by `format()`; both languages use the same names.
 */
const en = {
  'page.title': 'mock-istiod: a sidecar’s life, live',
  'page.subtitle':
    'What the proxies and the mock istiod do right now: pods, Envoy’s stats, the ADS exchange.',
  'page.language': 'Language',
  'stream.live': 'live',
  'stream.connecting': 'connecting…',
  'stream.lost': 'connection to the mock lost; retrying',
  'stream.unauthorized': 'the control API needs a token: enter it below',
  'stream.gap': 'The page fell behind; some entries were skipped.',
  'token.label': 'Control API token',
  'token.hint': 'Only needed when the mock was started with a token. Kept in this tab only.',
  'token.save': 'Use token',
  'token.clear': 'Forget token',
  'controls.title': 'Make istiod misbehave',
  'controls.withhold': 'Withhold responses',
  'controls.release': 'Release',
  'controls.down': 'istiod down',
  'controls.up': 'istiod up',
  'controls.nack': 'Config Envoy rejects (NACK)',
  'controls.nackApply': 'Push it',
  'controls.delay': 'Delay each response (ms)',
  'controls.delayApply': 'Apply delay',
  'controls.ok': '{action}: done',
  'controls.failed': '{action} failed: {error}',
  'state.withheld': 'responses withheld',
  'state.notWithheld': 'responses flowing',
  'state.serving': 'xDS port open',
  'state.down': 'xDS port closed (istiod down)',
  'admin.label': 'Add an Envoy admin address',
  'admin.hint': 'host:port of an Envoy admin interface, for example 127.0.0.1:15000',
  'admin.add': 'Watch it',
  'pods.title': 'Pods',
  'pods.none': 'No proxy is connected yet.',
  'pod.ready': 'READY',
  'pod.readyWhy.probe': 'From the readiness probe of Envoy’s listener, as the kubelet sees it.',
  'pod.readyWhy.envoy':
    'No agent answers the readiness probe, so READY comes from Envoy’s own /ready, which pilot-agent would check.',
  'pod.readyWhy.no-admin':
    'READY is unknown: the mock does not know this Envoy’s admin address. Name it in the bootstrap’s node metadata (ENVOY_ADMIN_ADDRESS: 127.0.0.1:15000; for pilot-agent, ISTIO_META_ENVOY_ADMIN_ADDRESS=127.0.0.1:15000), or add it below the chart.',
  'pod.readyWhy.admin-error': 'READY is unknown: Envoy’s admin API does not answer.',
  'pod.readyWhy.polling': 'READY is unknown until Envoy’s admin API first answers.',
  'pod.serverState': 'server.state',
  'pod.envoyReady': '/ready',
  'pod.adminUnknown': 'admin address not known',
  'pod.proxyless': 'proxyless gRPC',
  'pod.proxylessHint':
    'A gRPC application’s own xDS client (node metadata GENERATOR: grpc). It has no Envoy: no admin API, no stats and no readiness probe, so the page shows what its xDS stream says — what it asked for, ACKed and NACKed.',
  'pod.xdsClient': 'xDS client',
  'pod.relayedTo': 'Relayed to istiod',
  'pod.upstreamConnected': 'connected',
  'pod.upstreamLost': 'lost: the proxy keeps what it has',
  'pod.grpcClient': 'gRPC (GENERATOR grpc), no Envoy',
  'pod.names': 'Names asked for',
  'pod.type': 'Type',
  'pod.acked': 'ACKed version',
  'pod.sync': 'Status',
  'pod.node': 'Node',
  'pod.gone': 'stream closed',
  'pod.goneHint': 'Its ADS stream ended; the row shows what was last known until it reconnects.',
  'chart.title': 'Envoy’s stats over time',
  'chart.none': 'No Envoy admin address is known yet: add one above to see its stats.',
  'chart.time': 'time',
  'faults.title': 'Active faults',
  'faults.none': 'No fault is applied.',
  'faults.remove': 'Remove',
  'faults.state': 'state',
  'seq.title': 'The ADS exchange',
  'seq.none': 'Nothing exchanged yet.',
  'seq.envoy': 'Envoy',
  'seq.istiod': 'mock istiod',
  'seq.request': 'request',
  'seq.response': 'response',
  'seq.ack': 'ACK',
  'seq.nack': 'NACK',
  'seq.waiting': 'waiting: withheld',
  'seq.fault': 'fault',
  'seq.connect': 'stream opened',
  'seq.close': 'stream closed',
  'seq.resources': '{count} resources',
  'seq.nonce': 'nonce',
  'seq.version': 'version',
  'explain.title': 'What each injection number becomes',
  'explain.hint':
    'The mock reads the chosen Envoy’s config_dump through its admin address and maps each number sidecar injection writes (istio-init -p 15001, -z 15006, -u 1337, -m REDIRECT, -d 15090,15021,15020) to the listener or cluster it became. Choose two proxies to see how they differ, and why.',
  'explain.pick': 'Proxies',
  'explain.run': 'Explain',
  'explain.compare': 'Compare',
  'explain.fromInject': 'Values from istioctl kube-inject',
  'explain.values.seed': 'Values: the seed’s table (a default install).',
  'explain.values.inject': 'Values: read from istioctl kube-inject of the lab’s Deployment.',
  'explain.value': 'Injection value',
  'explain.object': 'Envoy object',
  'explain.note': 'Note',
  'explain.noObject': 'none',
  'explain.differences': 'How they differ, and why',
  'explain.what.outbound': 'outbound capture port',
  'explain.what.inbound': 'inbound capture port',
  'explain.what.uid': 'UID not captured (the proxy’s)',
  'explain.what.mode': 'capture mode',
  'explain.what.unknown': 'unknown destinations',
  'explain.what.excluded': 'inbound port {port} not captured',
} as const;

export type MessageKey = keyof typeof en;

const ko: Record<MessageKey, string> = {
  'page.title': 'mock-istiod: 사이드카의 한살이, 실시간',
  'page.subtitle': '지금 프록시와 mock istiod 가 하는 일: 파드, Envoy 의 통계, ADS 주고받기.',
  'page.language': '언어',
  'stream.live': '실시간',
  'stream.connecting': '연결 중…',
  'stream.lost': 'mock 과의 연결이 끊겼다. 다시 연결하는 중',
  'stream.unauthorized': '제어 API 에 토큰이 필요하다. 아래에 넣는다',
  'stream.gap': '페이지가 뒤처져 일부 항목을 건너뛰었다.',
  'token.label': '제어 API 토큰',
  'token.hint': 'mock 을 토큰과 함께 띄웠을 때만 필요하다. 이 탭에만 보관한다.',
  'token.save': '토큰 사용',
  'token.clear': '토큰 지우기',
  'controls.title': 'istiod 를 일부러 고장 내기',
  'controls.withhold': '응답 보류',
  'controls.release': '보류 풀기',
  'controls.down': 'istiod 내리기',
  'controls.up': 'istiod 올리기',
  'controls.nack': 'Envoy 가 거부할 설정(NACK)',
  'controls.nackApply': '푸시',
  'controls.delay': '응답마다 지연(ms)',
  'controls.delayApply': '지연 걸기',
  'controls.ok': '{action}: 완료',
  'controls.failed': '{action} 실패: {error}',
  'state.withheld': '응답 보류 중',
  'state.notWithheld': '응답이 나가는 중',
  'state.serving': 'xDS 포트 열림',
  'state.down': 'xDS 포트 닫힘(istiod 내려감)',
  'admin.label': 'Envoy 관리 포트 주소 추가',
  'admin.hint': 'Envoy 관리 인터페이스의 host:port. 예: 127.0.0.1:15000',
  'admin.add': '지켜보기',
  'pods.title': '파드',
  'pods.none': '아직 연결된 프록시가 없다.',
  'pod.ready': 'READY',
  'pod.readyWhy.probe': 'kubelet 이 보는 대로, Envoy 리스너의 준비 상태 프로브 결과다.',
  'pod.readyWhy.envoy':
    '준비 상태 프로브에 답하는 에이전트가 없어서, pilot-agent 가 확인할 Envoy 의 /ready 로 READY 를 정했다.',
  'pod.readyWhy.no-admin':
    'READY 를 알 수 없다: mock 이 이 Envoy 의 관리 포트 주소를 모른다. 부트스트랩의 노드 메타데이터에 적거나(ENVOY_ADMIN_ADDRESS: 127.0.0.1:15000, pilot-agent 라면 ISTIO_META_ENVOY_ADMIN_ADDRESS=127.0.0.1:15000) 차트 아래에서 추가한다.',
  'pod.readyWhy.admin-error': 'READY 를 알 수 없다: Envoy 의 관리 API 가 답하지 않는다.',
  'pod.readyWhy.polling': 'Envoy 의 관리 API 가 처음 답할 때까지 READY 를 알 수 없다.',
  'pod.serverState': 'server.state',
  'pod.envoyReady': '/ready',
  'pod.adminUnknown': '관리 포트 주소를 모름',
  'pod.proxyless': 'proxyless gRPC',
  'pod.proxylessHint':
    'gRPC 애플리케이션 자신의 xDS 클라이언트다(노드 메타데이터 GENERATOR: grpc). Envoy 가 없으니 관리 API 도, 통계도, 준비 상태 프로브도 없다. 그래서 이 페이지는 xDS 스트림이 말하는 것, 곧 무엇을 요청하고 ACK 하고 NACK 했는지를 보여 준다.',
  'pod.xdsClient': 'xDS 클라이언트',
  'pod.relayedTo': 'istiod 로 중계',
  'pod.upstreamConnected': '연결됨',
  'pod.upstreamLost': '끊김: 프록시는 가진 설정을 유지한다',
  'pod.grpcClient': 'gRPC(GENERATOR grpc), Envoy 없음',
  'pod.names': '요청한 이름',
  'pod.type': '타입',
  'pod.acked': 'ACK 한 버전',
  'pod.sync': '상태',
  'pod.node': '노드',
  'pod.gone': '스트림 닫힘',
  'pod.goneHint': 'ADS 스트림이 끝났다. 다시 연결될 때까지 마지막으로 알던 상태를 보여 준다.',
  'chart.title': '시간에 따른 Envoy 통계',
  'chart.none': '아는 Envoy 관리 포트가 아직 없다. 위에서 추가하면 통계가 보인다.',
  'chart.time': '시각',
  'faults.title': '걸려 있는 장애',
  'faults.none': '걸린 장애가 없다.',
  'faults.remove': '제거',
  'faults.state': '상태',
  'seq.title': 'ADS 주고받기',
  'seq.none': '아직 주고받은 것이 없다.',
  'seq.envoy': 'Envoy',
  'seq.istiod': 'mock istiod',
  'seq.request': '요청',
  'seq.response': '응답',
  'seq.ack': 'ACK',
  'seq.nack': 'NACK',
  'seq.waiting': '대기: 보류됨',
  'seq.fault': '장애',
  'seq.connect': '스트림 열림',
  'seq.close': '스트림 닫힘',
  'seq.resources': '리소스 {count}개',
  'seq.nonce': 'nonce',
  'seq.version': '버전',
  'explain.title': '주입 값이 각각 무엇이 되나',
  'explain.hint':
    'mock 이 고른 Envoy 의 config_dump 를 관리 포트 주소로 읽어, 사이드카 주입이 쓰는 값(istio-init -p 15001, -z 15006, -u 1337, -m REDIRECT, -d 15090,15021,15020)이 각각 어떤 리스너나 클러스터가 되었는지 보여 준다. 프록시 둘을 고르면 어디가 왜 다른지도 보여 준다. 설명 칸은 mock-istiod explain 이 출력하는 그대로(영어)다.',
  'explain.pick': '프록시',
  'explain.run': '살펴보기',
  'explain.compare': '비교하기',
  'explain.fromInject': 'istioctl kube-inject 출력의 값으로',
  'explain.values.seed': '값: 시드의 표(기본 설치).',
  'explain.values.inject': '값: 랩의 Deployment를 istioctl kube-inject로 주입한 출력에서 읽음.',
  'explain.value': '주입 값',
  'explain.object': 'Envoy 객체',
  'explain.note': '설명',
  'explain.noObject': '없음',
  'explain.differences': '어디가 왜 다른가',
  'explain.what.outbound': '아웃바운드 캡처 포트',
  'explain.what.inbound': '인바운드 캡처 포트',
  'explain.what.uid': '캡처하지 않는 UID(프록시의 것)',
  'explain.what.mode': '캡처 방식',
  'explain.what.unknown': '모르는 목적지',
  'explain.what.excluded': '캡처하지 않는 인바운드 포트 {port}',
};

export const LANGS = ['en', 'ko'] as const;
export type Lang = (typeof LANGS)[number];

export const MESSAGES: Readonly<Record<Lang, Readonly<Record<MessageKey, string>>>> = { en, ko };

/** The message in `lang`, with each `{name}` replaced by `values[name]`. */
export function format(
  lang: Lang,
  key: MessageKey,
  values: Readonly<Record<string, string | number>> = {},
): string {
  return MESSAGES[lang][key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}

/**
 * The page's language: `?lang=` wins; then the mock's own language when it was started with
 * `--lang ko`; then the browser's preferred languages; English otherwise.
 */
export function pickLang(
  query: string,
  browserLanguages: readonly string[],
  serverLang?: string,
): Lang {
  const asked = new URLSearchParams(query).get('lang');
  if (asked === 'en' || asked === 'ko') return asked;
  if (serverLang === 'ko') return 'ko';
  const first = browserLanguages[0]?.toLowerCase() ?? '';
  return first === 'ko' || first.startsWith('ko-') ? 'ko' : 'en';
}
