/**
 * `mock-istiod bootstrap`: writes the Envoy bootstrap pilot-agent would write for this pod,
 * from the same inputs (the pod's environment variables and the discovery address), and
 * optionally has the real Envoy validate it. The flag set is shared with `mock-istiod agent`.
 * With `--grpc`, the file pilot-agent writes for a proxyless gRPC pod instead
 * (grpc-bootstrap.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderBootstrap, type BootstrapFormat } from '../../bootstrap/render.js';
import { makeSidecarBootstrap, resolveSidecarBootstrapOptions } from '../../bootstrap/sidecar.js';
import { formatProblems, type Problem } from '../../util/problems.js';
import { ISTIO_META_PREFIX } from '../../bootstrap/pod-env.js';
import { isMockIstiodError } from '../../util/errors.js';
import { envoyValidateError, envoyValidateOkLine } from '../../bootstrap/validate-message.js';
import { validateEnvoyConfig } from '../../envoy/validate.js';
import { fail } from '../fail.js';
import { parseFlags } from '../flags.js';
import { parseChoice } from '../args.js';
import { POD_BOOTSTRAP_FLAGS, POD_BOOTSTRAP_HELP, podBootstrapInput } from './pod-flags.js';
import { CONTROL_FLAGS, CONTROL_HELP } from '../client/control-client.js';
import { refuseEnvoyOnlyFlags, writeGrpcBootstrap } from './grpc-bootstrap.js';

export const BOOTSTRAP_USAGE = `Usage: mock-istiod bootstrap [options]

Writes the Envoy bootstrap pilot-agent would write for this pod (node identity, the xds-grpc
cluster, CDS and LDS over ADS, the readiness and Prometheus listeners).

${POD_BOOTSTRAP_HELP}
  --format <format>                yaml|json (default yaml; json for an --out ending in .json)
  --out <file>                     write to this file instead of stdout
  --validate                       run \`envoy --mode validate\` on the result (ENVOY_BIN or
                                   the installed one): OK, or Envoy's error and exit code 1
  -h, --help                       show this help

Proxyless gRPC (the file pilot-agent writes for a pod of Istio's grpc-agent template, for
GRPC_XDS_BOOTSTRAP; JSON, pointing at the mock itself, node metadata GENERATOR=grpc):
  --grpc                           write the gRPC bootstrap instead of Envoy's
  --certs <dir>                    also write the pod's workload certificate from the running
                                   mock's CA into <dir> (cert-chain.pem, key.pem, root-cert.pem)
                                   and name it as the file_watcher certificate provider
${CONTROL_HELP}
`;

const OPTIONS = {
  ...POD_BOOTSTRAP_FLAGS,
  format: { type: 'string' },
  out: { type: 'string' },
  validate: { type: 'boolean', default: false },
  grpc: { type: 'boolean', default: false },
  certs: { type: 'string' },
  ...CONTROL_FLAGS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function bootstrap(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseFlags(argv, OPTIONS, BOOTSTRAP_USAGE);
  if (!values) return 0;
  if (values.grpc) refuseEnvoyOnlyFlags({ ...values, validate: values.validate || undefined });
  else if (values.certs !== undefined) {
    return fail('--certs goes with --grpc (an Envoy sidecar gets its certificate over SDS)', 2);
  }
  const fallbackFormat: BootstrapFormat = values.out?.endsWith('.json') ? 'json' : 'yaml';
  const format = parseChoice('--format', values.format, ['yaml', 'json'] as const, fallbackFormat);
  const input = podBootstrapInput(values, env);
  if (!input.ok) return fail(input.message, 2);
  const built = resolveSidecarBootstrapOptions(input.options);
  if (!built.ok) return fail(formatProblems(built.problems.map(asVariable)), 2);
  if (values.grpc) return writeGrpcBootstrap(input.options, values, env);
  const text = renderBootstrap(makeSidecarBootstrap(built.value), format);
  if (values.out === undefined) process.stdout.write(text);
  else writeFileSync(values.out, text);
  return values.validate ? validate(text, format, values.out) : 0;
}

/** A metadata problem names the variable it came from: `ISTIO_META_DNS_CAPTURE`. */
function asVariable(problem: Problem): Problem {
  const key = /^metadata\.(.+)$/.exec(problem.path)?.[1];
  return key === undefined ? problem : { ...problem, path: `${ISTIO_META_PREFIX}${key}` };
}

/** Runs Envoy's validation on the written file (or a temporary copy) and reports in one place. */
async function validate(text: string, format: BootstrapFormat, out: string | undefined) {
  const dir = out === undefined ? mkdtempSync(join(tmpdir(), 'mock-istiod-bootstrap-')) : undefined;
  const path = out ?? join(dir ?? '', `bootstrap.${format}`);
  try {
    if (out === undefined) writeFileSync(path, text);
    const result = await validateEnvoyConfig(path);
    if (result.ok) {
      process.stderr.write(
        `${envoyValidateOkLine(result.output) ?? `configuration '${path}' OK`}\n`,
      );
      return 0;
    }
    return fail(
      `envoy --mode validate rejected the bootstrap: ${envoyValidateError(result.output)}`,
      1,
    );
  } catch (err) {
    if (isMockIstiodError(err, 'ENVOY_NOT_FOUND')) return fail(err.message, 1);
    throw err;
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}
