/**
 * Pods' own tokens, reviewed by the cluster that signed them, as istiod reviews them: a
 * Kubernetes TokenReview (`POST /apis/authentication.k8s.io/v1/tokenreviews`) with the
 * token and the CA's audiences, then istiod's checks of the answer
 * (security/pkg/k8s/tokenreview) with its messages: an error from the API server, "the
 * service account authentication returns an error: …", "the token is not authenticated",
 * "the token is not a service account", "invalid username field in the token review result".
 *
 * Where the API server is: `in-cluster` (the pod's own service account, as client-go's
 * in-cluster config finds it) or a kubeconfig file (its current context: the server, its CA,
 * and a token, a token file or a client certificate). The mock's service account needs
 * `create` on `tokenreviews` (deploy/base's ClusterRole).
 */
import { readFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { MockIstiodError } from '../util/errors.js';
import { isObject } from '../util/guards.js';
import type { TokenReview } from './service-account-token.js';

/** Where the API server that reviews tokens is: the pod's own, or a kubeconfig's. */
export type TokenReviewSource = 'in-cluster' | { kubeconfig: string };

/** What reaches the API server: its address, the CA to trust it by, the mock's credentials. */
export interface KubeApiAccess {
  /** `https://host:port`. */
  server: string;
  ca?: Buffer;
  /** A bearer token (read again for every review, since a projected token rotates). */
  token?: () => string;
  cert?: Buffer;
  key?: Buffer;
  /** Where these came from, for messages. */
  origin: string;
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
export const TOKEN_REVIEW_TIMEOUT_MS = 5_000;
const TOKEN_REVIEW_PATH = '/apis/authentication.k8s.io/v1/tokenreviews';

function unreadable(origin: string, path: string, err: unknown): MockIstiodError {
  return new MockIstiodError(
    'USAGE',
    `--token-review ${origin}: cannot read ${path} (${(err as Error).message})`,
  );
}

function readFile(origin: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw unreadable(origin, path, err);
  }
}

/** The pod's own service account and the API server's Service, as client-go finds them. */
function inCluster(env: NodeJS.ProcessEnv, dir: string): KubeApiAccess {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) {
    throw new MockIstiodError(
      'USAGE',
      '--token-review in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (the mock is not in a pod); give a kubeconfig file instead',
    );
  }
  const tokenPath = `${dir}/token`;
  readFile('in-cluster', tokenPath);
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ca: readFile('in-cluster', `${dir}/ca.crt`),
    token: () => readFileSync(tokenPath, 'utf8').trim(),
    origin: 'in-cluster',
  };
}

type Named = { name?: unknown } & Record<string, unknown>;

function entry(list: unknown, name: unknown, field: string, path: string): Record<string, unknown> {
  if (typeof name !== 'string' || name === '') {
    throw new MockIstiodError(
      'USAGE',
      `--token-review ${path}: the current context names no ${field}`,
    );
  }
  const found = Array.isArray(list)
    ? (list as Named[]).find((item) => isObject(item) && item.name === name)
    : undefined;
  const inner = found?.[field];
  if (!isObject(inner)) {
    throw new MockIstiodError(
      'USAGE',
      `--token-review ${path}: the current context names ${field} "${String(name)}", which the file does not define`,
    );
  }
  return inner;
}

