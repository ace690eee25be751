/**
 * The page's calls to the mock's control API, through the one control client
 * (src/api/client.ts; same origin: the page is served on the control port). When the mock
 * has a token, the page sends it as `Authorization: Bearer …`; the token is kept in
 * sessionStorage, so it lives only as long as the tab.
 */
import { createControlClient } from '../../src/api/client.js';

const TOKEN_KEY = 'mock-istiod.token';

export function loadToken(): string {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

export function saveToken(token: string): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** Runs control operations (`control.call('release')`); a refusal rejects with the mock's line. */
export const control = createControlClient({
  baseUrl: window.location.origin,
  token: () => loadToken() || undefined,
});
