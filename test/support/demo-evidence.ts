/**
 * What the classroom demo promises (docs/classroom.md), step by step: checked against the
 * evidence `runDemo` returns and the lines it printed, whichever sidecar ran it (the emulated
 * agent or the real pilot-agent).
 */
import { expect } from 'vitest';
import { MISSING_CLUSTER } from '../../scripts/demo-steps.js';
import type { DemoStepResult } from '../../scripts/demo.js';

export function expectDemoEvidence(results: DemoStepResult[], lines: string[]): void {
  const evidence = (id: DemoStepResult['id']) => results.find((r) => r.id === id)?.evidence;
  expect(results.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);

  // (a) withheld: connected but not configured, not ready, and why.
  expect(evidence('a')).toEqual({
    connectedState: 1,
    cdsUpdateSuccess: 0,
    ready: { status: 503, body: 'PRE_INITIALIZING' },
    agent: { status: 503, body: '' },
    reason:
      'config not received from XDS server (is Istiod running?): ' +
      'cds updates: 0 successful, 0 rejected; lds updates: 0 successful, 0 rejected',
    readinessListener: { error: 'ECONNREFUSED' },
    inbound: { error: 'ECONNREFUSED' },
    pod: '1/2',
  });

  // (b) released: LIVE, the lab's traffic, 2/2.
  const b = evidence('b') ?? {};
  expect(b['ready']).toEqual({ status: 200, body: 'LIVE' });
  expect(b['listeners']).toEqual([
    expect.stringMatching(/^virtualInbound INBOUND \d+$/),
    expect.stringMatching(/^virtualOutbound OUTBOUND \d+$/),
  ]);
  expect(b['inbound']).toMatchObject({ status: 200 });
  expect((b['inbound'] as { body: string }).body).toMatch(/^ok:\d+ \/orders$/);
  expect(b['outbound']).toEqual({ status: 503, body: 'no healthy upstream' });
  expect(b['blackHoleNoneHealthy']).toBe(1);
  expect(b['readiness']).toEqual({ status: 200, body: '' });
  expect(b['pod']).toBe('2/2');

  // (c) istiod down: disconnected, still serving, still ready; then back.
  expect(evidence('c')).toMatchObject({
    connectedState: 0,
    prometheus: 'envoy_control_plane_connected_state{} 0',
    inbound: { status: 200 },
    readiness: { status: 200, body: '' },
    pod: '2/2',
    connectedStateAfterUp: 1,
  });

  // (d) rejected push: NACK with Envoy's reason, old config kept, then the fix accepted.
  const d = evidence('d') ?? {};
  expect(d['nack']).toContain(`unknown cluster '${MISSING_CLUSTER}'`);
  expect(d['ldsUpdateRejected']).toBe(1);
  expect(d['inbound']).toMatchObject({ status: 200 });
  expect(d['readiness']).toEqual({ status: 200, body: '' });
  expect(Number(d['ldsUpdateSuccessAfterFix'])).toBeGreaterThan(1);

  // (e) the broken bootstrap never gets to start.
  expect(evidence('e')).toEqual({
    exitCode: 1,
    error: expect.stringContaining("Unknown gRPC client cluster 'xds-grpc-typo'") as string,
  });

  // What the class sees: the pod going 1/2 → 2/2, and pilot-agent's reason.
  const pod = lines.filter((l) => l.startsWith('  [kubectl get pod -w] orders-v1-0'));
  expect(pod.map((l) => l.split(/\s+/)[6])).toEqual(['1/2', '2/2']);
  expect(lines).toContain(
    `  [log] pilot-agent: Envoy proxy is NOT ready: ${String(evidence('a')?.['reason'])}`,
  );
  expect(lines.filter((l) => l.startsWith('━━ ('))).toHaveLength(5);
}
