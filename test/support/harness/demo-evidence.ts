/**
 * What the classroom demo promises (docs/classroom.md), step by step: checked against the
 * evidence `runDemo` returns and the lines it printed, whichever sidecar ran it (the emulated
 * agent or the real pilot-agent).
 */
import { expect } from 'vitest';
import { MISSING_CLUSTER } from '../../../scripts/demo-steps.js';
import type { DemoStepResult } from '../../../scripts/demo.js';
import type { CurlResult } from '../../../scripts/demo-narrator.js';

export function expectDemoEvidence(results: DemoStepResult[], lines: string[]): void {
  const evidence = (id: DemoStepResult['id']) => results.find((r) => r.id === id)?.evidence;
  expect(results.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);

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

  expectClusterEvidence(evidence('f') as unknown as ClusterEvidence, lines);

  // What the class sees: the pod going 1/2 → 2/2, and pilot-agent's reason.
  const pod = lines.filter((l) => l.startsWith('  [kubectl get pod -w] orders-v1-0'));
  expect(pod.map((l) => l.split(/\s+/)[6])).toEqual(['1/2', '2/2']);
  expect(lines).toContain(
    `  [log] pilot-agent: Envoy proxy is NOT ready: ${String(evidence('a')?.['reason'])}`,
  );
  expect(lines.filter((l) => l.startsWith('━━ ('))).toHaveLength(6);
}

interface ClusterRound {
  proxies: string[];
  collisions: { msg: string; connections?: unknown }[];
  traffic: { east: CurlResult; west: CurlResult };
}

interface ClusterEvidence {
  orders: { east: number; west: number };
  mixed: ClusterRound;
  separated: ClusterRound;
}

/** The seed's collision text, as the mock logs it (src/app/collisions.ts). */
export const FRONTEND_COLLISION =
  'proxies collide on pod "frontend-v1-0.default" in CLUSTER_ID "Kubernetes": istiod cannot ' +
  "tell them apart, and they get each other's configuration";

/**
 * (f) Two clusters with one CLUSTER_ID: east's frontend reaches west's orders and the mock
 * warns, naming both proxies; with their own CLUSTER_IDs, each reaches its own orders.
 */
function expectClusterEvidence(f: ClusterEvidence, lines: string[]): void {
  const answer = (port: number) => ({ status: 200, body: `ok:${port} /orders` });
  expect(f.orders.east).not.toBe(f.orders.west);

  expect(f.mixed.traffic).toEqual({ east: answer(f.orders.west), west: answer(f.orders.west) });
  expect(f.mixed.proxies.filter((p) => p === 'frontend-v1-0.default Kubernetes')).toHaveLength(2);
  expect(f.mixed.collisions).toEqual([
    {
      msg: FRONTEND_COLLISION,
      connections: [
        expect.stringMatching(/^frontend-v1-0\.default-\d+ \(127\.0\.0\.1:\d+, 10\.2\.0\.7\)$/),
        expect.stringMatching(/^frontend-v1-0\.default-\d+ \(127\.0\.0\.1:\d+, 10\.1\.0\.7\)$/),
      ],
      key: 'pod "frontend-v1-0.default" in CLUSTER_ID "Kubernetes"',
      level: 40,
    },
  ]);
  expect(
    lines.filter((l) => l.startsWith(`  [log] mock istiod: ${FRONTEND_COLLISION} `)),
  ).toHaveLength(1);

  expect(f.separated.traffic).toEqual({ east: answer(f.orders.east), west: answer(f.orders.west) });
  expect(f.separated.proxies).toEqual(
    expect.arrayContaining(['frontend-v1-0.default east', 'frontend-v1-0.default west']),
  );
  expect(f.separated.collisions).toEqual([]);
}
