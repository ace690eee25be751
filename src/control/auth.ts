/**
 * Who may use the control API. On loopback (the default) anyone on the machine may, as with
 * istiod's debug port; bound anywhere else it needs a bearer token, because the API can
 * change what every connected proxy is served. A token, when set, is required on loopback
 * too. Web pages in the user's browser are kept out by other checks (browser-guard.ts), not
 * by the token.
 */
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** The reason a control API on `host` cannot start, or undefined when it can. */
export function controlBindProblem(host: string, token: string | undefined): string | undefined {
  if (isLoopback(host) || token) return undefined;
  return (
    `the control API would listen on ${host}, which is not loopback, without a token: ` +
    'set one with --control-token or MOCK_ISTIOD_CONTROL_TOKEN (clients send "Authorization: Bearer <token>")'
  );
}

/**
 * True when the request carries the token (or no token is required): as
 * `Authorization: Bearer <token>`, or, where a route allows it, as `queryToken` (the
 * `?token=` of the live page's event stream, which a browser's EventSource cannot send as a
 * header). Compared in constant time.
 */
export function authorized(
  req: IncomingMessage,
  token: string | undefined,
  queryToken?: string | null,
): boolean {
  if (!token) return true;
  const header = req.headers.authorization ?? '';
  const match = /^Bearer (.+)$/i.exec(header);
  const given = match?.[1] ?? queryToken;
  return given !== undefined && given !== null && given !== '' && sameToken(given, token);
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The request's URL for logs, with a `?token=` hidden. */
export function redactedUrl(url: string | undefined): string {
  return (url ?? '/').replace(/([?&]token=)[^&#]*/g, '$1<hidden>');
}
