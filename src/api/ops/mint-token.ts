/**
 * `POST /ca/token`: mint a service account token for the mock's CA (what `mock-istiod token`
 * asks for). The signing key never leaves the mock.
 */
import { object, str, type Minted } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const mintToken = defineOperation({
  name: 'mintToken',
  method: 'POST',
  path: '/ca/token',
  summary:
    'mint a service account token for the CA: {namespace, serviceAccount, audience(s), ttlSeconds}',
  invalid: 'invalid token request',
  input: {
    namespace: { type: 'string', description: "the pod's namespace (default default)" },
    serviceAccount: { type: 'string', description: 'its service account (default default)' },
    audience: { type: 'string', description: "the token's audience (default istio-ca)" },
    audiences: { type: 'strings', description: 'its audiences, instead of audience' },
    ttlSeconds: { type: 'integer', min: 1, description: 'lifetime in seconds (default 3600)' },
  },
  output: answer<Minted>(
    object({ token: str, expiresAt: str, subject: str }, ['token', 'expiresAt', 'subject']),
  ),
  run: (t, input) => t.mintToken(input),
});
