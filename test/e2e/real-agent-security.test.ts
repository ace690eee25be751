/**
 * Security as istiod has it, met by the real pilot-agent. Without a token, its xDS stream is
 * refused on the TLS port (UNAUTHENTICATED "authentication failure") and its CSR too, so the
 * pod never becomes ready, and pilot-agent says why in its own words. With one, in the `mtls`
 * lab variant, the whole chain works: token → the mock's CA → pilot-agent's SDS → Envoy's
 * `/certs` → a mutual TLS handshake on virtualInbound.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as https from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../src/util/wait.js';
import { useRealLab } from '../support/harness/real-agent.js';

const labs = useRealLab();

describe('the real pilot-agent and the mock security', () => {
  it('no token: the xDS stream and the CSR are refused, the pod never becomes ready', async () => {
    const lab = await labs.start({ token: false });
    const { agent } = lab;
    // pilot-agent's own lines, for its xDS stream and for its CSR (in either order).
    const refusals = [
      'xdsproxy\tupstream terminated with unexpected error rpc error: code = Unauthenticated desc = authentication failure',
      'citadelclient\tfailed to sign CSR: create certificate: rpc error: code = Unauthenticated desc = request authenticate failure',
    ];
    await waitFor(() => refusals.every((line) => agent.envoy.logs().includes(line)), {
      timeoutMs: 30_000,
      description: "pilot-agent's lines for the refused xDS stream and CSR",
    });
    expect(lab.mockLog()).toContainEqual(
      expect.stringMatching(/^Failed to authenticate client from 127\.0\.0\.1:\d+: /) as string,
    );
    expect(lab.istiod.streams()).toEqual([]);
    // Several probes later, still not ready: Envoy got nothing and stays PRE_INITIALIZING.
    const view = await agent.waitForPod((v) => v.lastProbe !== '');
    await waitFor(
      () => agent.envoy.logs().includes('Envoy proxy is NOT ready: config not received'),
      {
        description: "pilot-agent's NOT ready line",
      },
    );
    expect(view.ready).toBe(1);
    expect(await agent.envoy.serverInfoState()).toBe('PRE_INITIALIZING');
    expect(await agent.envoy.stat('cluster_manager.cds.update_success')).toBe(0);
  });
});

describe('the mtls lab variant with the real pilot-agent: SDS and the mock CA end to end', () => {
  it("/certs shows the SPIFFE leaf from the mock's root; a request needs a client certificate", async () => {
    const lab = await labs.start({ lab: { mtls: true }, outputCerts: true });
    await lab.agent.envoy.waitForLive({ timeoutMs: 30_000 });
    const certs = (await (await fetch(`${lab.agent.envoy.adminUrl}/certs`)).json()) as CertsJson;
    const [entry] = certs.certificates;
    const root = new X509Certificate(lab.istiod.security.rootCert);
    expect(entry?.ca_cert.map((c) => c.serial_number)).toEqual([root.serialNumber.toLowerCase()]);
    expect(entry?.cert_chain[0]?.subject_alt_names).toEqual([
      { uri: 'spiffe://cluster.local/ns/default/sa/default' },
    ]);
    // The same leaf pilot-agent wrote with OUTPUT_CERTS: signed by the mock's root.
    const certDir = lab.certDir ?? '';
    const chain = readFileSync(join(certDir, 'cert-chain.pem'), 'utf8');
    const leaf = new X509Certificate(chain);
    expect(leaf.serialNumber.toLowerCase()).toBe(entry?.cert_chain[0]?.serial_number);
    expect(leaf.checkIssued(root) && leaf.verify(root.publicKey)).toBe(true);

    const key = readFileSync(join(certDir, 'key.pem'), 'utf8');
    const path = '/orders';
    expect(await httpsGet(lab.ports.inboundPort, path, { cert: chain, key }, root)).toEqual({
      status: 200,
      body: `ok:${lab.ports.appPort} ${path}`,
    });
    const without = await httpsGet(lab.ports.inboundPort, path, {}, root);
    expect(without).toMatchObject({ error: expect.any(String) as string });
  });
});

interface CertsJson {
  certificates: {
    ca_cert: { serial_number: string }[];
    cert_chain: { serial_number: string; subject_alt_names: unknown[] }[];
  }[];
}

/**
 * One HTTPS GET to the inbound listener, trusting the mock's root. The workload certificate
 * names only its SPIFFE id, no host name: the chain is checked, the name is not.
 */
function httpsGet(
  port: number,
  path: string,
  client: { cert?: string; key?: string },
  root: X509Certificate,
): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const request = https.get(
      {
        host: '127.0.0.1',
        port,
        path,
        ca: root.toString(),
        ...client,
        checkServerIdentity: () => undefined,
        timeout: 5_000,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ error: err.code ?? err.message }),
    );
  });
}
