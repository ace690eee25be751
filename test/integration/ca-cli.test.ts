/**
 * The command line of TLS and the CA: `serve --tls-dir` writes the directory and serves 15012
 * over TLS; `token` mints tokens through the running mock's control API, or offline from the
 * directory's key; the CA accepts the one and refuses a wrong audience; user mistakes are one
 * line and exit code 2.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { freePorts } from '../../src/util/ports.js';
import { TLS_FILES } from '../../src/tls/tls-files.js';
import { caClient, createCertificate, makeCsr } from '../support/fixtures/ca.js';
import {
  FREE_SERVE_PORTS,
  JSON_LOGS,
  logLines,
  useCli,
  waitForServing,
} from '../support/fixtures/cli.js';

const cli = useCli();
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

describe('serve --tls-dir and token', () => {
  it('serves TLS from the directory; tokens from the control API and from the key file work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-ca-cli-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const serve = cli.start(['serve', '--tls-dir', dir, ...FREE_SERVE_PORTS, ...JSON_LOGS]);
    const serving = await waitForServing(serve, 20_000);
    const rootCertPath = join(dir, TLS_FILES.rootCert);
    expect(logLines(serve).find((l) => l.rootCert !== undefined)?.rootCert).toBe(rootCertPath);
    for (const file of Object.values(TLS_FILES)) expect(existsSync(join(dir, file))).toBe(true);

    const client = caClient(serving.xds, readFileSync(rootCertPath, 'utf8'));
    cleanups.push(() => client.close());
    const port = String(serving.control?.port);
    const fromApi = await cli.run([
      'token',
      '--control-port',
      port,
      '--ns',
      'shop',
      '--sa',
      'orders',
      '--json',
    ]);
    expect(fromApi.code).toBe(0);
    const minted = JSON.parse(fromApi.stdout) as { token: string; subject: string };
    expect(minted.subject).toBe('system:serviceaccount:shop:orders');
    const good = await createCertificate(client, { csr: await makeCsr() }, minted.token);
    if (!good.ok) throw new Error(good.details);
    expect(new X509Certificate(good.chain[0] as string).subjectAltName).toBe(
      'URI:spiffe://cluster.local/ns/shop/sa/orders',
    );

    const offline = await cli.run(['token', '--tls-dir', dir, '--sa', 'api', '--ttl', '10m']);
    expect(offline.code).toBe(0);
    const accepted = await createCertificate(
      client,
      { csr: await makeCsr() },
      offline.stdout.trim(),
    );
    expect(accepted.ok).toBe(true);

    const wrong = await cli.run(['token', '--tls-dir', dir, '--aud', 'kubernetes.default.svc']);
    const refused = await createCertificate(client, { csr: await makeCsr() }, wrong.stdout.trim());
    expect(refused).toMatchObject({
      ok: false,
      code: grpc.status.UNAUTHENTICATED,
      details: 'request authenticate failure',
    });

    serve.child.kill('SIGTERM');
    expect(await serve.exited()).toBe(0);
  });
});

describe('serve --plaintext-ca and --xds-auth', () => {
  it('a plaintext mock refuses CSRs unless --plaintext-ca', async () => {
    const refusing = cli.start(['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS]);
    const plain = await waitForServing(refusing, 20_000);
    const { token } = JSON.parse(
      (await cli.run(['token', '--control-port', String(plain.control?.port), '--json'])).stdout,
    ) as { token: string };
    const client = caClient(plain.xds);
    cleanups.push(() => client.close());
    expect(await createCertificate(client, { csr: await makeCsr() }, token)).toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
    });
    refusing.child.kill('SIGTERM');
    expect(await refusing.exited()).toBe(0);

    const signing = cli.start(['serve', '--plaintext-ca', ...FREE_SERVE_PORTS, ...JSON_LOGS]);
    const allowed = await waitForServing(signing, 20_000);
    const other = caClient(allowed.xds);
    cleanups.push(() => other.close());
    const minted = JSON.parse(
      (await cli.run(['token', '--control-port', String(allowed.control?.port), '--json'])).stdout,
    ) as { token: string };
    expect((await createCertificate(other, { csr: await makeCsr() }, minted.token)).ok).toBe(true);
    signing.child.kill('SIGTERM');
    expect(await signing.exited()).toBe(0);
  });
});

describe('token mistakes', () => {
  it.each([
    [
      ['token', '--ns', 'Shop', '--tls-dir', '.'],
      2,
      'mock-istiod: --ns: expected a Kubernetes namespace name (a DNS label)',
    ],
    [
      ['token', '--ttl', 'soon'],
      2,
      'mock-istiod: --ttl: expected a duration such as 10m or 2h, got "soon"',
    ],
    [
      ['serve', '--xds-auth', 'maybe'],
      2,
      'mock-istiod: --xds-auth: expected on or off, got "maybe"',
    ],
    [
      ['token', '--tls-dir', '/nonexistent/dir'],
      2,
      'mock-istiod: --tls-dir: /nonexistent/dir/jwt-key.pem cannot be read',
    ],
  ])('%j: one line, exit %i', async (args, code, message) => {
    const run = await cli.run(args);
    expect(run.code).toBe(code);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(message);
  });

  it('says so in one line, exit 1, when no mock answers', async () => {
    const [port] = (await freePorts(1)) as [number];
    const run = await cli.run(['token', '--control-port', String(port)]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`cannot reach mock-istiod at 127.0.0.1:${port} (ECONNREFUSED)`);
  });
});
