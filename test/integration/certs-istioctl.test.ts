/**
 * `mock-istiod certs --for istioctl`: istioctl's own identity from a TLS directory's CA (the
 * three files of its --cert-dir), with the identity asked for; a mistake is one line, exit 2,
 * and nothing is written. docs/real-istio.md §3 runs it with the real istioctl
 * (test/e2e/docs-real.test.ts).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCli } from '../support/fixtures/cli.js';

const cli = useCli();
let root: string;
let tls: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mock-istiod-certs-istioctl-'));
  tls = join(root, 'tls');
  const made = await cli.run(['certs', '--tls-dir', tls]);
  expect(made.code, made.stderr).toBe(0);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function leafOf(dir: string): { leaf: X509Certificate; rootCert: X509Certificate } {
  return {
    leaf: new X509Certificate(readFileSync(join(dir, 'cert-chain.pem'))),
    rootCert: new X509Certificate(readFileSync(join(dir, 'root-cert.pem'))),
  };
}

describe('certs --for istioctl', () => {
  it("writes istio-system/default's certificate, its key and the root, signed by the CA", async () => {
    const out = join(root, 'istioctl-certs');
    const run = await cli.run(['certs', '--for', 'istioctl', '--tls-dir', tls, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(out);
    expect(run.stderr.trim()).toBe(
      `issued spiffe://cluster.local/ns/istio-system/sa/default from ${join(tls, 'root-cert.pem')}`,
    );
    const { leaf, rootCert } = leafOf(out);
    expect(readFileSync(join(out, 'root-cert.pem'), 'utf8')).toBe(
      readFileSync(join(tls, 'root-cert.pem'), 'utf8'),
    );
    expect(leaf.verify(rootCert.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.subjectAltName).toBe('URI:spiffe://cluster.local/ns/istio-system/sa/default');
    expect(leaf.keyUsage).toContain('1.3.6.1.5.5.7.3.2'); // clientAuth
    const key = readFileSync(join(out, 'key.pem'), 'utf8');
    expect(leaf.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(statSync(join(out, 'key.pem')).mode & 0o777).toBe(0o600);
    const hours = (Date.parse(leaf.validTo) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23);
    expect(hours).toBeLessThanOrEqual(24);
  });

  it('names the namespace, service account and trust domain asked for, and the lifetime', async () => {
    const out = join(root, 'other');
    const run = await cli.run([
      ...['certs', '--for', 'istioctl', '--tls-dir', tls, '--out', out],
      ...['--ns', 'default', '--sa', 'orders', '--trust-domain', 'example.org', '--ttl', '2h'],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const { leaf } = leafOf(out);
    expect(leaf.subjectAltName).toBe('URI:spiffe://example.org/ns/default/sa/orders');
    const hours = (Date.parse(leaf.validTo) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(1.9);
    expect(hours).toBeLessThanOrEqual(2);
  });

  it('a mistake is one line naming the flag, exit 2, and nothing is written', async () => {
    const out = join(root, 'never');
    const cases: [string[], string][] = [
      [['--for', 'kubectl', '--out', out], '--for: expected istioctl, got "kubectl"'],
      [['--for', 'istioctl'], "--out: expected the directory to write istioctl's files to"],
      [
        ['--for', 'istioctl', '--out', out, '--ns', 'Not_A_Name'],
        '--ns: expected a Kubernetes namespace name (a DNS label)',
      ],
      [
        ['--for', 'istioctl', '--out', out, '--ttl', 'soon'],
        '--ttl: expected a duration such as 1h or 30d, got "soon"',
      ],
      [
        ['--for', 'istioctl', '--out', out, '--tls-host', 'x'],
        '--tls-host: not with --for (it names serving hosts)',
      ],
      [['--out', out], '--out: only with --for istioctl'],
      [
        ['--for', 'istioctl', '--out', out, '--tls-dir', join(root, 'none')],
        `--tls-dir: ${join(root, 'none', 'root-cert.pem')} and ${join(root, 'none', 'ca-key.pem')} not found: start the mock with \`mock-istiod serve --tls-dir ${join(root, 'none')}\` first (it makes them), or name its --tls-dir`,
      ],
    ];
    for (const [args, message] of cases) {
      const withDir =
        args.includes('--tls-dir') || !args.includes('--for') ? args : [...args, '--tls-dir', tls];
      const run = await cli.run(['certs', ...withDir]);
      expect([run.code, run.stderr.trim()]).toEqual([
        2,
        `mock-istiod: ${message} (see: mock-istiod --help)`,
      ]);
    }
    expect(existsSync(out)).toBe(false);
  });
});
