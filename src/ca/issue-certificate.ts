/**
 * Certificates from the mock's CA for a caller of the control API (`POST /ca/certificates`):
 * what istiod's CA would sign for a workload with that identity (the SPIFFE URI
 * `spiffe://<trust domain>/ns/<namespace>/sa/<service account>` as the only name, the
 * lifetime rules and CSR checks of `CreateCertificate`), without the gRPC call, the token or
 * TLS. With a CSR the caller keeps its key; without one the mock makes a key and returns it.
 */
import { goDuration, spiffeId } from './ca-service.js';
import type { IssuedChain } from '../core/identity.js';
import type { CaOptions } from './security-options.js';
import { LABEL, SUBDOMAIN } from './service-account-token.js';
import { checkCsrSignature, parseCsr } from '../tls/csr.js';
import {
  chainOf,
  issueWorkloadCertificate,
  signWorkloadCertificate,
  type CertificateAuthority,
} from '../tls/pki.js';
import type { Problem, Result } from '../util/problems.js';

/** What a caller asks for, checked here whole. */
export interface CertificateRequest {
  readonly [field: string]: unknown;
  namespace?: unknown;
  serviceAccount?: unknown;
  /** A PEM PKCS #10 request; without one the mock makes the key. */
  csr?: unknown;
  ttlSeconds?: unknown;
}

export interface CertificateIssuer {
  (request: CertificateRequest): Promise<Result<IssuedChain>>;
  /** Why this CA cannot sign (its TLS directory has no CA key), or undefined when it can. */
  readonly cannotSign: string | undefined;
}

/** Why a CA without its key cannot sign. */
export const NO_CA_KEY =
  "this mock's CA cannot sign: its TLS directory has a root certificate but no ca-key.pem";

export function createCertificateIssuer(
  ca: CertificateAuthority | undefined,
  rootCertPem: string,
  options: Pick<CaOptions, 'trustDomain' | 'defaultCertTtlSeconds' | 'maxCertTtlSeconds'>,
  now: () => Date = () => new Date(),
): CertificateIssuer {
  const issue = async (request: CertificateRequest): Promise<Result<IssuedChain>> => {
    const { namespace: ns, serviceAccount: sa, csr: pem, ttlSeconds, ...rest } = request;
    const problems: Problem[] = Object.keys(rest).map((key) => ({
      path: key,
      message: 'unknown field (expected namespace, serviceAccount, csr, ttlSeconds)',
    }));
    const namespace = ns ?? 'default';
    const serviceAccount = sa ?? 'default';
    if (typeof namespace !== 'string' || !LABEL.test(namespace)) {
      problems.push({
        path: 'namespace',
        message: 'expected a Kubernetes namespace name (a DNS label)',
      });
    }
    if (typeof serviceAccount !== 'string' || !SUBDOMAIN.test(serviceAccount)) {
      problems.push({
        path: 'serviceAccount',
        message: 'expected a service account name (a DNS subdomain)',
      });
    }
    const ttl = ttlSeconds ?? options.defaultCertTtlSeconds;
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1) {
      problems.push({
        path: 'ttlSeconds',
        message: 'expected a whole number of seconds, at least 1',
      });
    } else if (ttl > options.maxCertTtlSeconds) {
      // istiod's words (CreateCertificate), and the flag that raises the limit.
      problems.push({
        path: 'ttlSeconds',
        message: `requested TTL ${goDuration(ttl)} is greater than the max allowed TTL ${goDuration(options.maxCertTtlSeconds)}`,
      });
    }
    let csr;
    if (pem !== undefined) {
      const parsed =
        typeof pem === 'string'
          ? parseCsr(pem)
          : { ok: false as const, message: 'expected a PEM certificate signing request' };
      if (!parsed.ok) problems.push({ path: 'csr', message: parsed.message });
      else {
        const bad = await checkCsrSignature(parsed.csr);
        if (bad) problems.push({ path: 'csr', message: `its signature does not hold: ${bad}` });
        else csr = parsed.csr;
      }
    }
    if (problems.length > 0) return { ok: false, problems };
    if (!ca) return { ok: false, problems: [{ path: '', message: NO_CA_KEY }] };
    const identity = spiffeId(options.trustDomain, {
      namespace: namespace as string,
      serviceAccount: serviceAccount as string,
    });
    const at = now();
    const lifetimeMs = (ttl as number) * 1000;
    const root = `${rootCertPem.trim()}\n`;
    const notAfter = new Date(at.getTime() + lifetimeMs).toISOString();
    if (csr) {
      const leaf = await signWorkloadCertificate(ca, csr, [identity], lifetimeMs, at);
      return {
        ok: true,
        value: { identity, certChain: chainOf(ca, leaf), rootCert: root, notAfter },
      };
    }
    const issued = await issueWorkloadCertificate(ca, [identity], lifetimeMs, at);
    return {
      ok: true,
      value: {
        identity,
        certChain: chainOf(ca, issued.certPem),
        rootCert: root,
        privateKey: issued.keyPem,
        notAfter,
      },
    };
  };
  return Object.assign(issue, { cannotSign: ca ? undefined : NO_CA_KEY });
}
