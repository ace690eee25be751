/**
 * The cluster's images (scripts/build-cluster-images.sh, docs/cluster-images.md), built by the
 * script and run with podman, each in a network namespace of its own or on the host's loopback
 * (nothing leaves the machine): pause
 * stays up and exits 0 on SIGTERM; the lab app answers `ok:8080 /x` to its own `fetch`; the
 * proxy image runs pilot-agent, the pinned Envoy and both iptables variants, knows uid 1337 as
 * istio-proxy, holds Istio's bootstrap template, and its `pilot-agent istio-iptables` (the
 * injected istio-init) writes its rules into a pod-like namespace shared with pause (on
 * podman's local bridge, as a pod has an address on the node's bridge); and its sidecar, run
 * as the template runs it (uid 1337, read-only root, the template's volumes), starts the
 * image's Envoy against a mock on loopback to ready without an error. A second
 * run with nothing changed rebuilds nothing, and the archive holds every image. Without
 * podman, mmdebstrap, runc, Go, pause, pilot-agent or Envoy the test fails naming the install
 * command.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PINNED_ENVOY_VERSION } from '../../src/envoy/find-envoy.js';
import { findIstio } from '../../src/envoy/find-istio.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { startMockIstiod } from '../../src/testing/start.js';
import { freePort, freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import {
  buildClusterImages,
  requireClusterImageInputs,
  sidecarContainerArgs,
  type BuildRun,
} from '../support/harness/cluster-images.js';
import { goBinary } from '../support/harness/go-build.js';
import { requireImageTools, usePodman } from '../support/harness/image.js';
import { freeLabPorts } from '../support/harness/lab.js';
import { POD_ENV } from '../support/harness/real-agent.js';

const run = promisify(execFile);
const NAME = `mock-istiod-cluster-e2e-${process.pid}`;
const work = mkdtempSync(join(tmpdir(), 'mock-istiod-cluster-images-'));
const archive = join(work, 'images.tar');
const containers: string[] = [];

let podman: ReturnType<typeof usePodman>;
let built: BuildRun;

beforeAll(async () => {
  requireImageTools();
  goBinary('the cluster images test');
  requireClusterImageInputs();
  podman = usePodman();
  built = await buildClusterImages(archive);
  console.log(`cluster images: built in ${(built.ms / 1000).toFixed(1)} s`);
}, 900_000);

afterAll(async () => {
  for (const name of containers) {
    await podman?.podman(['rm', '--force', '--ignore', name]).catch(() => undefined);
  }
  podman?.dispose();
  rmSync(work, { recursive: true, force: true });
});

/** A container name this file removes at the end. */
function named(suffix: string): string {
  const name = `${NAME}-${suffix}`;
  containers.push(name);
  return name;
}

/**
 * `podman run --rm <extra> [--entrypoint e] <image> <args>`: its stdout and stderr. The
 * container gets a network namespace of its own unless `extra` names one.
 */
async function runIn(
  image: string,
  entrypoint: string | undefined,
  args: string[],
  extra: string[] = [],
) {
  const { stdout, stderr } = await run(
    'podman',
    [
      'run',
      '--rm',
      ...(extra.includes('--network') ? [] : ['--network=none']),
      ...extra,
      ...(entrypoint ? ['--entrypoint', entrypoint] : []),
      image,
      ...args,
    ],
    { env: podman.env, timeout: 30_000 },
  );
  return `${stdout}${stderr}`;
}

async function state(name: string): Promise<{ Running: boolean; ExitCode: number }> {
  return JSON.parse(await podman.podman(['inspect', '--format', '{{json .State}}', name])) as {
    Running: boolean;
    ExitCode: number;
  };
}

async function fileIn(image: string, path: string): Promise<string> {
  const name = named(`cp-${path.replaceAll('/', '-')}`);
  await podman.podman(['create', '--name', name, image]);
  const out = join(work, name);
  await podman.podman(['cp', `${name}:${path}`, out]);
  await podman.podman(['rm', name]);
  return readFileSync(out, 'utf8');
}

test('pause stays up, answers SIGTERM with exit 0, and is nothing but /pause', async () => {
  const name = named('pause');
  const image = built.images.pause;
  const [config] = JSON.parse(await podman.podman(['image', 'inspect', image])) as {
    Config: { Entrypoint: string[]; User: string };
    RootFS: { Layers: string[] };
  }[];
  expect(config!.Config).toMatchObject({ Entrypoint: ['/pause'], User: '65535:65535' });
  expect(config!.RootFS.Layers).toHaveLength(1);
  await podman.podman(['run', '--detach', '--network=none', '--name', name, image]);
  await waitFor(async () => (await state(name)).Running, {
    timeoutMs: 10_000,
    description: 'the pause container to be running',
  });
  const started = performance.now();
  await podman.podman(['stop', '--time', '10', name]);
  // Exit code 0 within the grace period: it handled SIGTERM (a SIGKILL would give 137).
  expect(await state(name)).toMatchObject({ Running: false, ExitCode: 0 });
  expect(performance.now() - started).toBeLessThan(9_000);
});

