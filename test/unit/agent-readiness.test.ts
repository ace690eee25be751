/**
 * pilot-agent's readiness decision over Envoy's stats text (the order and messages of Istio's
 * `status/ready/probe.go`), and the pod view the agent prints like `kubectl get pod`.
 */
import { describe, expect, it } from 'vitest';
import {
  formatAge,
  formatPodHeader,
  formatPodLine,
  PodState,
} from '../../src/envoy/agent-pod-view.js';
import {
  configStatusError,
  envoyStateError,
  parseStatLines,
  parseUpdateStats,
} from '../../src/envoy/readiness.js';

const config = (text: string) => configStatusError(parseUpdateStats(text));

describe('readiness step 1: config received', () => {
  it('no update at all: is Istiod running?', () => {
    expect(config('')).toBe(
      'config not received from XDS server (is Istiod running?): ' +
        'cds updates: 0 successful, 0 rejected; lds updates: 0 successful, 0 rejected',
    );
  });

  it('only rejections still count as not received (neither type succeeded)', () => {
    expect(
      config('cluster_manager.cds.update_rejected: 2\nlistener_manager.lds.update_rejected: 1\n'),
    ).toMatch(
      /^config not received from XDS server \(is Istiod running\?\): cds updates: 0 successful, 2 rejected/,
    );
  });

  it('one type accepted, the other rejected: received but rejected', () => {
    expect(
      config('cluster_manager.cds.update_success: 1\nlistener_manager.lds.update_rejected: 1\n'),
    ).toBe(
      'config received from XDS server, but was rejected: ' +
        'cds updates: 1 successful, 0 rejected; lds updates: 0 successful, 1 rejected',
    );
  });

  it('one type only: not fully received', () => {
    expect(config('listener_manager.lds.update_success: 1\n')).toBe(
      'config not fully received from XDS server: ' +
        'cds updates: 0 successful, 0 rejected; lds updates: 1 successful, 0 rejected',
    );
  });

  it('both accepted at least once: passes, whatever was rejected since', () => {
    expect(
      config(
        'cluster_manager.cds.update_success: 1\nlistener_manager.lds.update_rejected: 3\n' +
          'listener_manager.lds.update_success: 1\n',
      ),
    ).toBeUndefined();
  });
});

describe('readiness step 2: Envoy live with workers started', () => {
  it('server.state missing (never set yet, usedonly): not yet updated', () => {
    expect(envoyStateError('')).toBe('server.state is not yet updated: ');
    expect(envoyStateError('server.state: 0\n')).toBe(
      'listener_manager.workers_started is not yet updated: server.state: 0\n',
    );
  });

  it('names the state when not LIVE', () => {
    const text = (state: number) => `listener_manager.workers_started: 0\nserver.state: ${state}\n`;
    expect(envoyStateError(text(2))).toBe('server is not live, current state is: PRE_INITIALIZING');
    expect(envoyStateError(text(3))).toBe('server is not live, current state is: INITIALIZING');
    expect(envoyStateError(text(1))).toBe('server is not live, current state is: DRAINING');
    expect(envoyStateError(text(9))).toBe('server is not live, current state is: UNKNOWN');
  });

  it('LIVE without workers, then ready', () => {
    expect(envoyStateError('listener_manager.workers_started: 0\nserver.state: 0\n')).toBe(
      'workers have not yet started',
    );
    expect(
      envoyStateError('listener_manager.workers_started: 1\nserver.state: 0\n'),
    ).toBeUndefined();
  });

  it('reports unreadable stat lines as pilot-agent does', () => {
    expect(() => parseStatLines('server.state: x\n', ['server.state'])).toThrow(
      expect.objectContaining({ code: 'ENVOY_STATS_INVALID' }),
    );
    expect(() => parseStatLines('server.state 0\n', ['server.state'])).toThrow(
      'envoy stat server.state missing separator. line:server.state 0',
    );
  });
});

describe('pod view', () => {
  const start = new Date('2026-08-22T20:00:00Z');
  const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);

  it('prints kubectl get pod columns, READY 1/2 then 2/2', () => {
    const pod = new PodState('orders-v1-0', 3, start);
    expect(formatPodHeader('orders-v1-0')).toBe('NAME          READY   STATUS    RESTARTS   AGE');
    expect(formatPodLine(pod.view, at(3))).toBe('orders-v1-0   1/2     Running   0          3s');
    expect(pod.record({ ok: false, detail: 'refused' })).toBe(false);
    expect(pod.record({ ok: true, detail: '200' })).toBe(true);
    expect(formatPodLine(pod.view, at(12))).toBe('orders-v1-0   2/2     Running   0          12s');
  });

  it('turns unready only after failureThreshold failures in a row, and Error once Envoy exits', () => {
    const pod = new PodState('p', 3, start);
    pod.record({ ok: true, detail: '200' });
    expect(pod.record({ ok: false, detail: '503' })).toBe(false);
    expect(pod.record({ ok: false, detail: '503' })).toBe(false);
    expect(pod.record({ ok: false, detail: 'HTTP probe failed with statuscode: 503' })).toBe(true);
    expect(pod.view).toMatchObject({
      ready: 1,
      lastProbe: 'HTTP probe failed with statuscode: 503',
    });
    expect(pod.exited()).toBe(true);
    expect(pod.exited()).toBe(false);
    expect(formatPodLine(pod.view, at(1))).toBe('p      1/2     Error     0          1s');
  });

  it('writes ages the way kubectl does', () => {
    expect([0, 59, 119, 125, 540, 600, 10_799, 10_800].map((s) => formatAge(s * 1000))).toEqual([
      '0s',
      '59s',
      '119s',
      '2m5s',
      '9m',
      '10m',
      '179m',
      '3h',
    ]);
  });
});
