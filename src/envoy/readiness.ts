/**
 * pilot-agent's readiness decision, as pure functions over Envoy's stats text. Checked against
 * Istio's `pilot/cmd/pilot-agent/status/ready/probe.go` and `status/util/stats.go`:
 *
 * 1. Config: `cluster_manager.cds.update_success` and `listener_manager.lds.update_success`
 *    must both be above 0. If neither is: `config not received from XDS server (is Istiod
 *    running?): …` (even when updates were rejected); if one is and something was rejected:
 *    `config received from XDS server, but was rejected: …`; otherwise `config not fully
 *    received from XDS server: …`. The `…` is `cds updates: X successful, Y rejected; lds
 *    updates: X successful, Y rejected`.
 * 2. Envoy: `server.state` must be present (`server.state is not yet updated: <stats>`) and 0
 *    (`server is not live, current state is: PRE_INITIALIZING`), and
 *    `listener_manager.workers_started` present and 1 (`workers have not yet started`).
 *
 * Both checks read `/stats?usedonly&filter=<regex>`, so a stat Envoy has never set is absent.
 */
import { MockIstiodError } from '../util/errors.js';

/** The regexes pilot-agent passes as `filter`. */
export const UPDATE_STATS_FILTER =
  '^(cluster_manager\\.cds|listener_manager\\.lds)\\.(update_success|update_rejected)$';
export const READY_STATS_FILTER = '^(server\\.state|listener_manager\\.workers_started)';

/** Envoy's `server.state` values, by number (`envoy.admin.v3.ServerInfo.State`). */
export const SERVER_STATES = ['LIVE', 'DRAINING', 'PRE_INITIALIZING', 'INITIALIZING'] as const;

export interface UpdateStats {
  cdsSuccess: number;
  cdsRejected: number;
  ldsSuccess: number;
  ldsRejected: number;
}

/**
 * Values of `names` from Envoy's text stats (`name: value` lines), the first line starting with
 * each name winning, as pilot-agent reads them; a name with no line is absent from the map. A
 * line that cannot be read throws code `ENVOY_STATS_INVALID` with pilot-agent's message.
 */
export function parseStatLines(text: string, names: readonly string[]): Map<string, number> {
  const values = new Map<string, number>();
  const problems: string[] = [];
  for (const line of text.split('\n')) {
    for (const name of names) {
      if (values.has(name) || !line.startsWith(name)) continue;
      const parts = line.split(':');
      const raw = (parts[1] ?? '').trim();
      if (parts.length !== 2) {
        problems.push(`envoy stat ${name} missing separator. line:${line}`);
      } else if (!/^\d+$/.test(raw)) {
        problems.push(`failed parsing Envoy stat ${name} (invalid value "${raw}") line: ${line}`);
      } else {
        values.set(name, Number(raw));
        continue;
      }
      values.set(name, 0);
    }
  }
  if (problems.length > 0) throw new MockIstiodError('ENVOY_STATS_INVALID', problems.join('; '));
  return values;
}

export function parseUpdateStats(text: string): UpdateStats {
  const v = parseStatLines(text, [
    'cluster_manager.cds.update_success',
    'cluster_manager.cds.update_rejected',
    'listener_manager.lds.update_success',
    'listener_manager.lds.update_rejected',
  ]);
  return {
    cdsSuccess: v.get('cluster_manager.cds.update_success') ?? 0,
    cdsRejected: v.get('cluster_manager.cds.update_rejected') ?? 0,
    ldsSuccess: v.get('listener_manager.lds.update_success') ?? 0,
    ldsRejected: v.get('listener_manager.lds.update_rejected') ?? 0,
  };
}

/** `cds updates: 1 successful, 0 rejected; lds updates: 0 successful, 1 rejected` */
export function describeUpdateStats(s: UpdateStats): string {
  return (
    `cds updates: ${s.cdsSuccess} successful, ${s.cdsRejected} rejected; ` +
    `lds updates: ${s.ldsSuccess} successful, ${s.ldsRejected} rejected`
  );
}

/** Step 1: undefined once both CDS and LDS have had a successful update, else the reason. */
export function configStatusError(s: UpdateStats): string | undefined {
  const cdsUpdated = s.cdsSuccess > 0;
  const ldsUpdated = s.ldsSuccess > 0;
  if (cdsUpdated && ldsUpdated) return undefined;
  const counts = describeUpdateStats(s);
  if (!cdsUpdated && !ldsUpdated) {
    return `config not received from XDS server (is Istiod running?): ${counts}`;
  }
  if (s.cdsRejected > 0 || s.ldsRejected > 0) {
    return `config received from XDS server, but was rejected: ${counts}`;
  }
  return `config not fully received from XDS server: ${counts}`;
}

/** The name of a `server.state` value (`UNKNOWN` beyond the four states). */
export function serverStateName(state: number): string {
  return SERVER_STATES[state] ?? 'UNKNOWN';
}

/** Step 2: undefined when Envoy is LIVE with its workers started, else the reason. */
export function envoyStateError(text: string): string | undefined {
  if (!text.includes('server.state')) return `server.state is not yet updated: ${text}`;
  if (!text.includes('listener_manager.workers_started')) {
    return `listener_manager.workers_started is not yet updated: ${text}`;
  }
  const v = parseStatLines(text, ['server.state', 'listener_manager.workers_started']);
  const state = v.get('server.state') ?? 0;
  if (state !== 0) return `server is not live, current state is: ${serverStateName(state)}`;
  if (v.get('listener_manager.workers_started') !== 1) return 'workers have not yet started';
  return undefined;
}
