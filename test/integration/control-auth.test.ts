import { describe, expect } from 'vitest';
import { MockIstiodError } from '../../src/util/errors.js';
import { createMockIstiod } from '../../src/app/mock-istiod.js';
import { it, test } from '../support/fixtures/test.js';

describe('control API access', () => {
  it('refuses to listen beyond loopback without a token, saying how to give one', () => {
    const create = () => createMockIstiod({ control: { host: '0.0.0.0', port: 0 } });
    expect(create).toThrow(MockIstiodError);
    expect(create).toThrow(
      /not loopback, without a token: set one with --control-token or MOCK_ISTIOD_CONTROL_TOKEN/,
    );
  });

  describe('with a token', () => {
    test.override({ mockOptions: { controlToken: 's3cret' } });
    it('answers 401 without it or with a wrong one, and serves with it', async ({
      mock: server,
    }) => {
      const url = `http://127.0.0.1:${server.addresses.control?.port}/control/state`;
      const none = await fetch(url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expect(await none.json()).toEqual({
        error: 'this control API needs "Authorization: Bearer <token>"',
        problems: [],
      });
      expect((await fetch(url, { headers: { authorization: 'Bearer wrong!' } })).status).toBe(401);
      const ok = await fetch(url, { headers: { authorization: 'Bearer s3cret' } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ withheld: false, streams: [] });
    });
  });

  it('refuses a body over 1 MiB with 413', async ({ mock: server }) => {
    const res = await fetch(`http://127.0.0.1:${server.addresses.control?.port}/control/release`, {
      method: 'POST',
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'request body is larger than 1048576 bytes' });
  });
});
