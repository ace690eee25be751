/**
 * The real `istioctl proxy-status` against the mock, about the real pilot-agent's sidecar,
 * over the TLS port with an operator's identity (a certificate from the mock's CA for
 * istio-system/default, where istioctl says it is): SYNCED once Envoy has ACKed, NOT SENT
 * while the mock withholds, STALE while a pushed response waits for Envoy's ACK; and each
 * time the mock's own `mock-istiod proxy-status` says the same per type.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { caClient, createCertificate, makeKeyAndCsr } from '../support/fixtures/ca.js';
import { useCli } from '../support/fixtures/cli.js';
import { runIstioctl, useRealLab, type RealLab } from '../support/harness/real-agent.js';

const cli = useCli();
const labs = useRealLab();
const TYPES = ['CDS', 'LDS', 'EDS', 'RDS', 'ECDS'] as const;
type Statuses = Record<(typeof TYPES)[number], string>;

/** The rows of a table whose columns are padded by two spaces or more, keyed by header. */
function parseTable(text: string): Record<string, string>[] {
  const [header, ...rows] = text.split('\n').filter((line) => /\S/.test(line));
  const names = (header ?? '').trim().split(/\s{2,}/);
  return rows
    .filter((row) => !/^\S+ \S+ rejected:/.test(row))
    .map((row) =>
      Object.fromEntries(
        row
          .trim()
          .split(/\s{2,}/)
          .map((cell, i): [string, string] => [names[i] ?? `column ${i}`, cell]),
      ),
    );
}

/** The per-type status words of the one proxy in a proxy-status table (`SYNCED (3s)` → `SYNCED`). */
function statusesOf(text: string): Statuses {
  const rows = parseTable(text);
  expect(rows.map((row) => row['NAME'])).toEqual(['orders-v1-0.default']);
  const row = rows[0] ?? {};
  return Object.fromEntries(
    TYPES.map((type) => [type, (row[type] ?? '').replace(/ \(.*\)$/, '')]),
  ) as Statuses;
}

const certDirs = new Map<RealLab, string>();
afterEach(() => {
  for (const dir of certDirs.values()) rmSync(dir, { recursive: true, force: true });
  certDirs.clear();
});

/**
 * istioctl's `--cert-dir`: a key, and a certificate the mock's CA signed for
 * istio-system/default (istioctl's node names that namespace and service account, and the
 * mock authorizes a stream only for the identity it names), with the root beside them.
 */
async function certDirOf(lab: RealLab): Promise<string> {
  const known = certDirs.get(lab);
  if (known !== undefined) return known;
  const { rootCert } = lab.istiod.security;
  const { csr, keyPem } = await makeKeyAndCsr();
  const token = lab.istiod.security.createToken({
    namespace: 'istio-system',
    serviceAccount: 'default',
  }).token;
  const client = caClient(lab.istiod.xdsAddress, rootCert);
  const signed = await createCertificate(client, { csr }, token);
  client.close();
  if (!signed.ok) throw new Error(`the mock's CA refused istioctl's CSR: ${signed.details}`);
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-istioctl-certs-'));
  certDirs.set(lab, dir);
  writeFileSync(join(dir, 'cert-chain.pem'), signed.chain.join(''));
  writeFileSync(join(dir, 'key.pem'), keyPem, { mode: 0o600 });
  writeFileSync(join(dir, 'root-cert.pem'), rootCert);
  return dir;
}

/** `istioctl proxy-status -v 1` over the TLS port, with the pod's certificate. */
async function istioctlStatuses(lab: RealLab): Promise<Statuses> {
  const certDir = await certDirOf(lab);
  const result = await runIstioctl([
    ...['proxy-status', '-v', '1', '-r', 'default'],
    ...['--xds-address', lab.istiod.xdsAddress, '--cert-dir', certDir],
    ...['--authority', 'istiod.istio-system.svc'],
  ]);
  expect(result.code, result.stderr).toBe(0);
  return statusesOf(result.stdout);
}

async function mockStatuses(lab: RealLab): Promise<Statuses> {
  const control = lab.istiod.addresses.control;
  if (!control) throw new Error('the mock has no control API');
  const result = await cli.run(['proxy-status', '--control-port', String(control.port)]);
  expect(result.code, result.stderr).toBe(0);
  return statusesOf(result.stdout);
}

