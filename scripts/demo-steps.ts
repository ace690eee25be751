/**
 * Steps (a)–(e) of the classroom demo (docs/classroom.md; (f) is in demo-step-clusters.ts). Each one changes one thing, waits
 * until the real Envoy shows it, prints the evidence the way a student would fetch it (curl,
 * admin stats, readiness) and returns that evidence, so that a test can check every step.
 */
import { join, relative } from 'node:path';
import { envoyValidateError } from '../src/bootstrap/validate-message.js';
import { validateEnvoyConfig } from '../src/envoy/validate.js';
import { makeHttpListener } from '../src/resources/listener.js';
import type { EnvoyResource } from '../src/resources/types.js';
import type { TestMockIstiod } from '../src/testing/start.js';
import type { Lang } from '../src/util/lang.js';
import { packageRoot } from '../src/util/package-root.js';
import { goCodeName } from '../src/server/stream-log.js';
import { LISTENER_TYPE } from '../src/xds/type-urls.js';
import type { DemoPorts, Narrator } from './demo-narrator.js';
import { curl } from './demo-narrator.js';
import type { DemoSidecar } from './demo-sidecars.js';
import type { MockWarning } from './demo-clusters.js';
import { STEPS_TEXT } from './demo-steps-messages.js';

export interface DemoContext {
  ports: DemoPorts;
  istiod: TestMockIstiod;
  /** The emulated agent, or the real pilot-agent (`--real-agent`). */
  agent: DemoSidecar;
  /** The lab's resources as served (on the demo's ports). */
  resources: EnvoyResource[];
  say: Narrator;
  /** The language the demo narrates in (`--lang`). */
  lang: Lang;
  /** What the mock logged at warning level so far, oldest first. */
  mockWarnings: readonly MockWarning[];
}

export type Evidence = Record<string, unknown>;

/** A cluster that does not exist (yet): a service another team has not deployed. */
export const MISSING_CLUSTER = 'outbound|8080||payments.default.svc.cluster.local';

const WATCHED = [
  'control_plane.connected_state',
  'cluster_manager.cds.update_success',
  'listener_manager.lds.update_success',
  'listener_manager.lds.update_rejected',
];

async function showStats(c: DemoContext, names = WATCHED): Promise<Record<string, unknown>> {
  const stats = await c.agent.envoy.stats();
  const shown = Object.fromEntries(names.map((name) => [name, stats.get(name)]));
  const pattern = names.map((n) => `^${n.replace(/\./g, '\\.')}:`).join('|');
  // Envoy lists stats sorted by name, and so does this.
  c.say.command(
    `curl -s localhost:${c.ports.admin}/stats | grep -E '${pattern}'`,
    [...names].sort().map((name) => `${name}: ${String(shown[name])}`),
  );
  return shown;
}

/**
 * GETs `url` and prints it as `curl -sS -w ' %{http_code}\n' <url>` would: the body, a space
 * and the status (an empty body shows as ` 503`), or curl's error for a refused connection.
 */
export async function showCurl(c: DemoContext, url: string) {
  const result = await curl(url);
  const { port, pathname } = new URL(url);
  const shown =
    'error' in result
      ? `curl: (7) Failed to connect to localhost port ${port}: Connection refused`
      : `${result.body} ${result.status}`;
  c.say.command(`curl -sS -w ' %{http_code}\\n' localhost:${port}${pathname}`, [shown]);
  return result;
}

/** `/ready` as `curl -sS -w ' %{http_code}\n'` prints it: the state, then the status. */
async function showReady(c: DemoContext) {
  const ready = await c.agent.envoy.ready();
  c.say.command(`curl -sS -w ' %{http_code}\\n' localhost:${c.ports.admin}/ready`, [
    ready.body,
    ` ${ready.status}`,
  ]);
  return ready;
}

export async function stepWithheld(c: DemoContext): Promise<Evidence> {
  const { envoy } = c.agent;
  const t = STEPS_TEXT[c.lang];
  await envoy.waitForStat('control_plane.connected_state', (v) => v === 1);
  c.say.text(t.withheld);
  const stats = await showStats(c);
  const ready = await showReady(c);
  const agentAnswer = await showCurl(c, c.agent.statusUrl);
  const reason = await c.agent.notReadyReason();
  c.say.log(`pilot-agent: Envoy proxy is NOT ready: ${reason ?? '?'}`);
  const viaEnvoy = await showCurl(c, c.agent.readinessUrl);
  const inbound = await showCurl(c, `http://127.0.0.1:${c.ports.inbound}/orders`);
  c.say.look(t.lookWithheld({ readiness: c.ports.readiness, ready: c.agent.podView().ready }));
  return {
    connectedState: stats['control_plane.connected_state'],
    cdsUpdateSuccess: stats['cluster_manager.cds.update_success'],
    ready,
    agent: agentAnswer,
    reason,
    readinessListener: viaEnvoy,
    inbound,
    pod: `${c.agent.podView().ready}/2`,
  };
}

