/**
 * `mock-istiod certs`: makes (or checks and completes) a TLS directory and exits, so that the
 * files can be handed to a mock that cannot write them itself: a Kubernetes Secret mounted
 * read-only (deploy/, docs/kubernetes.md), or a container started many times with one root.
 */
import { DEFAULT_CA_OPTIONS, servingHosts } from '../../ca/security-options.js';
import { prepareTlsMaterial } from '../../tls/tls-material.js';
import { TLS_FILES } from '../../tls/tls-files.js';
import { MockIstiodError } from '../../util/errors.js';
import { parseFlags } from '../flags.js';
import { parseTlsFlags } from './tls-flags.js';

export const CERTS_USAGE = `Usage: mock-istiod certs --tls-dir <dir> [options]

Makes the files serve --tls-dir uses (missing ones are made, present ones checked) and exits:
${Object.values(TLS_FILES).join(', ')}.

  --tls-dir <dir>          the directory [MOCK_ISTIOD_TLS_DIR]
  --tls-host <name>        another name or IP on the serving certificate (repeatable;
                           istiod.istio-system.svc and localhost are always on it)
  --trust-domain <domain>  the root's O= (default ${DEFAULT_CA_OPTIONS.trustDomain})
  -h, --help               show this help
`;

const OPTIONS = {
  'tls-dir': { type: 'string' },
  'tls-host': { type: 'string', multiple: true },
  'trust-domain': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function certs(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseFlags(argv, OPTIONS, CERTS_USAGE);
  if (!values) return 0;
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
