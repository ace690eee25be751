/**
 * The TLS directory: an empty one is filled (keys private to the user), a filled one is
 * reused as is, a user's own CA issues the serving certificate, and files that do not fit
 * together are reported by name, all at once.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRootCa } from '../../src/tls/pki.js';
import { resolveSecurityOptions } from '../../src/ca/security-options.js';
import { prepareTlsMaterial, type TlsMaterial } from '../../src/tls/tls-material.js';
import { TLS_FILES } from '../../src/tls/tls-files.js';
import type { Problem } from '../../src/util/problems.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-tls-unit-'));
  dirs.push(dir);
  return dir;
}

const options = (dir: string | undefined) => ({
  dir,
  hosts: ['istiod.istio-system.svc', 'localhost'],
  trustDomain: 'cluster.local',
});

async function load(dir: string | undefined): Promise<TlsMaterial> {
  const result = await prepareTlsMaterial(options(dir));
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.value;
}

async function problems(dir: string): Promise<Problem[]> {
  const result = await prepareTlsMaterial(options(dir));
  return result.ok ? [] : result.problems;
}

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

describe('TLS material', () => {
  it('in memory: a CA, a serving certificate it signed, a token key, and no files', async () => {
    const material = await load(undefined);
    const leaf = new X509Certificate(material.certChainPem);
    expect(leaf.verify(new X509Certificate(material.rootCertPem).publicKey)).toBe(true);
    expect(material.ca).toBeDefined();
    expect(material.dir).toBeUndefined();
    expect(material.notes).toEqual([]);
  });

  it('fills an empty directory (keys readable by the user only), then reuses it as is', async () => {
    const dir = join(tempDir(), 'nested', 'tls');
    const first = await load(dir);
    for (const file of Object.values(TLS_FILES)) {
      expect(first.notes).toContain(`wrote ${join(dir, file)}`);
    }
    for (const secret of [TLS_FILES.key, TLS_FILES.caKey, TLS_FILES.jwtKey]) {
      expect(statSync(join(dir, secret)).mode & 0o077).toBe(0);
    }
    expect(readFileSync(join(dir, TLS_FILES.rootCert), 'utf8')).toBe(first.rootCertPem);

    const second = await load(dir);
    expect(second.notes).toEqual([]);
    expect(fingerprint(second.rootCertPem)).toBe(fingerprint(first.rootCertPem));
    expect(fingerprint(second.certChainPem)).toBe(fingerprint(first.certChainPem));
    expect(second.jwtKey.equals(first.jwtKey)).toBe(true);
  });

  it("issues the serving certificate from a user's own CA (root-cert.pem and ca-key.pem)", async () => {
    const dir = tempDir();
    const own = await createRootCa('corp.example');
    writeFileSync(join(dir, TLS_FILES.rootCert), own.certPem);
    writeFileSync(join(dir, TLS_FILES.caKey), own.keyPem);
    const material = await load(dir);
    const leaf = new X509Certificate(material.certChainPem);
    expect(leaf.verify(new X509Certificate(own.certPem).publicKey)).toBe(true);
    expect(material.notes).toContain(`wrote ${join(dir, TLS_FILES.certChain)}`);
  });

  it('serves a given serving certificate without a CA key, noting that it cannot sign', async () => {
    const dir = tempDir();
    await load(dir);
    unlinkSync(join(dir, TLS_FILES.caKey));
    const material = await load(dir);
    expect(material.ca).toBeUndefined();
    expect(material.notes).toEqual([
      `${join(dir, TLS_FILES.caKey)} is missing: the CA service cannot sign (CreateCertificate answers INTERNAL)`,
    ]);
  });

  it('notes a name a reused serving certificate lacks (Envoy would refuse it)', async () => {
    const dir = tempDir();
    await load(dir);
    const result = await prepareTlsMaterial({
      ...options(dir),
      hosts: ['localhost', 'mock.test'],
    });
    expect(result.ok && result.value.notes).toEqual([
      `${join(dir, TLS_FILES.certChain)} does not name mock.test: delete it and key.pem to have one made that does`,
    ]);
  });

  it('names every file that does not fit', async () => {
    const dir = tempDir();
    await load(dir);
    const stranger = await createRootCa('elsewhere');
    writeFileSync(join(dir, TLS_FILES.caKey), stranger.keyPem);
    writeFileSync(join(dir, TLS_FILES.key), stranger.keyPem);
    writeFileSync(join(dir, TLS_FILES.jwtKey), 'not a key');
    expect(await problems(dir)).toEqual([
      { path: join(dir, TLS_FILES.caKey), message: 'is not the key of root-cert.pem' },
      {
        path: join(dir, TLS_FILES.key),
        message: 'is not the key of the first certificate in cert-chain.pem',
      },
      {
        path: join(dir, TLS_FILES.jwtKey),
        message: 'expected an EC P-256 private key in PEM (tokens are ES256)',
      },
    ]);
  });

  it('refuses half a set: a key without its certificate, files without their root', async () => {
    const dir = tempDir();
    await load(dir);
    unlinkSync(join(dir, TLS_FILES.certChain));
    expect(await problems(dir)).toEqual([
      {
        path: join(dir, TLS_FILES.certChain),
        message: 'is missing while key.pem is there: the two go together',
      },
    ]);
    unlinkSync(join(dir, TLS_FILES.rootCert));
    expect((await problems(dir))[0]).toEqual({
      path: join(dir, TLS_FILES.rootCert),
      message:
        'is missing while key.pem, ca-key.pem are there: add the root certificate, or empty the directory to have new files made',
    });
  });

  it('reports a serving chain that does not lead to the root', async () => {
    const dir = tempDir();
    await load(dir);
    const other = await load(undefined);
    writeFileSync(join(dir, TLS_FILES.certChain), other.certChainPem);
    writeFileSync(join(dir, TLS_FILES.key), other.keyPem);
    expect(await problems(dir)).toEqual([
      { path: join(dir, TLS_FILES.certChain), message: 'is not signed by the root certificate' },
    ]);
  });
});

describe('security options', () => {
  it('complete partial input with Istio defaults', () => {
    expect(resolveSecurityOptions(true, { audiences: ['x'] })).toEqual({
      ok: true,
      value: {
        tls: { dir: undefined, hosts: [] },
        ca: {
          audiences: ['x'],
          trustDomain: 'cluster.local',
          defaultCertTtlSeconds: 86400,
          maxCertTtlSeconds: 7776000,
          plaintext: false,
          tokenReview: false,
        },
        xdsAuth: true,
      },
    });
    expect(resolveSecurityOptions(true, { plaintext: 'yes' }, 'off')).toMatchObject({
      ok: false,
      problems: [
        { path: 'xdsAuth', message: 'expected true or false' },
        { path: 'ca.plaintext', message: 'expected true or false' },
      ],
    });
    expect(resolveSecurityOptions(true, { tokenReview: 'kubernetes' as never })).toMatchObject({
      ok: false,
      problems: [
        {
          path: 'ca.tokenReview',
          message: "expected false, 'in-cluster' or { kubeconfig: <path> }",
        },
      ],
    });
  });

  it('report every bad field with its path', () => {
    const result = resolveSecurityOptions('yes', { audiences: [], defaultCertTtlSeconds: 0 });
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      'tls',
      'ca.audiences',
      'ca.defaultCertTtlSeconds',
    ]);
  });
});
