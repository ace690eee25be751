/**
 * `tls: { cacerts }` (`serve --cacerts <dir>`): the mock signs with a plug-in CA shaped like
 * istiod's `cacerts` secret, as istiod does. Its certificates chain through the intermediate
 * to the mesh's root, and its serving certificate is accepted by a client that trusts only
 * that root, as a sidecar of the mesh does.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { makeCacerts } from '../support/fixtures/cacerts.js';
import { caClient, createCertificate, makeCsr } from '../support/fixtures/ca.js';

let dir: string | undefined;
let mock: TestMockIstiod | undefined;
afterEach(async () => {
  await mock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  [dir, mock] = [undefined, undefined];
});

function cacerts() {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-cacerts-'));
  const cacertsDir = join(dir, 'cacerts');
  return { cacertsDir, ...makeCacerts(cacertsDir) };
}

/** The chain a TLS client trusting only `root` is shown, once it has checked it. */
function servingChain(address: string, root: string): Promise<X509Certificate[]> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), address.split(':').pop()];
  return new Promise((resolve, reject) => {
    const socket = connect({
      host,
      port: Number(port),
      ca: root,
      servername: 'istiod.istio-system.svc',
      ALPNProtocols: ['h2'],
    });
    socket.once('secureConnect', () => {
      const chain: X509Certificate[] = [];
      let cert = socket.getPeerX509Certificate();
      while (cert && !chain.some((c) => c.fingerprint256 === cert?.fingerprint256)) {
        chain.push(cert);
        cert = cert.issuerCertificate;
      }
      socket.destroy();
      resolve(chain);
    });
    socket.once('error', reject);
  });
}

describe('a plug-in CA (cacerts)', () => {
  it("signs workload certificates under the mesh's root: leaf, intermediate, root", async () => {
    const { cacertsDir, rootCertPem, caCertPem } = cacerts();
    mock = await startMockIstiod({ tls: { cacerts: cacertsDir } });
    expect(mock.security.rootCert.trim()).toBe(rootCertPem.trim());
    const token = mock.security.createToken({ namespace: 'default', serviceAccount: 'orders' });
    const client = caClient(mock.xdsAddress, rootCertPem);
    try {
      const outcome = await createCertificate(client, { csr: await makeCsr() }, token.token);
      if (!outcome.ok) throw new Error(`refused: ${outcome.details}`);
      const [leaf, intermediate, root] = outcome.chain.map((pem) => new X509Certificate(pem));
      expect(outcome.chain).toHaveLength(3);
      expect(intermediate?.fingerprint256).toBe(new X509Certificate(caCertPem).fingerprint256);
      expect(root?.fingerprint256).toBe(new X509Certificate(rootCertPem).fingerprint256);
      expect(leaf?.verify(intermediate!.publicKey)).toBe(true);
      expect(leaf?.subjectAltName).toBe('URI:spiffe://cluster.local/ns/default/sa/orders');
    } finally {
      client.close();
    }
  });

  it("serves xDS with a certificate a client trusting only the mesh's root accepts", async () => {
    const { cacertsDir, rootCertPem, caCertPem } = cacerts();
    mock = await startMockIstiod({ tls: { cacerts: cacertsDir } });
    const chain = await servingChain(mock.xdsAddress, rootCertPem);
    expect(chain.map((c) => c.fingerprint256).slice(1)).toEqual(
      [caCertPem, rootCertPem].map((pem) => new X509Certificate(pem).fingerprint256),
    );
    expect(chain[0]?.checkHost('istiod.istio-system.svc')).toBe('istiod.istio-system.svc');
  });

  it("refuses a directory whose key is not the intermediate's, naming the file", async () => {
    const { cacertsDir } = cacerts();
    const other = join(dir!, 'other');
    makeCacerts(other);
    writeFileSync(join(cacertsDir, 'ca-key.pem'), readFile(join(other, 'ca-key.pem')));
    await expect(startMockIstiod({ tls: { cacerts: cacertsDir } })).rejects.toThrow(
      `${join(cacertsDir, 'ca-key.pem')}: is not the key of ca-cert.pem`,
    );
  });

  it('refuses a directory missing a file, and a chain that does not lead to the root', async () => {
    const { cacertsDir } = cacerts();
    const other = join(dir!, 'other');
    const { rootCertPem: otherRoot } = makeCacerts(other);
    writeFileSync(join(cacertsDir, 'root-cert.pem'), otherRoot);
    await expect(startMockIstiod({ tls: { cacerts: cacertsDir } })).rejects.toThrow(
      `${join(cacertsDir, 'cert-chain.pem')}: is not signed by the root certificate`,
    );
    rmSync(join(cacertsDir, 'ca-cert.pem'));
    await expect(startMockIstiod({ tls: { cacerts: cacertsDir } })).rejects.toThrow(
      `${join(cacertsDir, 'ca-cert.pem')}: is missing`,
    );
  });
});

function readFile(path: string): string {
  return readFileSync(path, 'utf8');
}
