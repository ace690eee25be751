/**
 * The READY badge (ui/src/model/ready.ts): the readiness probe when it says something, Envoy's
 * own /ready when no agent answers, and `?` (never `1/2`) when the mock does not know the
 * admin address; and what the server makes of a probe Envoy answered for an absent agent.
 */
import { describe, expect, it } from 'vitest';
import type { UiProxy } from '../../src/live/ui-events.js';
import { readinessOf } from '../../src/live/ui-admins.js';
import { readyCell } from '../../ui/src/model/ready.js';
import { MESSAGES } from '../../ui/src/messages.js';

const ADMIN = 'http://127.0.0.1:15000';
const REFUSED = 'Get "http://127.0.0.1:15021/healthz/ready": dial tcp: connect: connection refused';

type Input = Pick<UiProxy, 'ready' | 'readyDetail' | 'envoy'>;
const proxy = (fields: Partial<Input>): Input => ({ ready: 'unknown', envoy: {}, ...fields });

describe('readyCell: READY on a pod card', () => {
  it('is ? when the admin address is unknown, whatever a failed probe said', () => {
    expect(readyCell(proxy({}))).toEqual({ text: '?', variant: 'neutral', reason: 'no-admin' });
    // The README's Envoy before this change: 15021 answers, nothing behind it; not "1/2".
    expect(readyCell(proxy({ ready: '1/2', readyDetail: REFUSED }))).toEqual({
      text: '?',
      variant: 'neutral',
      reason: 'no-admin',
      detail: REFUSED,
    });
  });

  it('is the probe’s 2/2 even without an admin address: the kubelet would say so', () => {
    expect(readyCell(proxy({ ready: '2/2', readyDetail: '200' }))).toEqual({
      text: '2/2',
      variant: 'success',
      reason: 'probe',
      detail: '200',
    });
  });

  it('is the probe’s 1/2 when the admin address is known', () => {
    const cell = readyCell(
      proxy({ ready: '1/2', readyDetail: REFUSED, envoy: { admin: ADMIN, state: 'LIVE' } }),
    );
    expect(cell).toEqual({ text: '1/2', variant: 'warning', reason: 'probe', detail: REFUSED });
  });

  it('falls back on Envoy’s own /ready when no probe answer says anything', () => {
    const live = { admin: ADMIN, state: 'LIVE', ready: { status: 200, body: 'LIVE\n' } };
    expect(readyCell(proxy({ envoy: live }))).toEqual({
      text: '2/2',
      variant: 'success',
      reason: 'envoy',
      detail: '200 LIVE',
    });
    const waiting = { admin: ADMIN, ready: { status: 503, body: 'PRE_INITIALIZING' } };
    expect(readyCell(proxy({ envoy: waiting }))).toMatchObject({ text: '1/2', reason: 'envoy' });
  });

  it('is ? while the admin API has not answered, or when it fails', () => {
    expect(readyCell(proxy({ envoy: { admin: ADMIN } }))).toEqual({
      text: '?',
      variant: 'neutral',
      reason: 'polling',
    });
    const failed = { admin: ADMIN, error: 'connect ECONNREFUSED 127.0.0.1:15000' };
    expect(readyCell(proxy({ envoy: failed }))).toEqual({
      text: '?',
      variant: 'neutral',
      reason: 'admin-error',
      detail: failed.error,
    });
  });

  it('has a hint for every reason, in both languages; the no-admin one says how to fix it', () => {
    for (const reason of ['probe', 'envoy', 'no-admin', 'admin-error', 'polling'] as const) {
      expect(MESSAGES.en[`pod.readyWhy.${reason}`]).toBeTruthy();
      expect(MESSAGES.ko[`pod.readyWhy.${reason}`]).toBeTruthy();
    }
    expect(MESSAGES.en['pod.readyWhy.no-admin']).toContain('ENVOY_ADMIN_ADDRESS: 127.0.0.1:15000');
    expect(MESSAGES.en['pod.readyWhy.no-admin']).toContain('ISTIO_META_ENVOY_ADMIN_ADDRESS');
  });
});

describe('readinessOf: what one probe of Envoy’s readiness listener says', () => {
  const url = 'http://127.0.0.1:15021/healthz/ready';

  it('200 is 2/2; a refused listener or the agent’s 503 is 1/2', () => {
    expect(readinessOf(url, { ok: true, detail: '200', body: '' })).toEqual({
      ready: '2/2',
      detail: '200',
    });
    expect(readinessOf(url, { ok: false, detail: REFUSED })).toEqual({
      ready: '1/2',
      detail: REFUSED,
    });
    const agentSaysNo = { ok: false, detail: 'HTTP probe failed with statuscode: 503', body: '' };
    expect(readinessOf(url, agentSaysNo).ready).toBe('1/2');
  });

  it('Envoy’s own 503 for an absent agent is unknown, and says so', () => {
    const body =
      'upstream connect error or disconnect/reset before headers. reset reason: remote connection failure';
    const outcome = { ok: false, detail: 'HTTP probe failed with statuscode: 503', body };
    expect(readinessOf(url, outcome)).toEqual({
      ready: 'unknown',
      detail: `no agent answers behind ${url} (Envoy said: ${body})`,
    });
    expect(readinessOf(url, { ...outcome, body: 'no healthy upstream' }).ready).toBe('unknown');
  });
});
