/**
 * The pure parts of the Kubernetes token review: istiod's reading of a TokenReview's status
 * (security/pkg/k8s/tokenreview, its exact messages), where the API server is and with which
 * credentials (in-cluster from a service account directory, or a kubeconfig's current
 * context), each mistake one precise line, and the URL a review is posted to.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubeApiAccess, readReviewStatus, reviewUrl } from '../../src/ca/kube-token-review.js';

const root = mkdtempSync(join(tmpdir(), 'kube-token-review-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SA_GROUPS = ['system:serviceaccounts', 'system:serviceaccounts:shop', 'system:authenticated'];

describe('readReviewStatus, as istiod reads a TokenReview', () => {
  it.each([
    [
      'an error from the authenticator',
      { error: '[invalid bearer token, token lookup failed]', authenticated: false },
      'the service account authentication returns an error: [invalid bearer token, token lookup failed]',
    ],
    ['not authenticated', { authenticated: false }, 'the token is not authenticated'],
    ['no status at all', undefined, 'the token is not authenticated'],
    [
      'a user outside system:serviceaccounts',
      { authenticated: true, user: { username: 'admin', groups: ['system:masters'] } },
      'the token is not a service account',
    ],
    [
      'a user with no groups',
      { authenticated: true, user: { username: 'system:serviceaccount:shop:orders' } },
      'the token is not a service account',
    ],
    [
      'a username of three parts',
      { authenticated: true, user: { username: 'system:serviceaccount:shop', groups: SA_GROUPS } },
      'invalid username field in the token review result',
    ],
    [
      'a username of five parts',
      {
        authenticated: true,
        user: { username: 'system:serviceaccount:shop:orders:x', groups: SA_GROUPS },
      },
      'invalid username field in the token review result',
    ],
  ])("%s: refused with istiod's message", (_what, status, reason) => {
    expect(readReviewStatus(status)).toEqual({ ok: false, reason });
  });

  it('a service account: its namespace and name from the username', () => {
    expect(
      readReviewStatus({
        authenticated: true,
        user: { username: 'system:serviceaccount:shop:orders', groups: SA_GROUPS },
      }),
    ).toEqual({ ok: true, identity: { namespace: 'shop', serviceAccount: 'orders' } });
  });
});

describe('kubeApiAccess in-cluster', () => {
  const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const saDir = join(root, 'serviceaccount');
  mkdirSync(saDir);
  writeFileSync(join(saDir, 'token'), 'pod-token\n');
  writeFileSync(join(saDir, 'ca.crt'), 'CA PEM');

  it('finds the Service, its CA and the pod token (read again each time, trimmed)', () => {
    const access = kubeApiAccess('in-cluster', env, saDir);
    expect(access).toMatchObject({ server: 'https://10.96.0.1:443', origin: 'in-cluster' });
    expect(access.ca?.toString()).toBe('CA PEM');
    expect(access.token?.()).toBe('pod-token');
    writeFileSync(join(saDir, 'token'), 'rotated');
    expect(access.token?.()).toBe('rotated');
  });

  it('brackets an IPv6 Service host', () => {
    const access = kubeApiAccess(
      'in-cluster',
      { ...env, KUBERNETES_SERVICE_HOST: 'fd00::1' },
      saDir,
    );
    expect(access.server).toBe('https://[fd00::1]:443');
  });

  it.each([{}, { KUBERNETES_SERVICE_HOST: '10.96.0.1' }, { KUBERNETES_SERVICE_PORT: '443' }])(
    'outside a pod (%j): says so and what to give instead',
    (partial) => {
      expect(() => kubeApiAccess('in-cluster', partial, saDir)).toThrow(
        '--token-review in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (the mock is not in a pod); give a kubeconfig file instead',
      );
    },
  );

  it('names the file it cannot read', () => {
    const empty = join(root, 'empty-sa');
    mkdirSync(empty);
    expect(() => kubeApiAccess('in-cluster', env, empty)).toThrow(
      `--token-review in-cluster: cannot read ${empty}/token (ENOENT: no such file or directory, open '${empty}/token')`,
    );
    writeFileSync(join(empty, 'token'), 't');
    expect(() => kubeApiAccess('in-cluster', env, empty)).toThrow(
      `--token-review in-cluster: cannot read ${empty}/ca.crt (ENOENT`,
    );
  });
});

/** A kubeconfig in its own directory under `root`; returns its path. */
function kubeconfig(name: string, yaml: string, files: Record<string, string> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  writeFileSync(join(dir, 'kubeconfig'), yaml);
  return join(dir, 'kubeconfig');
}

