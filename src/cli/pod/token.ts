/**
 * `mock-istiod token`: mints a Kubernetes-style service account token for the mock's CA
 * service — the projected token a pod sends with its CSR. By default the running mock mints
 * it (control API `POST /ca/token`; its signing key never leaves it); with `--tls-dir` the
 * token is signed here with that directory's `jwt-key.pem`, so the mock need not be running.
 */
import { parseFlags } from '../flags.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDuration } from '../../util/duration.js';
import {
  mintToken,
  resolveTokenRequest,
  subjectOf,
  type TokenRequest,
} from '../../ca/service-account-token.js';
import { loadJwtKey } from '../../tls/tls-files.js';
import { TLS_FILES } from '../../tls/tls-files.js';
import { assertOwnTlsDir } from '../../tls/dir-owner.js';
import type { Problem } from '../../util/problems.js';
import { MockIstiodError } from '../../util/errors.js';
import {
  CONTROL_FLAGS,
  CONTROL_HELP,
  clientFor,
  controlTarget,
  reportControlErrors,
  type ControlTarget,
} from '../client/control-client.js';

export const TOKEN_USAGE = `Usage: mock-istiod token [options]

Mints a service account token (a JWT, as a pod's projected token) for the mock's CA service,
istio.v1.auth.IstioCertificateService/CreateCertificate, and prints it. A token with the
wrong audience is refused as istiod refuses it: UNAUTHENTICATED "request authenticate failure".

  --ns <namespace>         the pod's namespace (default default)
  --sa <name>              its service account (default default)
  --aud <audience>         the token's audience, repeatable (default istio-ca)
  --ttl <duration>         lifetime, such as 10m or 2h (default 1h)
  --json                   print {"token", "expiresAt", "subject"} instead of the token alone
  --tls-dir <dir>          sign with <dir>/jwt-key.pem (the directory of \`serve --tls-dir\`)
                           instead of asking the running mock
${CONTROL_HELP}
  -h, --help               show this help
`;

const OPTIONS = {
  ns: { type: 'string' },
  sa: { type: 'string' },
  aud: { type: 'string', multiple: true },
  ttl: { type: 'string' },
  json: { type: 'boolean', default: false },
  'tls-dir': { type: 'string' },
  ...CONTROL_FLAGS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export interface Minted {
  token: string;
  expiresAt: string;
  subject: string;
}

const FLAG_OF: Record<string, string> = {
  namespace: '--ns',
  serviceAccount: '--sa',
  audiences: '--aud',
  ttlSeconds: '--ttl',
};

function usageError(problems: readonly Problem[]): MockIstiodError {
  return new MockIstiodError(
    'USAGE',
    problems.map((p) => `${FLAG_OF[p.path] ?? p.path}: ${p.message}`).join('; '),
  );
}

export async function token(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseFlags(argv, OPTIONS, TOKEN_USAGE);
  if (!values) return 0;
  const ttlMs = values.ttl === undefined ? undefined : parseDuration(values.ttl);
  if (ttlMs === undefined && values.ttl !== undefined) {
    throw new MockIstiodError(
      'USAGE',
      `--ttl: expected a duration such as 10m or 2h, got "${values.ttl}"`,
    );
  }
  const input: Partial<TokenRequest> = {
    ...(values.ns !== undefined ? { namespace: values.ns } : {}),
    ...(values.sa !== undefined ? { serviceAccount: values.sa } : {}),
    ...(values.aud !== undefined ? { audiences: values.aud } : {}),
    ...(ttlMs !== undefined ? { ttlSeconds: Math.round(ttlMs / 1000) } : {}),
  };
  const request = resolveTokenRequest(input);
  if (!request.ok) throw usageError(request.problems);
  const print = (minted: Minted) => {
    process.stdout.write(values.json ? `${JSON.stringify(minted)}\n` : `${minted.token}\n`);
    return 0;
  };
  if (values['tls-dir'] !== undefined) return print(mintLocally(values['tls-dir'], request.value));
  const target = controlTarget(values, env);
  return reportControlErrors(target, async () => print(await mintRemotely(target, input)));
}

/** Signs with the directory's key; a missing or wrong key is one line, exit 2. */
function mintLocally(dir: string, request: TokenRequest): Minted {
  const path = join(dir, TLS_FILES.jwtKey);
  // A key another user could have planted signs tokens that user can forge.
  assertOwnTlsDir(dir, [TLS_FILES.jwtKey]);
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch {
    throw new MockIstiodError(
      'USAGE',
      `--tls-dir: ${path} cannot be read; \`mock-istiod serve --tls-dir ${dir}\` creates it`,
    );
  }
  const problems: Problem[] = [];
  const key = loadJwtKey(pem, () => path, problems);
  if (!key)
    throw new MockIstiodError(
      'USAGE',
      `--tls-dir: ${path} ${problems[0]?.message ?? 'is not usable'}`,
    );
  const { token: jwt, expiresAt } = mintToken(key, request);
  return { token: jwt, expiresAt: expiresAt.toISOString(), subject: subjectOf(request) };
}

/** Asks the running mock to mint a token (`POST /ca/token`); its signing key stays there. */
export function mintRemotely(target: ControlTarget, input: Partial<TokenRequest>): Promise<Minted> {
  const hint =
    'is `mock-istiod serve` running there? (--control-host, --control-port), or sign offline with --tls-dir';
  return clientFor(target, { hint }).call('mintToken', input);
}