/** Both tools, asked one after the other; they must agree. */
async function expectBothSay(lab: RealLab, expected: Partial<Statuses>): Promise<void> {
  const [fromIstioctl, fromMock] = [await istioctlStatuses(lab), await mockStatuses(lab)];
  expect(fromIstioctl).toMatchObject(expected);
  expect(fromIstioctl).toEqual(fromMock);
}

/** The pid of the Envoy pilot-agent started: its child process named envoy. */
function pilotAgentsEnvoy(lab: RealLab): number {
  const parent = lab.agent.envoy.pid;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone already
    }
    // "<pid> (<comm>) <state> <ppid> …"
    const match = /^\d+ \((.*)\) \S+ (\d+) /.exec(stat);
    if (match?.[1] === 'envoy' && Number(match[2]) === parent) return Number(entry);
  }
  throw new Error(`no envoy process under pilot-agent (pid ${parent})`);
}

/** The lab's resources and one more cluster: a new CDS version, the listeners unchanged. */
function withNewVersion(lab: RealLab): unknown[] {
  const extra = {
    '@type': CLUSTER_TYPE,
    name: 'outbound|9090||extra.default.svc.cluster.local',
    type: 'STATIC',
    connect_timeout: '1s',
  };
  return [...makeLabResources(lab.ports), extra];
}

describe('istioctl proxy-status against the mock, about the real sidecar', () => {
  it('SYNCED once Envoy ACKed, the same as mock-istiod proxy-status; the short table too', async () => {
    const lab = await labs.start();
    await lab.agent.envoy.waitForLive({ timeoutMs: 30_000 });
    await lab.istiod.waitForAck(LISTENER_TYPE);
    await expectBothSay(lab, { CDS: 'SYNCED', LDS: 'SYNCED', EDS: 'IGNORED', RDS: 'IGNORED' });

    const short = await runIstioctl([
      ...['proxy-status', '-r', 'default', '--xds-address', lab.istiod.xdsAddress],
      ...['--cert-dir', await certDirOf(lab), '--authority', 'istiod.istio-system.svc'],
    ]);
    expect(parseTable(short.stdout)).toEqual([
      {
        NAME: 'orders-v1-0.default',
        CLUSTER: 'Kubernetes',
        ISTIOD: 'mock-istiod',
        VERSION: expect.any(String) as string,
        'SUBSCRIBED TYPES': '2 (CDS,LDS)',
      },
    ]);
  });

  it('NOT SENT while the mock withholds, then SYNCED after release', async () => {
    const lab = await labs.start({ mock: { withholdFirst: true } });
    await lab.istiod.waitForRequest('CDS');
    await expectBothSay(lab, { CDS: 'NOT SENT' });

    await lab.istiod.control.release();
    await lab.istiod.waitForAck(LISTENER_TYPE);
    await expectBothSay(lab, { CDS: 'SYNCED', LDS: 'SYNCED' });
  });

  it('STALE while a pushed response waits for the ACK of a paused Envoy', async () => {
    const lab = await labs.start();
    await lab.agent.envoy.waitForLive({ timeoutMs: 30_000 });
    await lab.istiod.waitForAck(LISTENER_TYPE);
    await lab.istiod.waitForAck(CLUSTER_TYPE);
    const envoyPid = pilotAgentsEnvoy(lab);
    process.kill(envoyPid, 'SIGSTOP');
    try {
      // A new cluster: as istiod's full push, the mock pushes CDS and LDS at one new version
      // (conformance: "Pushes"), and nobody ACKs.
      await lab.istiod.control.setResources({ resources: withNewVersion(lab) });
      await waitFor(
        async () => {
          const statuses = await mockStatuses(lab);
          return statuses.CDS === 'STALE' && statuses.LDS === 'STALE';
        },
        { description: 'the CDS and LDS pushes to be out and unanswered' },
      );
      await expectBothSay(lab, { CDS: 'STALE', LDS: 'STALE' });
    } finally {
      process.kill(envoyPid, 'SIGCONT');
    }
    await waitFor(
      async () => {
        const statuses = await mockStatuses(lab);
        return statuses.CDS === 'SYNCED' && statuses.LDS === 'SYNCED';
      },
      { description: 'the resumed Envoy to ACK' },
    );
    await expectBothSay(lab, { CDS: 'SYNCED', LDS: 'SYNCED' });
  });
});
