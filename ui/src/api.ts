/**
 * The page's calls to the mock's control API (same origin: the page is served on the control
 * port). When the mock has a token, the page sends it as `Authorization: Bearer …`; the token
 * is kept in sessionStorage, so it lives only as long as the tab.
 */
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

/** The URL of a control route, resolved against the page's own address (…/ui/ → /control/…). */
export function controlUrl(path: string): string {
  return new URL(path, window.location.origin).toString();
}

/** Calls a control route; resolves with its JSON answer, or rejects with the mock's message. */
export async function callControl(
  method: 'POST' | 'DELETE' | 'GET',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const headers: Record<string, string> = {};
  const token = loadToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(controlUrl(path), {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  const answer = parseJson(text);
  if (!response.ok) throw new Error(errorText(response.status, answer, text));
  return answer;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The mock's own error message (`{"error": …}`), or the HTTP status. */
function errorText(status: number, answer: unknown, text: string): string {
  const error = (answer as { error?: unknown } | undefined)?.error;
  if (typeof error === 'string') return error;
  return `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`;
}
