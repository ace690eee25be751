/**
 * `mock-istiod certs`: makes (or checks and completes) a TLS directory and exits, so that the
 * files can be handed to a mock that cannot write them itself: a Kubernetes Secret mounted
 * read-only (deploy/, docs/kubernetes.md), or a container started many times with one root.
 *
 * With `--for istioctl` it issues instead a client identity from the directory's CA: a key, a
 * certificate for `spiffe://<trust domain>/ns/istio-system/sa/default` (the namespace and
 * service account istioctl's requests name) and the root, the three files istioctl's
 * `--cert-dir` reads (docs/real-istio.md §3).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CA_OPTIONS, servingHosts } from '../../ca/security-options.js';
import { resolveTokenRequest } from '../../ca/service-account-token.js';
import { issueWorkloadCertificate } from '../../tls/pki.js';
import { prepareTlsMaterial } from '../../tls/tls-material.js';
import { loadCa, TLS_FILES } from '../../tls/tls-files.js';
import { parseDuration } from '../../util/duration.js';
import { MockIstiodError } from '../../util/errors.js';
import type { Problem } from '../../util/problems.js';
import { parseFlags, type FlagValues } from '../flags.js';
import { assertOwnTlsDir } from '../../tls/dir-owner.js';
import { defaultTlsDir, DEFAULT_TLS_DIR_TEXT, parseTlsFlags } from './tls-flags.js';

export const CERTS_USAGE = `Usage: mock-istiod certs --tls-dir <dir> [options]
       mock-istiod certs --for istioctl --out <dir> [options]

Makes the files serve --tls-dir uses (missing ones are made, present ones checked) and exits:
${Object.values(TLS_FILES).join(', ')}.

With --for istioctl, issues a client certificate from the CA of a TLS directory a mock made
(serve --tls), for istioctl's --cert-dir: <out>/cert-chain.pem, key.pem and root-cert.pem.

  --tls-dir <dir>          the directory [MOCK_ISTIOD_TLS_DIR] (with --for, default
                           ${DEFAULT_TLS_DIR_TEXT},
                           where serve --tls keeps its files)
  --tls-host <name>        another name or IP on the serving certificate (repeatable;
                           istiod.istio-system.svc and localhost are always on it)
  --trust-domain <domain>  the root's O=, and the SPIFFE trust domain with --for
                           (default ${DEFAULT_CA_OPTIONS.trustDomain})
  --for istioctl           issue istioctl's identity instead of making the directory
  --out <dir>              where --for writes its three files (made if missing)
  --ns <namespace>         the identity's namespace (default istio-system, istioctl's)
  --sa <name>              its service account (default default)
  --ttl <duration>         the certificate's lifetime, such as 1h or 30d (default 24h)
  -h, --help               show this help
`;

const OPTIONS = {
  'tls-dir': { type: 'string' },
  'tls-host': { type: 'string', multiple: true },
  'trust-domain': { type: 'string' },
  for: { type: 'string' },
  out: { type: 'string' },
  ns: { type: 'string' },
  sa: { type: 'string' },
  ttl: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The flags that only mean something with --for istioctl. */
const FOR_ONLY = ['out', 'ns', 'sa', 'ttl'] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

export async function certs(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseFlags(argv, OPTIONS, CERTS_USAGE);
  if (!values) return 0;
  if (values.for !== undefined) return forIstioctl(values, env);
  const stray = FOR_ONLY.find((flag) => values[flag] !== undefined);
  if (stray !== undefined) {
    throw new MockIstiodError('USAGE', `--${stray}: only with --for istioctl`);
  }
  const dir = values['tls-dir'] ?? (env.MOCK_ISTIOD_TLS_DIR || undefined);
  if (dir === undefined) throw new MockIstiodError('USAGE', '--tls-dir: expected a directory');
  const { ca } = parseTlsFlags(values, env); // checks --trust-domain as serve does
  const prepared = await prepareTlsMaterial({
    dir,
    hosts: servingHosts({ dir, hosts: values['tls-host'] ?? [] }),
    trustDomain: ca.trustDomain ?? DEFAULT_CA_OPTIONS.trustDomain,
  });
  if (!prepared.ok)
    throw MockIstiodError.fromProblems(
      'INVALID_OPTIONS',
      'invalid TLS directory',
      prepared.problems,
    );
  for (const note of prepared.value.notes) process.stderr.write(`${note}\n`);
  process.stdout.write(`${dir}\n`);
  return 0;
}