export async function stepReleased(c: DemoContext): Promise<Evidence> {
  const t = STEPS_TEXT[c.lang];
  c.say.text(t.released);
  await c.istiod.control.release();
  await c.agent.envoy.waitForLive();
  await c.agent.waitForPod((view) => view.ready === 2);
  const ready = await showReady(c);
  const listeners = (await c.agent.envoy.dynamicListeners())
    .map((l) => `${l.name} ${l.direction} ${l.port}`)
    .sort();
  c.say.command(
    `curl -s 'localhost:${c.ports.admin}/config_dump?resource=dynamic_listeners' | jq -r ` +
      `'.configs[].active_state.listener | "\\(.name) \\(.traffic_direction) \\(.address.socket_address.port_value)"'`,
    listeners,
  );
  const inbound = await showCurl(c, `http://127.0.0.1:${c.ports.inbound}/orders`);
  const outbound = await showCurl(c, `http://127.0.0.1:${c.ports.outbound}/`);
  const stats = await c.agent.envoy.stats();
  const noneHealthy = stats.get('cluster.BlackHoleCluster.upstream_cx_none_healthy');
  c.say.command(
    `curl -s localhost:${c.ports.admin}/stats | grep BlackHoleCluster.upstream_cx_none_healthy`,
    [`cluster.BlackHoleCluster.upstream_cx_none_healthy: ${String(noneHealthy)}`],
  );
  const readiness = await showCurl(c, c.agent.readinessUrl);
  c.say.look(t.lookReleased);
  return {
    ready,
    listeners,
    inbound,
    outbound,
    blackHoleNoneHealthy: noneHealthy,
    readiness,
    pod: `${c.agent.podView().ready}/2`,
  };
}

export async function stepIstiodDown(c: DemoContext): Promise<Evidence> {
  const t = STEPS_TEXT[c.lang];
  c.say.text(t.down);
  await c.istiod.control.down();
  await c.agent.envoy.waitForStat('control_plane.connected_state', (v) => v === 0);
  const stats = await showStats(c, [
    'control_plane.connected_state',
    'cluster_manager.cds.update_failure',
  ]);
  const inbound = await showCurl(c, `http://127.0.0.1:${c.ports.inbound}/orders`);
  const readiness = await showCurl(c, c.agent.readinessUrl);
  const scraped = await curl(c.agent.prometheusUrl);
  const gauge =
    'body' in scraped
      ? /^envoy_control_plane_connected_state.*$/m.exec(scraped.body)?.[0]
      : undefined;
  c.say.command(
    `curl -s localhost:${c.ports.prometheus}/stats/prometheus | grep '^envoy_control_plane_connected_state'`,
    [gauge ?? JSON.stringify(scraped)],
  );
  c.say.look(t.lookDown);
  c.say.text(t.up);
  await c.istiod.control.up();
  await c.agent.envoy.waitForStat('control_plane.connected_state', (v) => v === 1, {
    timeoutMs: 15_000,
  });
  const back = await showStats(c, ['control_plane.connected_state']);
  return {
    connectedState: stats['control_plane.connected_state'],
    prometheus: gauge,
    inbound,
    readiness,
    pod: `${c.agent.podView().ready}/2`,
    connectedStateAfterUp: back['control_plane.connected_state'],
  };
}

export async function stepRejectedPush(c: DemoContext): Promise<Evidence> {
  const t = STEPS_TEXT[c.lang];
  c.say.text(t.rejectedPush({ cluster: MISSING_CLUSTER }));
  // Every listener is listed: in SotW a listener missing from a response is removed, even when
  // Envoy rejects the response.
  const broken = c.resources.map((r) =>
    r['name'] === 'virtualInbound' ? brokenInbound(c.ports) : r,
  );
  // Served all the same (Envoy rejects it); a refusal would throw CONTROL_REFUSED.
  await c.istiod.control.setResources({ resources: broken });
  const { nack, stream } = await c.istiod.waitForNack(LISTENER_TYPE);
  await c.agent.envoy.waitForStat('listener_manager.lds.update_rejected', (v) => Number(v) >= 1);
  c.say.log(
    `mock istiod: ADS:LDS: ACK ERROR ${stream.connectionId} ${goCodeName(nack.code)}:${nack.message.trim()}`,
  );
  const stats = await showStats(c);
  const inbound = await showCurl(c, `http://127.0.0.1:${c.ports.inbound}/orders`);
  const readiness = await showCurl(c, c.agent.readinessUrl);
  c.say.look(t.lookRejected);
  c.say.text(t.fixPushed);
  const before = Number(stats['listener_manager.lds.update_success']);
  await c.istiod.control.setResources({ resources: c.resources });
  await c.agent.envoy.waitForStat('listener_manager.lds.update_success', (v) => Number(v) > before);
  const after = await showStats(c, [
    'listener_manager.lds.update_success',
    'listener_manager.lds.update_rejected',
  ]);
  return {
    nack: nack.message,
    ldsUpdateRejected: stats['listener_manager.lds.update_rejected'],
    inbound,
    readiness,
    ldsUpdateSuccessAfterFix: after['listener_manager.lds.update_success'],
  };
}

export async function stepUnknownCluster(c: DemoContext): Promise<Evidence> {
  const t = STEPS_TEXT[c.lang];
  const file = join('envoy-configs', 'sidecar-broken-unknown-cluster.yaml');
  c.say.text(t.unknownCluster({ file }));
  // The path as typed from the repository root, when that is where the demo runs.
  const absolute = join(packageRoot(), file);
  const shown = relative(process.cwd(), absolute);
  const result = await validateEnvoyConfig(shown.startsWith('..') ? absolute : shown);
  const error = envoyValidateError(result.output);
  c.say.command(`envoy --mode validate -c ${shown}; echo "exit code $?"`, [
    error,
    `exit code ${result.exitCode}`,
  ]);
  c.say.look(t.lookUnknownCluster);
  return { exitCode: result.exitCode, error };
}

function brokenInbound(ports: DemoPorts): EnvoyResource {
  return makeHttpListener({
    name: 'virtualInbound',
    address: '127.0.0.1',
    port: ports.inbound,
    direction: 'INBOUND',
    cluster: MISSING_CLUSTER,
    statPrefix: `inbound_0.0.0.0_${ports.inbound}`,
  });
}
