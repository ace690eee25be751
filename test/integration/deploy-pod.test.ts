/**
 * The Deployment of deploy/ run as its pod would be (test/support/harness/deploy-pod.ts). What a
 * schema cannot tell: the flags are real, the mock reads the read-only volumes, its
 * certificate names the Service, and it follows a ConfigMap update swapped in as the kubelet
 * swaps it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { JSON_LOGS, logLines, useCli, waitForServing } from '../support/fixtures/cli.js';
import { container, layOutPod, SERVICE_HOST, writeVolume } from '../support/harness/deploy-pod.js';

const root = mkdtempSync(join(tmpdir(), 'mock-istiod-pod-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("deploy/'s Deployment, run as its pod would be", () => {
  const cli = useCli();
  const token = 'pod-test-token';

  it('serves TLS for the Service name from the Secret, reads the ConfigMap, follows an update', async () => {
    const { args, env, secret, volumes } = await layOutPod(root, cli, { token });
    const run = cli.start([...args, ...JSON_LOGS], { podEnv: env });
    const serving = await waitForServing(run).catch((err: Error) => {
      throw new Error(`${err.message}\nstderr: ${run.stderr()}\nstdout: ${run.stdout()}`);
    });
    const control = `http://127.0.0.1:${serving.control!.port}`;
    // Logged just after the serving line: wait for it rather than read the log once.
    const tlsLine =
      "xDS is served over TLS: Envoy's validation_context must trust the root certificate";
    await waitFor(() => logLines(run).some((l) => l.msg === tlsLine), {
      description: 'the TLS line in the log',
    });

    // The probes' own paths answer a kubelet, which sends no token...
    for (const probe of [container.readinessProbe, container.livenessProbe]) {
      const answer = await fetch(`${control}${probe!.httpGet!.path!}`);
      expect(answer.status, probe!.httpGet!.path).toBe(200);
    }
    // ...and the rest of the control API needs the token from the Secret, or 401.
    expect((await fetch(`${control}/control/state`)).status).toBe(401);
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect((await fetch(`${control}/control/state`, auth)).status).toBe(200);

    // A sidecar dialing mock-istiod.istio-system.svc:15012 with the Secret's root trusts it.
    const [, port] = /:(\d+)$/.exec(serving.xds)!;
    const socket = connect({
      host: '127.0.0.1',
      port: Number(port),
      servername: SERVICE_HOST,
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
    expect(first.source).toBe(volumes['resources']);
    expect(await served()).toContain('inbound|8080||');
    // ...and an edited ConfigMap, swapped in as the kubelet does, is reloaded.
    const edited = stringify({
      resources: makeLabResources({
        listenerAddress: '0.0.0.0',
        outboundPort: 15001,
        appPort: 9090,
      }),
    });
    chmodSync(volumes['resources']!, 0o755);
    writeVolume(volumes['resources']!, { 'resources.yaml': edited }, '..2026_01_01_00_01_00.2');
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
