/**
 * The READY badge of a pod card, from what the server sends of the proxy (src/live/ui-events.ts):
 *
 * 1. The readiness probe passed (the kubelet's, through Envoy's readiness listener): `2/2`.
 * 2. Envoy's admin address is not known: `?`. A failed probe alone does not say which of Envoy
 *    or its agent is not ready, and the page cannot look at Envoy itself.
 * 3. The probe failed (the agent answered not ready, or Envoy's listener refused): `1/2`.
 * 4. No probe answer (no agent behind Envoy, or no readiness port): Envoy's own `/ready`,
 *    read through its admin API, stands in for pilot-agent's check (LIVE → `2/2`, else `1/2`),
 *    and is `?` while that API has not answered.
 *
 * `?` is never a guess: the hint says why, and how to give the page what it lacks.
 */
import type { UiProxy } from '../../../src/live/ui-events.js';

/** Why the badge says what it says; each has its hint in the messages (`pod.readyWhy.*`). */
export type ReadyReason = 'probe' | 'envoy' | 'no-admin' | 'admin-error' | 'polling';

export interface ReadyCell {
  text: '2/2' | '1/2' | '?';
  variant: 'success' | 'warning' | 'neutral';
  reason: ReadyReason;
  /** The probe's or the admin API's own words, when there are some. */
  detail?: string;
}

type ReadyInput = Pick<UiProxy, 'ready' | 'readyDetail' | 'envoy'>;

const withDetail = (cell: Omit<ReadyCell, 'detail'>, detail: string | undefined): ReadyCell =>
  detail === undefined ? cell : { ...cell, detail };

export function readyCell({ ready, readyDetail, envoy }: ReadyInput): ReadyCell {
  if (ready === '2/2')
    return withDetail({ text: '2/2', variant: 'success', reason: 'probe' }, readyDetail);
  if (envoy.admin === undefined) {
    return withDetail({ text: '?', variant: 'neutral', reason: 'no-admin' }, readyDetail);
  }
  if (ready === '1/2')
    return withDetail({ text: '1/2', variant: 'warning', reason: 'probe' }, readyDetail);
  if (envoy.error !== undefined) {
    return { text: '?', variant: 'neutral', reason: 'admin-error', detail: envoy.error };
  }
  if (envoy.ready === undefined) return { text: '?', variant: 'neutral', reason: 'polling' };
  const said = `${envoy.ready.status} ${envoy.ready.body.trim()}`;
  return envoy.ready.status === 200
    ? { text: '2/2', variant: 'success', reason: 'envoy', detail: said }
    : { text: '1/2', variant: 'warning', reason: 'envoy', detail: said };
}
