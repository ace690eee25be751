/**
 * `serve --control-allowed-host <name>` (repeatable; `MOCK_ISTIOD_CONTROL_ALLOWED_HOSTS`,
 * comma-separated): host names the control API answers besides loopback names, IP addresses
 * and the address it listens on (src/control/browser-guard.ts).
 */
import { allowedHostProblem } from '../../control/browser-guard.js';
import { MockIstiodError } from '../../util/errors.js';

export const CONTROL_FLAGS = {
  'control-allowed-host': { type: 'string', multiple: true },
} as const;

export const CONTROL_USAGE = `  --control-allowed-host <name>
                           a Host name the control API answers besides loopback names, IP
                           addresses and --control-host (repeatable; .example.com: it and
                           every name under it) [MOCK_ISTIOD_CONTROL_ALLOWED_HOSTS,
                           comma-separated]; other names get 403 unless the request carries
                           the control token (docs/security.md)
`;

/** The allowed names from the flags, else from the environment; a bad one is a usage error. */
export function parseAllowedHosts(
  values: { 'control-allowed-host'?: string[] },
  env: NodeJS.ProcessEnv,
): string[] {
  const given =
    values['control-allowed-host'] ??
    (env.MOCK_ISTIOD_CONTROL_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
  for (const name of given) {
    const problem = allowedHostProblem(name);
    if (problem) throw new MockIstiodError('USAGE', `--control-allowed-host: ${problem}`);
  }
  return given;
}
