/**
 * What a request must pass before any route runs: the browser checks (browser-guard.ts), then
 * the control token (auth.ts). A refusal is a 403 (a browser's request from elsewhere, or a
 * `Host` that is not this port's) or a 401 (no or wrong token), with the one refusal body.
 */
import type { IncomingMessage } from 'node:http';
import { authorized } from './auth.js';
import { crossOriginRefusal, hostRefusal } from './browser-guard.js';
import { errorResponse } from './responses.js';
import type { ControlResponse, RouteAccess } from './router.js';

export interface GateOptions {
  /** The control token, when one is set. */
  token: string | undefined;
  /** Names `Host` may carry besides loopback names and IP addresses (browser-guard.ts). */
  allowedHosts: readonly string[];
}

export interface GateRefusal {
  response: ControlResponse;
  /** The log line saying why. */
  reason: string;
}

function tokenRefusal(access: RouteAccess): GateRefusal {
  const how =
    access === 'token-or-query'
      ? '"Authorization: Bearer <token>" or ?token=<token>'
      : '"Authorization: Bearer <token>"';
  const response = errorResponse(401, `this control API needs ${how}`);
  return {
    response: { ...response, headers: { 'www-authenticate': 'Bearer' } },
    reason: 'control API: refused, no or wrong token',
  };
}

/** The refusal of a request, or undefined when its route may run. */
export function gateRequest(
  req: IncomingMessage,
  url: URL,
  access: RouteAccess,
  options: GateOptions,
): GateRefusal | undefined {
  const crossOrigin = crossOriginRefusal(req);
  if (crossOrigin !== undefined) {
    return {
      response: errorResponse(403, crossOrigin),
      reason: 'control API: refused, a browser request from another origin',
    };
  }
  const queryToken = access === 'token-or-query' ? url.searchParams.get('token') : undefined;
  const hasToken = authorized(req, options.token, queryToken);
  // A DNS-rebinding page cannot know the token: a request that carries it needs no Host check.
  const withToken = options.token !== undefined && hasToken;
  const badHost = withToken ? undefined : hostRefusal(req, options.allowedHosts);
  if (badHost !== undefined) {
    return {
      response: errorResponse(403, badHost),
      reason: 'control API: refused, Host is not a name of this port',
    };
  }
  if (access !== 'public' && !hasToken) return tokenRefusal(access);
  return undefined;
}
