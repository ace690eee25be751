/**
 * `POST /ca/token`: mint a service account token for the mock's CA (what `mock-istiod token`
 * asks for). The signing key never leaves the mock.
 */
import { jsonField } from '../../core/fields.js';
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
    namespace: jsonField('string', "the pod's namespace (default default)"),
    serviceAccount: jsonField('string', 'its service account (default default)'),
    audience: jsonField('string', "the token's audience (default istio-ca)"),
    audiences: jsonField(
      { type: 'array', items: { type: 'string' } },
      'its audiences, instead of audience',
    ),
    ttlSeconds: jsonField({ type: 'integer', minimum: 1 }, 'lifetime in seconds (default 3600)'),
  },
  keepUnknown: true,
  output: answer<Minted>(
    object({ token: str, expiresAt: str, subject: str }, ['token', 'expiresAt', 'subject']),
  ),
  run: (t, input) => t.mintToken(input as TokenFields),
});
