/**
 * What `mock-istiod serve` itself says (its start-up hint, the withhold hint, the shutdown
 * lines), in English and in Korean (`--lang ko`, or `LANG=ko_*`). The mock's own log lines
 * stay in English: they are for grep and log collectors, and some carry istiod's wording.
 */
import { defineCatalogue } from '../../util/catalogue.js';

export const SERVE_TEXT = defineCatalogue(
  {
    where: (v: { xds: string; control: string }) =>
      `sidecars connect to ${v.xds} (mesh config discoveryAddress); the control API and the /debug pages are on ${v.control}/`,
    withholding: (v: { control: string }) =>
      `withholding every response: release with curl -X POST ${v.control}/control/release`,
    page: (v: { page: string; token: boolean }) =>
      v.token
        ? `live page: ${v.page}?token=<the control token> (its events need the token)`
        : `live page: ${v.page}`,
    shuttingDown: (v: { signal: string }) =>
      `${v.signal}: shutting down (send it again to exit at once)`,
    startingStill: (v: { signal: string }) =>
      `${v.signal} while starting: shutting down once started (send it again to exit at once)`,
    exitingNow: (v: { signal: string }) => `${v.signal} again: exiting now`,
    tooLong: (v: { seconds: number }) => `shutdown took longer than ${v.seconds} s: exiting now`,
  },
  {
    where: (v) =>
      `사이드카는 ${v.xds} 로 붙는다(메시 설정의 discoveryAddress). 제어 API 와 /debug 페이지는 ${v.control}/ 에 있다.`,
    withholding: (v) =>
      `모든 응답을 보류하는 중이다. 풀어 주려면: curl -X POST ${v.control}/control/release`,
    page: (v) =>
      v.token
        ? `실시간 페이지: ${v.page}?token=<제어 토큰> (이벤트를 받으려면 토큰이 필요하다)`
        : `실시간 페이지: ${v.page}`,
    shuttingDown: (v) => `${v.signal}: 종료한다(한 번 더 보내면 바로 끝낸다)`,
    startingStill: (v) =>
      `${v.signal}: 시작하는 중이다. 시작을 마치면 종료한다(한 번 더 보내면 바로 끝낸다)`,
    exitingNow: (v) => `${v.signal} 를 다시 받았다: 바로 끝낸다`,
    tooLong: (v) => `종료가 ${v.seconds}초를 넘겼다: 바로 끝낸다`,
  },
);
