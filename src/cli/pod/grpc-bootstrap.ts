/**
 * `mock-istiod bootstrap --grpc`: the bootstrap file pilot-agent writes for a proxyless gRPC
 * pod (`GRPC_XDS_BOOTSTRAP`), pointing at the mock itself. With `--certs <dir>` it also asks
 * the running mock's CA for the pod's workload certificate and writes it there as
 * pilot-agent's `OUTPUT_CERTS` would (`cert-chain.pem`: leaf then root; `key.pem`;
 * `root-cert.pem`), so that the application has mTLS with no agent running.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GRPC_CERT_FILES, makeGrpcBootstrap } from '../../bootstrap/grpc.js';
import type { SidecarBootstrapOptions } from '../../bootstrap/sidecar-options.js';
import type { IssuedChain } from '../../core/identity.js';
import { MockIstiodError } from '../../util/errors.js';
import { clientFor, controlTarget, reportControlErrors } from '../client/control-client.js';

/** What `bootstrap --grpc` reads besides the pod: where to write, and the certificates. */
export interface GrpcBootstrapFlags {
  out?: string | undefined;
  certs?: string | undefined;
  control?: string | undefined;
  'control-host'?: string | undefined;
  'control-port'?: string | undefined;
  'control-token'?: string | undefined;
}

/** The sidecar-only flags `--grpc` refuses, each with why. */
const ENVOY_ONLY: Readonly<Record<string, string>> = {
  'tls-root-cert': 'gRPC reaches the mock in plaintext, as it reaches its agent',
  'token-file': 'gRPC sends no token; pilot-agent adds it upstream',
  xds: 'gRPC chooses its own xDS variant',
  'admin-port': 'a proxyless pod has no Envoy',
  'readiness-port': 'a proxyless pod has no Envoy',
  'prometheus-port': 'a proxyless pod has no Envoy',
  'status-port': 'a proxyless pod has no Envoy',
  format: 'gRPC reads JSON only',
  validate: 'Envoy validates Envoy bootstraps; gRPC reads this one when the application starts',
};

/** Refuses, in one line each, the flags that mean nothing to a gRPC bootstrap. */
export function refuseEnvoyOnlyFlags(values: Record<string, unknown>): void {
  for (const [flag, why] of Object.entries(ENVOY_ONLY)) {
    if (values[flag] !== undefined && values[flag] !== false) {
      throw new MockIstiodError('USAGE', `--${flag} does not go with --grpc: ${why}`);
    }
  }
}

export async function writeGrpcBootstrap(
  pod: Partial<SidecarBootstrapOptions>,
  values: GrpcBootstrapFlags,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  if (values.certs === '') {
    throw new MockIstiodError(
      'USAGE',
      '--certs: expected a directory to write the certificates to',
    );
  }
  const certDir = values.certs === undefined ? null : resolve(values.certs);
  const text = `${JSON.stringify(makeGrpcBootstrap({ ...pod, certDir }), null, 2)}\n`;
  const write = () => {
    if (values.out === undefined) process.stdout.write(text);
    else writeFileSync(values.out, text);
    return 0;
  };
  if (certDir === null) return write();
  const target = controlTarget(values, env);
  return reportControlErrors(target, async () => {
    const hint = 'is `mock-istiod serve` running there? --certs asks its CA (--control-port)';
    const issued = await clientFor(target, { hint }).call('issueCertificate', {
      namespace: pod.namespace,
      serviceAccount: pod.serviceAccount,
    });
    writeCertificates(certDir, issued);
    return write();
  });
}

/** The three files, as pilot-agent's `OUTPUT_CERTS` holds them, readable by their owner only. */
function writeCertificates(dir: string, issued: IssuedChain): void {
  if (issued.privateKey === undefined) {
    throw new MockIstiodError('CONTROL_API_FAILED', 'the CA answered without a private key');
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = (name: string, text: string) =>
    writeFileSync(join(dir, name), text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
  file(GRPC_CERT_FILES.certificate, issued.certChain.join(''));
  file(GRPC_CERT_FILES.privateKey, issued.privateKey);
  file(GRPC_CERT_FILES.caCertificate, issued.rootCert);
}
