/**
 * The per-type sync status istiod reports and `istioctl proxy-status` prints, from one
 * stream's state (istiod's `debugSyncStatus` in pilot/pkg/xds/statusgen.go):
 *
 * - the last response was NACKed and no ACK came since → `ERROR` (with Envoy's message);
 * - nothing was ever sent (held, delayed, or not yet asked for long) → `NOT SENT`;
 * - the last nonce sent was ACKed → `SYNCED`;
 * - otherwise a response is out and unanswered → `STALE`.
 *
 * A type the proxy never subscribed to is `IGNORED` (istioctl's word for it).
 */
import type { TypeState } from './stream-state.js';

export const SYNC_STATES = ['SYNCED', 'NOT SENT', 'STALE', 'ERROR'] as const;
export type SyncState = (typeof SYNC_STATES)[number];

export function syncState(state: Readonly<TypeState>): SyncState {
  if (state.nack) return 'ERROR';
  if (!state.sent) return 'NOT SENT';
  if (state.acked?.nonce === state.sent.nonce) return 'SYNCED';
  return 'STALE';
}
