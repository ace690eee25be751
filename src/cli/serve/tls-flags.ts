/**
 * The TLS and CA flags of `mock-istiod serve`: serve 15012 over TLS as istiod does, where the
 * certificates live, and what the CA service accepts.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { MockIstiodOptions } from '../../app/options.js';
import { DEFAULT_CA_OPTIONS } from '../../ca/security-options.js';
import { MockIstiodError } from '../../util/errors.js';

/**
 * Where `--tls` keeps its files without `--tls-dir`: the same place every run, so that Envoy
 * bootstraps pointing at its root-cert.pem and tokens minted earlier stay valid, and the
 * user's own (under the user's cache), never a fixed path in /tmp that another user could
 * make first and fill with a CA of theirs. Not `$XDG_RUNTIME_DIR`: it is emptied at logout,
 * and one path is what the docs can spell.
 */
export function defaultTlsDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdgCache = env.XDG_CACHE_HOME;
  const cache = xdgCache && isAbsolute(xdgCache) ? xdgCache : join(env.HOME || homedir(), '.cache');
  return join(cache, 'mock-istiod', 'tls');
}

/** The default in this process's environment. */
export const DEFAULT_CLI_TLS_DIR = defaultTlsDir();

/** The default, as the help says it (the same on every machine). */
export const DEFAULT_TLS_DIR_TEXT = '~/.cache/mock-istiod/tls, or $XDG_CACHE_HOME/mock-istiod/tls';

export const TLS_FLAGS = {
  tls: { type: 'boolean', default: false },
  'tls-dir': { type: 'string' },
  cacerts: { type: 'string' },
  'tls-host': { type: 'string', multiple: true },
  'token-audience': { type: 'string', multiple: true },
  'trust-domain': { type: 'string' },
  'xds-auth': { type: 'string' },
  'debug-auth': { type: 'string' },
  ambient: { type: 'boolean', default: false },
  'plaintext-ca': { type: 'boolean', default: false },
  'token-review': { type: 'string' },
} as const;

export const TLS_USAGE = `  --tls                    serve xDS (and the CA) over TLS, as istiod's 15012; writes
                           root-cert.pem for Envoy's validation_context (docs/security.md)
  --tls-dir <dir>          keep root-cert.pem, cert-chain.pem, key.pem, ca-key.pem and
                           jwt-key.pem here: missing ones are made, present ones used
                           [MOCK_ISTIOD_TLS_DIR] (implies --tls; default
                           ${DEFAULT_TLS_DIR_TEXT}); refused when another
                           user owns it or others may write to it
  --cacerts <dir>          sign with a plug-in CA, a directory shaped like istiod's cacerts
                           secret (ca-cert.pem, ca-key.pem, root-cert.pem, cert-chain.pem),
                           only read: sidecars that trust the mesh's root accept the mock
                           (implies --tls; its files go to a temporary directory unless
                           --tls-dir names one)
  --tls-host <name>        another name or IP on a serving certificate the mock makes
                           (repeatable; istiod.istio-system.svc and localhost are always on it)
  --token-audience <aud>   an audience the CA accepts in tokens (repeatable) [TOKEN_AUDIENCES,
                           comma-separated] (default ${DEFAULT_CA_OPTIONS.audiences.join(',')})
  --trust-domain <domain>  SPIFFE trust domain of issued certificates (default ${DEFAULT_CA_OPTIONS.trustDomain})
  --xds-auth <on|off>      with TLS, refuse xDS streams without the pod's token (or a client
                           certificate from the mock's CA) as istiod does (default on)
  --debug-auth <on|off>    refuse istiod's debug types over ADS (istioctl proxy-status) to
                           streams without a verified client identity, and show a caller
                           outside istio-system only its namespace, as istiod does (default
                           on; off answers them on any stream, plaintext too, unfiltered)
  --ambient                serve ztunnel nodes (istiod's PILOT_ENABLE_AMBIENT=true)
  --plaintext-ca           sign CSRs on a plaintext port too (istiod refuses them on 15010)
  --token-review <where>   review pods' tokens (CSRs and xDS streams) with a Kubernetes API
                           server, as istiod does:
                           in-cluster (the pod's service account; needs RBAC to create
                           tokenreviews), or a kubeconfig file's path; off: check them against
                           the mock's jwt-key.pem [MOCK_ISTIOD_TOKEN_REVIEW] (default off)
`;

