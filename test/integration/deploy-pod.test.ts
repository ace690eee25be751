/**
 * The Deployment of deploy/ as a kubelet would start it, minus the cluster: its args and
 * environment, unchanged but for addresses (loopback, free ports) and mount paths; its Secret
 * made by `mock-istiod certs`; its ConfigMap volumes laid out as the kubelet lays them out
 * (`..data` a symlink to a timestamped directory, each key a symlink through it, an update
 * swapping `..data` in one rename). What a schema cannot tell: the flags are real, the mock
 * reads the read-only volumes, its certificate names the Service, and it follows an update.
 */
import {
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
  readdirSync,
  readFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { JSON_LOGS, logLines, useCli, waitForServing } from '../support/cli.js';
import { manifest, readManifests, type Manifest } from '../support/deploy-manifests.js';

const all = readManifests();
const deployment = manifest<IDeployment & Manifest>(all, 'Deployment', 'mock-istiod');
const pod = deployment.spec!.template.spec!;
const container = pod.containers[0]!;
const configData = manifest<Manifest & { data: Record<string, string> }>(
  all,
  'ConfigMap',
  'mock-istiod-config',
).data;

const root = mkdtempSync(join(tmpdir(), 'mock-istiod-pod-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A volume as the kubelet writes it: files in `..<version>`, reached through `..data`. */
function writeVolume(dir: string, files: Record<string, string>, version: string, mode = 0o444) {
  mkdirSync(join(dir, version), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, version, name), text);
    chmodSync(join(dir, version, name), mode);
  }
  symlinkSync(version, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data')); // the atomic swap
  for (const name of Object.keys(files)) {
    try {
      symlinkSync(join('..data', name), join(dir, name));
    } catch {
      // already linked by an earlier version
    }
  }
}

function configItems(volume: string): Record<string, string> {
  const items = pod.volumes!.find((v) => v.name === volume)!.configMap!.items!;
  return Object.fromEntries(items.map((i) => [i.path, configData[i.key]!]));
}

/** The container's args and env with mount paths moved under `root` and loopback addresses. */
function podCommand(mounts: Record<string, string>, token: string) {
  // One pass, longest path first, so that a moved path is never moved again.
  const paths = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(
    paths.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
    'g',
  );
  const move = (text: string) => text.replace(pattern, (path) => mounts[path]!);
  const env: Record<string, string> = {};
  for (const e of container.env!) {
    if (e.valueFrom)
      env[e.name] = token; // the only secretKeyRef: the control token
    else if (e.name.endsWith('_HOST'))
      env[e.name] = '127.0.0.1'; // 0.0.0.0 in the pod
    else if (e.name.endsWith('_PORT')) env[e.name] = '0';
    else env[e.name] = move(e.value ?? '');
  }
  return { args: container.args!.map(move), env };
}

describe("deploy/'s Deployment, run as its pod would be", () => {
  const cli = useCli();
  const token = 'pod-test-token';

  it('serves TLS for the Service name from the Secret, reads the ConfigMap, follows an update', async () => {
    const mounts = Object.fromEntries(
      container.volumeMounts!.map((m) => [m.mountPath, join(root, m.name)]),
    );
    // The Secret: what `mock-istiod certs` made, read-only as the kubelet mounts it.
    const made = join(root, 'certs');
    const certs = await cli.run([
      'certs',
      '--tls-dir',
      made,
      '--tls-host',
      'mock-istiod.istio-system.svc',
    ]);
    expect(certs.code, certs.stderr).toBe(0);
    const secret = Object.fromEntries(
      readdirSync(made).map((name) => [name, readFileSync(join(made, name), 'utf8')]),
    );
    writeVolume(join(root, 'tls'), secret, '..2026_01_01_00_00_00.1', 0o440);
    writeVolume(join(root, 'resources'), configItems('resources'), '..2026_01_01_00_00_00.1');
    writeVolume(join(root, 'scenarios'), configItems('scenarios'), '..2026_01_01_00_00_00.1');
    for (const volume of ['tls', 'resources', 'scenarios']) chmodSync(join(root, volume), 0o555);

    const { args, env } = podCommand(mounts, token);
    const run = cli.start([...args, ...JSON_LOGS], { podEnv: env });
    const serving = await waitForServing(run).catch((err: Error) => {
      throw new Error(`${err.message}\nstderr: ${run.stderr()}\nstdout: ${run.stdout()}`);
    });
    const control = `http://127.0.0.1:${serving.control!.port}`;
    expect(logLines(run).map((l) => l.msg)).toContain(
      "xDS is served over TLS: Envoy's validation_context must trust the root certificate",
    );

    // The control API: the token from the Secret, or 401.
    expect((await fetch(`${control}/ready`)).status).toBe(401);
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect(await (await fetch(`${control}/ready`, auth)).json()).toEqual({ ready: true });

    // A sidecar dialing mock-istiod.istio-system.svc:15012 with the Secret's root trusts it.
    const [, port] = /:(\d+)$/.exec(serving.xds)!;
    const socket = connect({
      host: '127.0.0.1',
      port: Number(port),
      servername: 'mock-istiod.istio-system.svc',
      ca: secret['root-cert.pem'],
      ALPNProtocols: ['h2'],
    });
    await once(socket, 'secureConnect');
    const peer: PeerCertificate = socket.getPeerCertificate();
    socket.destroy();
    expect(socket.authorized).toBe(true);
    expect(peer.subjectaltname).toContain('DNS:istiod.istio-system.svc');
    expect(peer.subjectaltname).toContain('DNS:mock-istiod.istio-system.svc');

    // The ConfigMap's resources are served from its volume...
    const status = async () =>
      (await (await fetch(`${control}/debug/resources`, auth)).json()) as {
        source: string;
        loadedAt: string;
      };
    const served = async () => await (await fetch(`${control}/control/resources`, auth)).text();
    const first = await status();
    expect(first.source).toBe(join(root, 'resources'));
    expect(await served()).toContain('inbound|8080||');
    // ...and an edited ConfigMap, swapped in as the kubelet does, is reloaded.
    const edited = stringify({
      resources: makeLabResources({
        listenerAddress: '0.0.0.0',
        outboundPort: 15001,
        appPort: 9090,
      }),
    });
    chmodSync(join(root, 'resources'), 0o755);
    writeVolume(join(root, 'resources'), { 'resources.yaml': edited }, '..2026_01_01_00_01_00.2');
    await waitFor(async () => (await served()).includes('inbound|9090||'), {
      timeoutMs: 10_000,
      description: 'the mock serving the swapped ConfigMap',
    });
    expect((await status()).loadedAt).not.toBe(first.loadedAt);
  });

  it('mock-istiod certs: a mistake is one line and exit 2, and nothing is written', async () => {
    const none = await cli.run(['certs'], { podEnv: {} });
    expect([none.code, none.stderr.trim()]).toEqual([
      2,
      'mock-istiod: --tls-dir: expected a directory (see: mock-istiod --help)',
    ]);
    const half = join(root, 'half');
    mkdirSync(half);
    writeFileSync(join(half, 'key.pem'), 'not a key');
    const bad = await cli.run(['certs', '--tls-dir', half]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid TLS directory');
    expect(bad.stderr).toContain('root-cert.pem');
    expect(bad.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(readdirSync(half)).toEqual(['key.pem']);
  });
});