test('lab-app serves ok:8080 by default and its fetch subcommand is the client', async () => {
  const name = named('lab-app');
  await podman.podman([
    'run',
    '--detach',
    '--network=none',
    '--name',
    name,
    built.images['lab-app'],
  ]);
  const fetched = await waitFor(
    () => podman.podman(['exec', name, 'lab-app', 'fetch', 'http://127.0.0.1:8080/x']),
    { timeoutMs: 10_000, description: 'lab-app fetch to get an answer inside the container' },
  );
  expect(fetched).toBe('200\nok:8080 /x\n');
  expect(await podman.podman(['logs', name])).toContain('lab app (ok) listening on');
  const refused = await podman
    .podman(['exec', name, 'lab-app', 'fetch', 'http://127.0.0.1:1/'])
    .then(
      () => 'answered',
      (err: { stderr?: string }) => err.stderr ?? '',
    );
  expect(refused).toContain('connection refused');
  await podman.podman(['stop', '--time', '10', name]);
  expect(await state(name)).toMatchObject({ ExitCode: 0 });
});

describe('istio-proxy', () => {
  const image = () => built.images['istio-proxy'];

  test("is laid out as proxyv2: pilot-agent's entrypoint, the pinned Envoy, the template", async () => {
    const [config] = JSON.parse(await podman.podman(['image', 'inspect', image()])) as {
      Config: { Entrypoint: string[]; User?: string; Env: string[] };
    }[];
    expect(config!.Config.Entrypoint).toEqual(['/usr/local/bin/pilot-agent']);
    expect(config!.Config.User ?? '').toBe('');
    expect(await runIn(image(), undefined, ['version'])).toMatch(/version\.BuildInfo|\d+\.\d+/);
    expect(await runIn(image(), '/usr/local/bin/envoy', ['--version'])).toContain(
      `/${PINNED_ENVOY_VERSION}/`,
    );
    const template = await fileIn(image(), '/var/lib/istio/envoy/envoy_bootstrap_tmpl.json');
    expect(template).toBe(readFileSync(findIstio().bootstrapTemplate, 'utf8'));
  });

  test('carries iptables and ip6tables, legacy and nft, each with -save and -restore', async () => {
    for (const family of ['iptables', 'ip6tables']) {
      for (const [variant, says] of [
        ['legacy', '(legacy)'],
        ['nft', '(nf_tables)'],
      ] as const) {
        for (const tool of ['', '-save', '-restore']) {
          const binary = `/usr/sbin/${family}-${variant}${tool}`;
          expect(await runIn(image(), binary, ['-V']), binary).toContain(`v1.8`);
          expect(await runIn(image(), binary, ['-V']), binary).toContain(says);
        }
      }
      // The plain names follow Istio's base image: nft.
      expect(await runIn(image(), family, ['-V'])).toContain('(nf_tables)');
    }
  });

  test('knows uid 1337 as istio-proxy, and pilot-agent runs as that user', async () => {
    expect(await fileIn(image(), '/etc/passwd')).toContain(
      'istio-proxy:x:1337:1337:istio-proxy:/nonexistent:',
    );
    expect(await fileIn(image(), '/etc/group')).toContain('istio-proxy:x:1337:');
    // podman resolves the name from the image's own /etc/passwd.
    const out = await runIn(image(), undefined, ['version'], ['--user', 'istio-proxy']);
    expect(out).toMatch(/version\.BuildInfo|\d+\.\d+/);
  });

  test("istio-init's `pilot-agent istio-iptables` writes its rules into a pod's namespace", async () => {
    const sandbox = named('sandbox');
    // istio-iptables wants an address besides loopback: the sandbox gets one on podman's
    // local bridge, in a namespace of its own (nothing is sent anywhere).
    await podman.podman([
      'run',
      '--detach',
      '--network=bridge',
      '--name',
      sandbox,
      built.images.pause,
    ]);
    const pod = ['--network', `container:${sandbox}`, '--cap-add', 'NET_ADMIN,NET_RAW'];
    // The injection template's istio-init arguments (REDIRECT mode).
    await runIn(
      image(),
      undefined,
      [
        'istio-iptables',
        ...['-p', '15001', '-z', '15006', '-u', '1337', '-m', 'REDIRECT'],
        ...['-i', '*', '-x', '', '-b', '*', '-d', '15090,15021,15020'],
        '--log_output_level=default:info',
      ],
      pod,
    );
    const rules = await runIn(image(), 'iptables-save', [], pod);
    expect(rules).toContain('Generated by iptables-save v1.8.9 (nf_tables)');
    expect(rules).toContain('-A ISTIO_IN_REDIRECT -p tcp -j REDIRECT --to-ports 15006');
    expect(rules).toContain('-A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001');
    expect(rules).toMatch(/ISTIO_OUTPUT .*--uid-owner 1337 -j RETURN/);
    await podman.podman(['stop', '--time', '10', sandbox]);
  });

  test("the sidecar runs as in a pod: pilot-agent as 1337 on a read-only root starts the image's Envoy against the mock", async () => {
    const istiod = await startMockIstiod({
      tls: true,
      resources: makeLabResources(await freeLabPorts(await freePort())),
    });
    const name = named('sidecar');
    try {
      const [admin, status, readiness, prometheus] = (await freePorts(4)) as [
        number,
        number,
        number,
        number,
      ];
      const sidecar = sidecarContainerArgs({
        dir: work,
        discoveryAddress: istiod.xdsAddress,
        rootCert: istiod.security.rootCert,
        token: istiod.security.createToken({
          namespace: POD_ENV.POD_NAMESPACE,
          serviceAccount: POD_ENV.SERVICE_ACCOUNT,
        }).token,
        ports: { admin, status, readiness, prometheus },
      });
      await podman.podman([
        ...['run', '--detach', '--name', name, ...sidecar.options],
        image(),
        ...sidecar.command,
      ]);
      const ready = await waitFor(
        async () => {
          const res = await fetch(`http://127.0.0.1:${readiness}/healthz/ready`);
          return res.status === 200 ? res.status : undefined;
        },
        {
          timeoutMs: 30_000,
          description: "the sidecar's Envoy to be ready (15021's /healthz/ready answering 200)",
        },
      ).catch(async (err: Error) => {
        const logs = await podman.podman(['logs', name]).catch(() => '(no logs)');
        throw new Error(`${err.message}\nthe container's log ends:\n${logs.slice(-4000)}`);
      });
      expect(ready).toBe(200);
      const info = (await (await fetch(`http://127.0.0.1:${admin}/server_info`)).json()) as {
        version: string;
        state: string;
      };
      expect(info).toMatchObject({ state: 'LIVE' });
      expect(info.version).toContain(`/${PINNED_ENVOY_VERSION}/`);
      expect((await fetch(`http://127.0.0.1:${status}/healthz/ready`)).status).toBe(200);
      const logs = await podman.podman(['logs', name]);
      // Nothing in the layout is missing: pilot-agent logs no error.
      expect(logs.split('\n').filter((line) => line.includes('\terror\t'))).toEqual([]);
      expect(logs).toContain('Envoy proxy is ready');
      await podman.podman(['stop', '--time', '10', name]);
      expect(await state(name)).toMatchObject({ Running: false, ExitCode: 0 });
    } finally {
      await podman.podman(['rm', '--force', '--ignore', name]).catch(() => undefined);
      await istiod.close();
    }
  }, 90_000);
});

test('a second run rebuilds nothing, takes seconds and keeps the archive, which holds every image', async () => {
  const again = await buildClusterImages(archive);
  console.log(`cluster images: second run in ${(again.ms / 1000).toFixed(1)} s`);
  expect(again.images).toEqual(built.images);
  expect(again.stderr).toContain('is up to date: not rebuilt');
  expect(again.stderr).toContain('holds these images already');
  expect(again.ms).toBeLessThan(20_000);
  const { stdout } = await run('tar', ['-xOf', archive, 'manifest.json']);
  const tags = (JSON.parse(stdout) as { RepoTags: string[] }[]).flatMap((m) => m.RepoTags);
  const { pause, 'lab-app': labApp, 'istio-proxy': proxy, 'istiod-ref': istiodRef } = built.images;
  const named = [pause, labApp, proxy, built.proxyAlias, istiodRef];
  // Each also as :latest, for hand-written manifests (docs/kubernetes.md).
  const latest = named.map((name) => name.replace(/:[^:/]+$/, ':latest'));
  expect(tags.sort()).toEqual([...named, ...latest].sort());
}, 120_000);
