/**
 * Browser safety on the control port, as Vite's dev server and Jupyter check it. The control
 * API changes what every proxy is served and mints certificates, and on loopback it needs no
 * token by default, so a web page in the user's browser must not be able to drive it:
 *
 * - **Origin**: a page sends its own origin with every request that can change something
 *   (and with every `fetch`); one that is not the control port's own origin, as the browser
 *   sees it (`http://` + the request's `Host`), is refused. That stops the cross-origin
 *   "simple" requests (`text/plain` or form POSTs) that need no preflight.
 * - **Sec-Fetch-Site**: a request a browser marks `cross-site` or `same-site` (an `<img>`,
 *   a `<script>`, a `no-cors` fetch: none of them carry `Origin`) is refused, except a plain
 *   navigation (a link to the live page), whose answer only the user sees.
 * - **Host**: DNS rebinding makes a page's own origin resolve to 127.0.0.1; the page is then
 *   "same origin", but its requests name the attacker's host in `Host`. So `Host` must be a
 *   loopback name (`localhost`, `*.localhost`, which browsers resolve themselves), an IP
 *   address (a page whose origin is an IP literal cannot be rebound), the name the port is
 *   bound to, or a name the user allowed (`--control-allowed-host`). A request carrying the
 *   control token is exempt: a rebinding page cannot know it. kubelet's probes and
 *   Prometheus name the pod's IP, which passes.
 *
 * Clients outside a browser (curl, the CLI, Go) send no `Origin` and no `Sec-Fetch-*`, so
 * only the Host rule applies to them, and it passes for every address they dial by IP or by
 * loopback name. `Content-Type` is not checked: `curl -d` sends a form type, and the Origin
 * rule is what stops a page's simple requests.
 */
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/** The longest header value quoted back in a refusal (headers may be 16 KiB). */
const QUOTE_MAX = 200;

function quote(value: string): string {
  const cut = value.length > QUOTE_MAX ? `${value.slice(0, QUOTE_MAX)}…` : value;
  return JSON.stringify(cut);
}

/**
 * The problem with one `--control-allowed-host` value, or undefined when it is a host name:
 * `mock.example` allows that name, `.example.com` that name and every name under it.
 */
export function allowedHostProblem(value: string): string | undefined {
  const name = value.startsWith('.') ? value.slice(1) : value;
  if (/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/i.test(name)) {
    return undefined;
  }
  return (
    `expected a host name without scheme or port (mock.example, or .example.com for it and ` +
    `every name under it), found ${quote(value)}`
  );
}

/** The hostname of a `Host` header (lower case, IPv6 in brackets), or undefined if malformed. */
function hostnameOf(host: string): string | undefined {
  if (host === '' || /[/?#@\s\\]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

function nameAllowed(hostname: string, allowed: readonly string[]): boolean {
  if (hostname.startsWith('[') || isIP(hostname) !== 0) return true;
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  return allowed.some((entry) => {
    const name = entry.toLowerCase().replace(/\.$/, '');
    if (!name.startsWith('.')) return hostname === name;
    return hostname === name.slice(1) || hostname.endsWith(name);
  });
}

/**
 * Why the request's `Host` is refused, or undefined when it is one of this port's names
 * (`allowed`: the bound address and the names the user gave). A request without `Host`
 * (HTTP/1.0) comes from no browser and passes.
 */
export function hostRefusal(req: IncomingMessage, allowed: readonly string[]): string | undefined {
  const host = req.headers.host;
  if (host === undefined) return undefined;
  const hostname = hostnameOf(host);
  if (hostname !== undefined && nameAllowed(hostname, allowed)) return undefined;
  return (
    `Host ${quote(host)} is not a name of this control API: it answers loopback names, IP ` +
    'addresses, the address it listens on and names given with --control-allowed-host ' +
    '(or any Host with its control token), so that a web page cannot reach it by DNS rebinding'
  );
}

/** The control port's own origin as a browser sees it, or undefined without a usable Host. */
function ownOrigin(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (host === undefined || hostnameOf(host) === undefined) return undefined;
  return new URL(`http://${host}`).origin;
}

function sameOrigin(origin: string, own: string | undefined): boolean {
  if (own === undefined || origin === 'null') return false;
  try {
    return new URL(origin).origin === own;
  } catch {
    return false;
  }
}

/** True for a browser's plain navigation (a link followed, a URL typed): GET, mode navigate. */
function isNavigation(req: IncomingMessage): boolean {
  const method = req.method ?? 'GET';
  return (method === 'GET' || method === 'HEAD') && req.headers['sec-fetch-mode'] === 'navigate';
}

/**
 * Why a browser's request from another origin or site is refused, or undefined when it is
 * not one (see the comment at the top).
 */
export function crossOriginRefusal(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, ownOrigin(req))) {
    const own = ownOrigin(req);
    return (
      `cross-origin request refused: Origin ${quote(origin)} is not this control API's own ` +
      `origin${own === undefined ? '' : ` (${own})`}; only its own page may call it from a browser`
    );
  }
  const site = req.headers['sec-fetch-site'];
  if ((site === 'cross-site' || site === 'same-site') && !isNavigation(req)) {
    return (
      `cross-site request refused (Sec-Fetch-Site: ${site}): ` +
      'only its own page may call this control API from a browser'
    );
  }
  return undefined;
}
