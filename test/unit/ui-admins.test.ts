import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamView } from '../../src/core/events.js';
import {
  loopbackPeer,
  parseAdminAddress,
  trustedMetadataAdmin,
  UiAdmins,
} from '../../src/live/ui-admins.js';
import { waitFor } from '../../src/util/wait.js';
import { matchRoute, type Route } from '../../src/control/router.js';
import { redactedUrl } from '../../src/control/auth.js';

describe('admin addresses the page adds', () => {
  it('takes host:port, a bare port or an http URL, as a URL', () => {
    expect(parseAdminAddress('127.0.0.1:15000')).toEqual({
      ok: true,
      value: 'http://127.0.0.1:15000',
    });
    expect(parseAdminAddress(' 15000 ')).toEqual({ ok: true, value: 'http://127.0.0.1:15000' });
    expect(parseAdminAddress('[::1]:15000')).toEqual({ ok: true, value: 'http://[::1]:15000' });
    expect(parseAdminAddress('http://localhost:9901/')).toEqual({
      ok: true,
      value: 'http://localhost:9901',
    });
  });

  it('refuses anything else, naming the field', () => {
    for (const bad of ['', 'localhost', 'http://x:1/stats', 'https://x:1', 42, null]) {
      const result = parseAdminAddress(bad);
      expect(result.ok, JSON.stringify(bad)).toBe(false);
      if (!result.ok) expect(result.problems[0]?.path).toBe('address');
    }
  });
});

describe('loopbackPeer', () => {
  it('tells a proxy on this machine from one elsewhere, in the forms gRPC gives', () => {
    for (const peer of ['127.0.0.1:5000', 'ipv4:127.0.0.1:5000', '[::1]:5000', 'ipv6:[::1]:5000'])
      expect(loopbackPeer(peer), peer).toBe(true);
    for (const peer of ['10.0.0.1:5000', 'ipv4:192.168.1.2:5000', '[fe80::1]:5000'])
      expect(loopbackPeer(peer), peer).toBe(false);
  });
});

describe('trustedMetadataAdmin', () => {
  it('polls loopback only for a proxy on loopback, and a remote proxy only on its own host', () => {
    expect(trustedMetadataAdmin('http://127.0.0.1:15000', '127.0.0.1:5000')).toBe(true);
    expect(trustedMetadataAdmin('http://localhost:15000', 'ipv6:[::1]:5000')).toBe(true);
    expect(trustedMetadataAdmin('http://10.0.0.7:15000', 'ipv4:10.0.0.7:5000')).toBe(true);
    expect(trustedMetadataAdmin('http://10.0.0.7:15000', '[::ffff:10.0.0.7]:5000')).toBe(true);
    expect(trustedMetadataAdmin('http://10.0.0.8:15000', '10.0.0.7:5000')).toBe(false);
    expect(trustedMetadataAdmin('http://169.254.169.254:80', '127.0.0.1:5000')).toBe(false);
    expect(trustedMetadataAdmin('http://example.internal:15000', '10.0.0.7:5000')).toBe(false);
  });

  it("refuses a remote proxy's loopback address, in every spelling that reaches loopback", () => {
    const remote = ['10.0.0.7:5000', 'ipv4:192.168.1.2:5000', '[fe80::1]:5000'];
    const loopbacks = [
      'http://127.0.0.1:15000',
      'http://127.1.2.3:22',
      'http://localhost:15000',
      'http://LOCALHOST.:15000',
      'http://admin.localhost:15000',
      'http://[::1]:15000',
      'http://[::ffff:127.0.0.1]:15000',
      'http://0.0.0.0:15000',
      'http://[::]:15000',
      'http://2130706433:15000',
      'http://0x7f.1:15000',
    ];
    for (const peer of remote)
      for (const url of loopbacks)
        expect(trustedMetadataAdmin(url, peer), `${url} from ${peer}`).toBe(false);
  });

  it('refuses, without throwing, an address that is no URL', () => {
    for (const url of ['http://a b', 'http://', 'http://[::1', 'http://:::', 'http://%zz'])
      expect(trustedMetadataAdmin(url, '127.0.0.1:5000'), url).toBe(false);
  });
});

describe('UiAdmins polling addresses from metadata', () => {
  const stream = (peer: string, admin: string, id: string) =>
    ({
      connectionId: id,
      peer,
      proxy: { nodeId: `node-${id}`, metadata: { ENVOY_ADMIN_ADDRESS: admin } },
    }) as unknown as StreamView;

  it('GETs a loopback admin port for a loopback proxy, never for a remote one', async () => {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const errors: unknown[] = [];
      const admins = new UiAdmins({
        onSample: () => undefined,
        onChange: () => undefined,
        onError: (_what, err) => errors.push(err),
      });
      admins.tick([
        stream('ipv4:10.0.0.7:5000', `127.0.0.1:${port}`, 'remote'),
        stream('ipv4:10.0.0.7:5001', 'a b', 'garbage'),
      ]);
      expect(admins.list()).toEqual([]);
      admins.tick([stream('ipv4:127.0.0.1:5000', `127.0.0.1:${port}`, 'local')]);
      expect(admins.list().map((a) => a.admin)).toEqual([`http://127.0.0.1:${port}`]);
      await waitFor(() => paths.includes('/server_info') || undefined, {
        timeoutMs: 5_000,
        description: "the loopback proxy's admin API polled",
      });
      expect(errors).toEqual([]);
    } finally {
      server.close();
    }
  });
});

describe('routes with the rest of the path (/ui/*path)', () => {
  const route = (path: string): Route => ({
    method: 'GET',
    path,
    summary: path,
    handle: () => ({ status: 200, body: null }),
  });
  const routes = [route('/ui/events'), route('/ui/*path')];

  it('prefers an exact route, and hands the rest over decoded', () => {
    expect(matchRoute(routes, 'GET', '/ui/events')).toMatchObject({
      route: { path: '/ui/events' },
    });
    expect(matchRoute(routes, 'GET', '/ui/assets/a%20b.js')).toMatchObject({
      params: { path: 'assets/a b.js' },
    });
    expect(matchRoute(routes, 'GET', '/ui/')).toMatchObject({ params: { path: '' } });
    expect(matchRoute(routes, 'GET', '/ui')).toBeUndefined();
    expect(matchRoute(routes, 'POST', '/ui/x')).toEqual({ allowed: ['GET'] });
  });

  it('keeps a bad escape as it is instead of failing', () => {
    expect(matchRoute(routes, 'GET', '/ui/%E0%A4%A')).toMatchObject({
      params: { path: '%E0%A4%A' },
    });
  });
});

describe('redactedUrl', () => {
  it('hides a ?token= in the logs', () => {
    expect(redactedUrl('/ui/events?token=s3cret&x=1')).toBe('/ui/events?token=<hidden>&x=1');
    expect(redactedUrl('/ui/events?a=1&token=s3cret')).toBe('/ui/events?a=1&token=<hidden>');
  });
});
