/**
 * `POST /ca/token`: mint a service account token for the mock's CA (what `mock-istiod token`
 * asks for). The signing key never leaves the mock.
 */
import { object, str, type Minted, type TokenFields } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const mintToken = defineOperation({
  name: 'mintToken',
  method: 'POST',
  path: '/ca/token',
  summary:
    'mint a service account token for the CA: {namespace, serviceAccount, audience(s), ttlSeconds}',
  invalid: 'invalid token request',
  // The CA checks the whole request (the values, and fields it does not know) and names
  // every problem at once; the fields here document it.
  input: {
    namespace: {
      type: 'json',
      schema: { type: 'string' },
      description: "the pod's namespace (default default)",
    },
    serviceAccount: {
      type: 'json',
      schema: { type: 'string' },
      description: 'its service account (default default)',
    },
    audience: {
      type: 'json',
      schema: { type: 'string' },
      description: "the token's audience (default istio-ca)",
    },
    audiences: {
      type: 'json',
      schema: { type: 'array', items: { type: 'string' } },
      description: 'its audiences, instead of audience',
    },
    ttlSeconds: {
      type: 'json',
      schema: { type: 'integer', minimum: 1 },
      description: 'lifetime in seconds (default 3600)',
    },
  },
  keepUnknown: true,
  output: answer<Minted>(
    object({ token: str, expiresAt: str, subject: str }, ['token', 'expiresAt', 'subject']),
  ),
  run: (t, input) => t.mintToken(input as TokenFields),
});
