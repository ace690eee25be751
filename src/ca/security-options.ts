/**
 * The options of a mock istiod's security side: TLS on the xDS port and the CA service
 * beside it. They come in partial (`tls: true`, `ca: { audiences: ['other'] }`) and leave
 * complete, with Istio's defaults, or as a list of every problem.
 */
import type { Problem, Result } from '../util/problems.js';
import { DEFAULT_TOKEN_AUDIENCE } from './service-account-token.js';
import type { TokenReviewSource } from './kube-token-review.js';
import { isObject } from '../util/guards.js';

/** The name Istio's proxies use for istiod: their SNI, and the serving certificate's SAN. */
export const ISTIOD_SERVICE_NAME = 'istiod.istio-system.svc';
/** Names on the serving certificate besides istiod's: what a local Envoy dials. */
export const LOCAL_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

export interface TlsOptions {
  /**
   * Where the certificates and keys live (`root-cert.pem`, `cert-chain.pem`, `key.pem`,
   * `ca-key.pem`, `jwt-key.pem`): missing files are made, present ones are used. Undefined:
   * a temporary directory, removed when the mock closes.
   */
  dir: string | undefined;
  /** More names for a serving certificate the mock makes, besides istiod's and localhost's. */
  hosts: readonly string[];
  /**
   * A plug-in CA: a directory shaped like istiod's `cacerts` secret (`ca-cert.pem`,
   * `ca-key.pem`, `root-cert.pem`, `cert-chain.pem`), only read. The mock signs workload
   * certificates and its serving certificate with it, under the mesh's root, so sidecars
   * that trust that root accept the mock. Undefined: a root of the mock's own.
   */
  cacerts?: string | undefined;
}

export interface CaOptions {
  /** Token audiences the CA accepts (Istio's `TOKEN_AUDIENCES`). */
  audiences: readonly string[];
  /** SPIFFE trust domain of issued identities (`spiffe://<trustDomain>/ns/<ns>/sa/<sa>`). */
  trustDomain: string;
  /** Lifetime when a request asks for none (Istio's `DEFAULT_WORKLOAD_CERT_TTL`: 24h). */
  defaultCertTtlSeconds: number;
  /** The longest lifetime a request may ask for (Istio's `MAX_WORKLOAD_CERT_TTL`: 90 days). */
  maxCertTtlSeconds: number;
  /**
   * Sign CSRs on a plaintext xDS port too. istiod serves its CA only on the TLS port (15012),
   * so by default a plaintext mock refuses them as istiod's 15010 does.
   */
  plaintext: boolean;
  /**
   * Review pods' tokens with a Kubernetes API server (a TokenReview, as istiod does), instead
   * of checking them against the mock's own key, for the CA and for xDS streams alike: `in-cluster` (the mock's pod's service
   * account) or `{ kubeconfig }`. False (the default): the mock's key, no cluster needed.
   */
  tokenReview: TokenReviewSource | false;
}

export const DEFAULT_CA_OPTIONS: Readonly<CaOptions> = Object.freeze({
  audiences: [DEFAULT_TOKEN_AUDIENCE],
  trustDomain: 'cluster.local',
  defaultCertTtlSeconds: 24 * 3600,
  maxCertTtlSeconds: 90 * 24 * 3600,
  plaintext: false,
  tokenReview: false,
});

/** Every name on a serving certificate the mock makes. */
export function servingHosts(tls: TlsOptions): string[] {
  return [...new Set([ISTIOD_SERVICE_NAME, ...LOCAL_HOSTS, ...tls.hosts])];
}

export interface SecurityOptions {
  tls: TlsOptions | false;
  ca: CaOptions;
  /**
   * Authenticate xDS streams on the TLS port by the pod's token (or a client certificate from
   * the mock's CA), as istiod does; false lets any stream in (for teaching). No effect without TLS.
   */
  xdsAuth: boolean;
}

function resolveTls(input: unknown, problems: Problem[]): TlsOptions | false {
  if (input === undefined || input === false) return false;
  if (input === true) return { dir: undefined, hosts: [] };
  if (!isObject(input)) {
    problems.push({ path: 'tls', message: 'expected true, false or { dir, hosts, cacerts }' });
    return false;
  }
  const { dir, hosts = [], cacerts } = input;
  if (cacerts !== undefined && (typeof cacerts !== 'string' || cacerts === '')) {
    problems.push({ path: 'tls.cacerts', message: 'expected a directory path' });
  }
  if (dir !== undefined && (typeof dir !== 'string' || dir === '')) {
    problems.push({ path: 'tls.dir', message: 'expected a directory path' });
  }
  if (!Array.isArray(hosts) || !hosts.every((h) => typeof h === 'string' && h !== '')) {
    problems.push({ path: 'tls.hosts', message: 'expected a list of host names or IP addresses' });
  }
  return {
    dir: dir as string | undefined,
    hosts: Array.isArray(hosts) ? (hosts as string[]) : [],
    ...(typeof cacerts === 'string' && cacerts !== '' && { cacerts }),
  };
}

function resolveCa(input: unknown, problems: Problem[]): CaOptions {
  if (input !== undefined && !isObject(input)) {
    problems.push({ path: 'ca', message: 'expected an object' });
    return { ...DEFAULT_CA_OPTIONS };
  }
  const ca = { ...DEFAULT_CA_OPTIONS, ...(input as Partial<CaOptions> | undefined) };
  const auds = ca.audiences as unknown;
  if (
    !Array.isArray(auds) ||
    auds.length === 0 ||
    !auds.every((a) => typeof a === 'string' && a !== '')
  ) {
    problems.push({ path: 'ca.audiences', message: 'expected a non-empty list of audiences' });
  }
  if (typeof ca.trustDomain !== 'string' || !/^[a-z0-9.-]+$/.test(ca.trustDomain)) {
    problems.push({
      path: 'ca.trustDomain',
      message: 'expected a trust domain such as cluster.local',
    });
  }
  for (const key of ['defaultCertTtlSeconds', 'maxCertTtlSeconds'] as const) {
    if (!Number.isInteger(ca[key]) || ca[key] < 1) {
      problems.push({ path: `ca.${key}`, message: 'expected a positive whole number of seconds' });
    }
  }
  if (typeof ca.plaintext !== 'boolean') {
    problems.push({ path: 'ca.plaintext', message: 'expected true or false' });
  }
  const review = ca.tokenReview as unknown;
  if (
    review !== false &&
    review !== 'in-cluster' &&
    !(isObject(review) && typeof review['kubeconfig'] === 'string' && review['kubeconfig'] !== '')
  ) {
    problems.push({
      path: 'ca.tokenReview',
      message: "expected false, 'in-cluster' or { kubeconfig: <path> }",
    });
  }
  if (ca.defaultCertTtlSeconds > ca.maxCertTtlSeconds) {
    problems.push({
      path: 'ca.defaultCertTtlSeconds',
      message: 'must not exceed ca.maxCertTtlSeconds',
    });
  }
  return ca;
}

/** Complete security options from the `tls` and `ca` a user gave, or every problem. */
export function resolveSecurityOptions(
  tls: unknown,
  ca: unknown,
  xdsAuth: unknown = true,
): Result<SecurityOptions> {
  const problems: Problem[] = [];
  if (typeof xdsAuth !== 'boolean')
    problems.push({ path: 'xdsAuth', message: 'expected true or false' });
  const value = {
    tls: resolveTls(tls, problems),
    ca: resolveCa(ca, problems),
    xdsAuth: xdsAuth !== false,
  };
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