interface TlsFlagValues {
  tls?: boolean;
  'tls-dir'?: string;
  cacerts?: string;
  'tls-host'?: string[];
  'token-audience'?: string[];
  'trust-domain'?: string;
  'xds-auth'?: string;
  'debug-auth'?: string;
  ambient?: boolean;
  'plaintext-ca'?: boolean;
  'token-review'?: string;
}

/** The `tls` and `ca` options the flags and environment ask for. */
export function parseTlsFlags(
  values: TlsFlagValues,
  env: NodeJS.ProcessEnv,
): Pick<MockIstiodOptions, 'tls' | 'ca' | 'xdsAuth' | 'debugAuth' | 'ambient'> {
  const dir = values['tls-dir'] ?? (env.MOCK_ISTIOD_TLS_DIR || undefined);
  if (dir === '') throw new MockIstiodError('USAGE', '--tls-dir: expected a directory');
  const cacerts = values.cacerts;
  if (cacerts === '') throw new MockIstiodError('USAGE', '--cacerts: expected a directory');
  const on =
    values.tls === true ||
    dir !== undefined ||
    cacerts !== undefined ||
    (values['tls-host'] ?? []).length > 0;
  const audiences =
    values['token-audience'] ??
    env.TOKEN_AUDIENCES?.split(',')
      .map((a) => a.trim())
      .filter(Boolean);
  if (audiences?.some((a) => a === '')) {
    throw new MockIstiodError('USAGE', '--token-audience: expected a non-empty audience');
  }
  const trustDomain = values['trust-domain'];
  if (trustDomain !== undefined && !/^[a-z0-9.-]+$/.test(trustDomain)) {
    throw new MockIstiodError(
      'USAGE',
      `--trust-domain: expected a domain such as cluster.local, got "${trustDomain}"`,
    );
  }
  const xdsAuth = values['xds-auth'] ?? 'on';
  if (xdsAuth !== 'on' && xdsAuth !== 'off') {
    throw new MockIstiodError('USAGE', `--xds-auth: expected on or off, got "${xdsAuth}"`);
  }
  const debugAuth = values['debug-auth'] ?? 'on';
  if (debugAuth !== 'on' && debugAuth !== 'off') {
    throw new MockIstiodError('USAGE', `--debug-auth: expected on or off, got "${debugAuth}"`);
  }
  const review = values['token-review'] ?? (env.MOCK_ISTIOD_TOKEN_REVIEW || 'off');
  if (review === '')
    throw new MockIstiodError(
      'USAGE',
      '--token-review: expected off, in-cluster or a kubeconfig path',
    );
  const tokenReview =
    review === 'off' ? undefined : review === 'in-cluster' ? review : { kubeconfig: review };
  return {
    tls: on
      ? {
          // A plug-in CA's root is not the one the default directory keeps.
          dir: dir ?? (cacerts === undefined ? defaultTlsDir(env) : undefined),
          hosts: values['tls-host'] ?? [],
          ...(cacerts !== undefined && { cacerts }),
        }
      : false,
    ca: {
      ...(tokenReview ? { tokenReview } : {}),
      ...(audiences && audiences.length > 0 ? { audiences } : {}),
      ...(trustDomain ? { trustDomain } : {}),
      ...(values['plaintext-ca'] === true ? { plaintext: true } : {}),
    },
    xdsAuth: xdsAuth === 'on',
    debugAuth: debugAuth === 'on',
    ambient: values.ambient === true,
  };
}