/** A kubeconfig's current context: its cluster's server and CA, its user's credentials. */
function fromKubeconfig(path: string): KubeApiAccess {
  const file = resolve(path);
  let config: unknown;
  try {
    config = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw unreadable(path, file, err);
  }
  if (!isObject(config) || typeof config['current-context'] !== 'string') {
    throw new MockIstiodError(
      'USAGE',
      `--token-review ${path}: expected a kubeconfig with a current-context`,
    );
  }
  const context = entry(config['contexts'], config['current-context'], 'context', path);
  const cluster = entry(config['clusters'], context['cluster'], 'cluster', path);
  const user = entry(config['users'], context['user'], 'user', path);
  const base = dirname(file);
  const data = (inline: unknown, ref: unknown): Buffer | undefined =>
    typeof inline === 'string'
      ? Buffer.from(inline, 'base64')
      : typeof ref === 'string'
        ? readFile(path, resolve(base, ref))
        : undefined;
  if (typeof cluster['server'] !== 'string' || !cluster['server'].startsWith('https://')) {
    throw new MockIstiodError(
      'USAGE',
      `--token-review ${path}: expected the cluster's server to be an https:// address`,
    );
  }
  const tokenFile = typeof user['tokenFile'] === 'string' ? resolve(base, user['tokenFile']) : '';
  // Read now, so that a missing file fails at start (and again for every review: it may rotate).
  if (typeof user['token'] !== 'string' && tokenFile !== '') readFile(path, tokenFile);
  const token =
    typeof user['token'] === 'string'
      ? () => user['token'] as string
      : tokenFile !== ''
        ? () => readFileSync(tokenFile, 'utf8').trim()
        : undefined;
  const access: KubeApiAccess = {
    server: cluster['server'],
    ca: data(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: data(user['client-certificate-data'], user['client-certificate']),
    key: data(user['client-key-data'], user['client-key']),
    origin: path,
  };
  if (token) access.token = token;
  if (!access.token && !(access.cert && access.key)) {
    throw new MockIstiodError(
      'USAGE',
      `--token-review ${path}: its user has no token, tokenFile or client certificate and key`,
    );
  }
  return access;
}

/** Resolves where the API server is, reading what it needs now: a bad source fails at start. */
export function kubeApiAccess(
  source: TokenReviewSource,
  env: NodeJS.ProcessEnv = process.env,
  serviceAccountDir = SERVICE_ACCOUNT_DIR,
): KubeApiAccess {
  return source === 'in-cluster'
    ? inCluster(env, serviceAccountDir)
    : fromKubeconfig(source.kubeconfig);
}

interface ReviewStatus {
  authenticated?: boolean;
  error?: string;
  user?: { username?: string; groups?: string[] };
}

/** istiod's reading of a TokenReview's status (security/pkg/k8s/tokenreview). */
export function readReviewStatus(status: ReviewStatus | undefined): TokenReview {
  if (status?.error) {
    return {
      ok: false,
      reason: `the service account authentication returns an error: ${status.error}`,
    };
  }
  if (status?.authenticated !== true)
    return { ok: false, reason: 'the token is not authenticated' };
  if (!(status.user?.groups ?? []).includes('system:serviceaccounts')) {
    return { ok: false, reason: 'the token is not a service account' };
  }
  const parts = (status.user?.username ?? '').split(':');
  if (parts.length !== 4) {
    return { ok: false, reason: 'invalid username field in the token review result' };
  }
  return { ok: true, identity: { namespace: parts[2]!, serviceAccount: parts[3]! } };
}

export type TokenReviewer = (token: string) => Promise<TokenReview>;

/** Reviews each token with the API server; never rejects: a failure is a refusal with its reason. */
export function createKubeTokenReviewer(
  access: KubeApiAccess,
  audiences: readonly string[],
  timeoutMs = TOKEN_REVIEW_TIMEOUT_MS,
): TokenReviewer {
  const url = reviewUrl(access.server);
  return async (token) => {
    let credential: string | undefined;
    try {
      credential = access.token?.();
    } catch (err) {
      return { ok: false, reason: `cannot read the mock's own token: ${(err as Error).message}` };
    }
    const body = JSON.stringify({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, audiences },
    });
    const options: RequestOptions = {
      method: 'POST',
      timeout: timeoutMs,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'content-length': Buffer.byteLength(body),
        ...(credential && { authorization: `Bearer ${credential}` }),
      },
      ...(access.ca && { ca: access.ca }),
      ...(access.cert && { cert: access.cert }),
      ...(access.key && { key: access.key }),
    };
    const answer = await post(url, options, body, timeoutMs);
    return answer instanceof Error
      ? { ok: false, reason: `the TokenReview at ${access.server} failed: ${answer.message}` }
      : readAnswer(answer.status, answer.text);
  };
}

/** One HTTPS POST: the status and body, or the error that ended it (never rejects). */
function post(
  url: URL,
  options: RequestOptions,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string } | Error> {
  return new Promise((resolve) => {
    const req = request(url, options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      // Without these, a response cut short (the connection lost, or the timeout in the middle
      // of the body) would end neither here nor in the request's 'error': the call would hang.
      res.on('error', resolve);
      res.on('close', () => resolve(new Error('the connection closed before the answer ended')));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', resolve);
    req.end(body);
  });
}

/**
 * Where TokenReviews are posted: the API path after the server's own path, as client-go
 * appends it (a server such as `https://proxy/k8s/clusters/c-1` keeps its prefix).
 */
export function reviewUrl(server: string): URL {
  const url = new URL(server);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${TOKEN_REVIEW_PATH}`;
  return url;
}

function readAnswer(status: number, text: string): TokenReview {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: `the API server answered ${status} with no JSON` };
  }
  if (status < 200 || status > 299) {
    // A Kubernetes Status: its message is what client-go's error says.
    const message = isObject(json) && typeof json['message'] === 'string' ? json['message'] : '';
    return { ok: false, reason: message || `the API server answered ${status}` };
  }
  return readReviewStatus(
    isObject(json) ? (json['status'] as ReviewStatus | undefined) : undefined,
  );
}