type CertsValues = FlagValues<typeof OPTIONS>;

/** `--for istioctl`: a key and a certificate from the directory's CA, with the root beside. */
async function forIstioctl(values: CertsValues, env: NodeJS.ProcessEnv): Promise<number> {
  if (values.for !== 'istioctl') {
    throw new MockIstiodError('USAGE', `--for: expected istioctl, got "${values.for}"`);
  }
  if (values['tls-host'] !== undefined) {
    throw new MockIstiodError('USAGE', '--tls-host: not with --for (it names serving hosts)');
  }
  const out = values.out;
  if (out === undefined || out === '') {
    throw new MockIstiodError(
      'USAGE',
      "--out: expected the directory to write istioctl's files to",
    );
  }
  const { ca: caOptions } = parseTlsFlags(values, env); // checks --trust-domain
  const trustDomain = caOptions.trustDomain ?? DEFAULT_CA_OPTIONS.trustDomain;
  const identity = resolveTokenRequest({
    namespace: values.ns ?? 'istio-system',
    serviceAccount: values.sa ?? 'default',
  });
  if (!identity.ok) {
    const flag: Record<string, string> = { namespace: '--ns', serviceAccount: '--sa' };
    throw new MockIstiodError(
      'USAGE',
      identity.problems.map((p) => `${flag[p.path] ?? p.path}: ${p.message}`).join('; '),
    );
  }
  const lifetimeMs = values.ttl === undefined ? DAY_MS : parseDuration(values.ttl);
  if (lifetimeMs === undefined || lifetimeMs <= 0) {
    throw new MockIstiodError(
      'USAGE',
      `--ttl: expected a duration such as 1h or 30d, got "${values.ttl}"`,
    );
  }

  const dir = values['tls-dir'] ?? (env.MOCK_ISTIOD_TLS_DIR || defaultTlsDir(env));
  assertOwnTlsDir(dir, Object.values(TLS_FILES));
  const path = (name: keyof typeof TLS_FILES) => join(dir, TLS_FILES[name]);
  const read = (name: keyof typeof TLS_FILES) =>
    existsSync(path(name)) ? readFileSync(path(name), 'utf8') : undefined;
  const rootCertPem = read('rootCert');
  const caKeyPem = read('caKey');
  if (rootCertPem === undefined || caKeyPem === undefined) {
    const missing = (['rootCert', 'caKey'] as const).filter((name) => read(name) === undefined);
    throw new MockIstiodError(
      'USAGE',
      `--tls-dir: ${missing.map(path).join(' and ')} not found: start the mock with ` +
        `\`mock-istiod serve --tls-dir ${dir}\` first (it makes them), or name its --tls-dir`,
    );
  }
  const problems: Problem[] = [];
  const ca = await loadCa(rootCertPem, caKeyPem, path, problems, []);
  if (!ca) {
    throw MockIstiodError.fromProblems('INVALID_OPTIONS', 'invalid TLS directory', problems);
  }
  const { namespace, serviceAccount } = identity.value;
  const spiffe = `spiffe://${trustDomain}/ns/${namespace}/sa/${serviceAccount}`;
  const issued = await issueWorkloadCertificate(ca, [spiffe], lifetimeMs);
  mkdirSync(out, { recursive: true, mode: 0o700 });
  writeFileSync(join(out, TLS_FILES.certChain), issued.certPem, { mode: 0o644 });
  writeFileSync(join(out, TLS_FILES.key), issued.keyPem, { mode: 0o600 });
  writeFileSync(join(out, TLS_FILES.rootCert), rootCertPem, { mode: 0o644 });
  process.stderr.write(`issued ${spiffe} from ${path('rootCert')}\n`);
  process.stdout.write(`${out}\n`);
  return 0;
}
