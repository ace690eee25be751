/**
 * The CA's control endpoints: mint a test token (what `mock-istiod token` asks for), and read
 * the root certificate. The token signing key itself is never sent anywhere; off loopback
 * these routes, like every control route, need the control token.
 */
import { problemsResponse } from './responses.js';
import type { Route } from './router.js';
import type { HasSecurity } from './target.js';
import { TOKEN_ANSWER, TOKEN_BODY } from './api-schemas.js';
import { isObject } from '../util/guards.js';
import type { Problem } from '../util/problems.js';
import { resolveTokenRequest, subjectOf, type TokenRequest } from '../ca/service-account-token.js';

/**
 * `{ namespace, serviceAccount, audience | audiences, ttlSeconds }` → a partial token request,
 * with every problem of the body's shape (the values are checked by the token request itself).
 */
export function tokenRequestFromJson(body: unknown): {
  value: Partial<TokenRequest>;
  problems: Problem[];
} {
  if (body === undefined) return { value: {}, problems: [] };
  if (!isObject(body)) {
    return { value: {}, problems: [{ path: '', message: 'expected a JSON object' }] };
  }
  const { namespace, serviceAccount, audience, audiences, ttlSeconds, ...rest } = body;
  const problems: Problem[] = Object.keys(rest).map((key) => ({
    path: key,
    message: 'unknown field (expected namespace, serviceAccount, audience(s), ttlSeconds)',
  }));
  if (audience !== undefined && audiences !== undefined) {
    problems.push({ path: 'audience', message: 'give audience or audiences, not both' });
  }
  const fields = {
    namespace,
    serviceAccount,
    audiences: audience !== undefined ? [audience] : audiences,
    ttlSeconds,
  };
  const value = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return { value, problems };
}

export function caRoutes(server: HasSecurity): Route[] {
  return [
    {
      method: 'POST',
      path: '/ca/token',
      summary:
        'mint a service account token for the CA: {namespace, serviceAccount, audience(s), ttlSeconds}',
      body: TOKEN_BODY,
      answer: TOKEN_ANSWER,
      handle: ({ body }) => {
        const parsed = tokenRequestFromJson(body);
        const checked = resolveTokenRequest(parsed.value);
        const problems = [...parsed.problems, ...(checked.ok ? [] : checked.problems)];
        if (!checked.ok || problems.length > 0) {
          return problemsResponse('invalid token request', problems);
        }
        const { token, expiresAt } = server.security.createToken(checked.value);
        const subject = subjectOf(checked.value);
        return { status: 200, body: { token, expiresAt: expiresAt.toISOString(), subject } };
      },
    },
    {
      method: 'GET',
      path: '/ca/root-cert',
      summary: "the CA's root certificate (PEM): what Envoy's validation_context must trust",
      handle: () => ({
        status: 200,
        body: server.security.rootCert,
        contentType: 'application/x-pem-file',
      }),
    },
  ];
}