function config(
  user: string,
  cluster = 'server: https://127.0.0.1:6443, certificate-authority: ca.crt',
): string {
  return `apiVersion: v1
kind: Config
current-context: dev
contexts: [{ name: dev, context: { cluster: local, user: me } }]
clusters: [{ name: local, cluster: { ${cluster} } }]
users: [{ name: me, user: { ${user} } }]
`;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('kubeApiAccess from a kubeconfig', () => {
  it('a token, and the CA as a path relative to the kubeconfig', () => {
    const path = kubeconfig('token', config('token: abc'), { 'ca.crt': 'CA' });
    const access = kubeApiAccess({ kubeconfig: path });
    expect(access).toMatchObject({ server: 'https://127.0.0.1:6443', origin: path });
    expect(access.ca?.toString()).toBe('CA');
    expect(access.token?.()).toBe('abc');
    expect(access.cert).toBeUndefined();
  });

  it('a tokenFile relative to the kubeconfig, read again for every review', () => {
    const path = kubeconfig('token-file', config('tokenFile: sa/token'), { 'ca.crt': 'CA' });
    mkdirSync(join(root, 'token-file', 'sa'));
    writeFileSync(join(root, 'token-file', 'sa', 'token'), 'first\n');
    const access = kubeApiAccess({ kubeconfig: path });
    expect(access.token?.()).toBe('first');
    writeFileSync(join(root, 'token-file', 'sa', 'token'), 'second');
    expect(access.token?.()).toBe('second');
  });

  it('a missing tokenFile fails at start, naming it', () => {
    const path = kubeconfig('token-file-missing', config('tokenFile: nowhere'), { 'ca.crt': 'CA' });
    expect(() => kubeApiAccess({ kubeconfig: path })).toThrow(
      `--token-review ${path}: cannot read ${join(root, 'token-file-missing', 'nowhere')} (ENOENT`,
    );
  });

  it('client certificate and key files, relative or absolute', () => {
    const dir = join(root, 'cert-files');
    const path = kubeconfig(
      'cert-files',
      config(`client-certificate: client.crt, client-key: ${join(dir, 'client.key')}`),
      { 'ca.crt': 'CA', 'client.crt': 'CERT', 'client.key': 'KEY' },
    );
    const access = kubeApiAccess({ kubeconfig: path });
    expect([access.cert?.toString(), access.key?.toString(), access.token]).toEqual([
      'CERT',
      'KEY',
      undefined,
    ]);
  });

  it('inline -data forms, base64 decoded', () => {
    const path = kubeconfig(
      'cert-data',
      config(
        `client-certificate-data: ${b64('CERT')}, client-key-data: ${b64('KEY')}`,
        `server: 'https://k8s.example:443', certificate-authority-data: ${b64('CA')}`,
      ),
    );
    const access = kubeApiAccess({ kubeconfig: path });
    expect([access.ca, access.cert, access.key].map(String)).toEqual(['CA', 'CERT', 'KEY']);
  });

  it('a kubeconfig path relative to the working directory, as the flag gives it', () => {
    const path = kubeconfig('relative', config('token: t'), { 'ca.crt': 'CA' });
    const access = kubeApiAccess({ kubeconfig: relative(process.cwd(), path) });
    expect(access.ca?.toString()).toBe('CA');
  });

  it('a missing file, and a file that is not a kubeconfig', () => {
    const missing = join(root, 'nothing', 'kubeconfig');
    expect(() => kubeApiAccess({ kubeconfig: missing })).toThrow(
      `--token-review ${missing}: cannot read ${missing} (ENOENT`,
    );
    const path = kubeconfig('no-context', 'apiVersion: v1\nkind: Config\n');
    expect(() => kubeApiAccess({ kubeconfig: path })).toThrow(
      `--token-review ${path}: expected a kubeconfig with a current-context`,
    );
  });

  it.each([
    ['context', config('token: t').replace('current-context: dev', 'current-context: prod')],
    ['cluster', config('token: t').replace('cluster: local, user', 'cluster: far, user')],
    ['user', config('token: t').replace('user: me }', 'user: you }')],
  ])('a current context whose %s the file does not define', (field, yaml) => {
    const path = kubeconfig(`undefined-${field}`, yaml, { 'ca.crt': 'CA' });
    const name = { context: 'prod', cluster: 'far', user: 'you' }[field];
    expect(() => kubeApiAccess({ kubeconfig: path })).toThrow(
      `--token-review ${path}: the current context names ${field} "${name}", which the file does not define`,
    );
  });

  it('a context that names no user', () => {
    const yaml = config('token: t').replace('cluster: local, user: me', 'cluster: local');
    const path = kubeconfig('no-user', yaml, { 'ca.crt': 'CA' });
    expect(() => kubeApiAccess({ kubeconfig: path })).toThrow(
      `--token-review ${path}: the current context names no user`,
    );
  });

  it.each(['http://127.0.0.1:8080', '127.0.0.1:6443'])(
    'a server that is not https:// (%s)',
    (server) => {
      const path = kubeconfig(`plain-${server.length}`, config('token: t', `server: '${server}'`));
      expect(() => kubeApiAccess({ kubeconfig: path })).toThrow(
        `--token-review ${path}: expected the cluster's server to be an https:// address`,
      );
    },
  );

  it.each([
    ['no credentials', 'username: admin, password: secret'],
    ['a certificate without its key', `client-certificate-data: ${b64('CERT')}`],
  ])('a user with %s', (_what, user) => {
    const path = kubeconfig(`no-credentials-${user.length}`, config(user), { 'ca.crt': 'CA' });
    expect(() => kubeApiAccess({ kubeconfig: path })).toThrow(
      `--token-review ${path}: its user has no token, tokenFile or client certificate and key`,
    );
  });

  it('a CA file it cannot read', () => {
    const path = kubeconfig('no-ca', config('token: t'));
    expect(() => kubeApiAccess({ kubeconfig: path })).toThrow(
      `--token-review ${path}: cannot read ${join(root, 'no-ca', 'ca.crt')} (ENOENT`,
    );
  });
});

describe('reviewUrl', () => {
  it.each([
    ['https://10.96.0.1:443', 'https://10.96.0.1/apis/authentication.k8s.io/v1/tokenreviews'],
    ['https://k8s:6443/', 'https://k8s:6443/apis/authentication.k8s.io/v1/tokenreviews'],
    [
      'https://proxy/k8s/clusters/c-1',
      'https://proxy/k8s/clusters/c-1/apis/authentication.k8s.io/v1/tokenreviews',
    ],
  ])('%s: %s', (server, url) => {
    expect(reviewUrl(server).href).toBe(url);
  });
});
