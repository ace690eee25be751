/**
 * Who may use the control API. On loopback (the default) anyone on the machine may, as with
 * istiod's debug port; bound anywhere else it needs a bearer token, because the API can
 * change what every connected proxy is served. A token, when set, is required on loopback
 * too.
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

/** True when the request carries the token (or no token is required). */
export function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const header = req.headers.authorization ?? '';
  const match = /^Bearer (.+)$/i.exec(header);
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1]);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
