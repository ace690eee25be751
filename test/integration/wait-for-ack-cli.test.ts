/**
 * `mock-istiod wait-for-ack`, `state` and `issue-cert` against a running mock: what each
 * prints, and the exit codes (wait-for-ack: 0 ACKed, 1 NACKed, 2 timed out or misused).
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { useCli } from '../support/fixtures/cli.js';
import { ack, handshake } from '../support/fixtures/handshake.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();

const url = (server: TestMockIstiod) => `http://127.0.0.1:${server.addresses.control?.port}`;

describe('wait-for-ack, state and issue-cert verbs', () => {
  it('wait-for-ack: 0 on an ACK, 1 on a NACK with the error, 2 on timeout', async ({
    mock,
    ads,
  }) => {
    const run = (...args: string[]) => cli.run([...args, '--control', url(mock)]);
    const stream = ads.sotw();
    const { cds, lds } = await handshake(stream);
    const acked = await run('wait-for-ack', '--type', 'CDS', '--timeout', '5s');
    expect(acked).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(
          `orders-v1-0.* ACKed Cluster version ${cds.version_info.replace(/[/.]/g, '\\$&')}\\n$`,
        ),
      ) as string,
    });

    const timedOut = await run('wait-for-ack', '--type', 'LDS', '--timeout', '200ms');
    expect(timedOut.code).toBe(2);
    expect(timedOut.stderr).toMatch(/timed out after 200 ms waiting for an ACK or NACK of LDS/);

    const waiting = run('wait-for-ack', '--type', 'LDS', '--timeout', '10s');
    // Before or after the CLI asks, the NACK is what it finds.
    stream.send({
      type_url: LISTENER_TYPE,
      version_info: '',
      response_nonce: lds.nonce,
      error_detail: { code: 3, message: 'no filters on listener' },
    });
    const nacked = await waiting;
    expect(nacked.code).toBe(1);
    expect(nacked.stdout).toMatch(/NACKed Listener version .*: no filters on listener\n$/);

    const misused = await run('wait-for-ack', '--timeout', 'soon');
    expect(misused.code).toBe(2);
    expect(misused.stderr).toMatch(/--type: .*; --timeout: /);
    ack(stream, lds);
  });

  it('state: the versions, and each stream with what it was sent and ACKed', async ({
    mock,
    ads,
  }) => {
    await handshake(ads.sotw());
    const text = await cli.run(['state', '--control', url(mock)]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^withheld: false {2}serving: true {2}profile: istiod\nversions: CDS=\S+ LDS=\S+\n/,
    );
    expect(text.stdout).toMatch(/\n {2}Cluster sent=\S+ acked=\S+\n/);
    const json = await cli.run(['state', '--control', url(mock), '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ streams: [{ protocol: 'sotw' }] });
  });

  it('issue-cert prints the chain and a key for the identity; a bad name exits 2', async ({
    mock,
  }) => {
    const run = (...args: string[]) => cli.run([...args, '--control', url(mock)]);
    const issued = await run('issue-cert', '--namespace', 'shop', '--service-account', 'orders');
    expect(issued.code).toBe(0);
    const pems = issued.stdout.match(/-----BEGIN [A-Z ]+-----[^-]+-----END [A-Z ]+-----/g) ?? [];
    expect(pems).toHaveLength(3);
    const leaf = new X509Certificate(pems[0]!);
    expect(leaf.subjectAltName).toBe('URI:spiffe://cluster.local/ns/shop/sa/orders');
    expect(leaf.checkPrivateKey(createPrivateKey(pems[2]!))).toBe(true);
    expect(new X509Certificate(pems[1]!).fingerprint256).toBe(
      new X509Certificate(mock.security.rootCert).fingerprint256,
    );
    const bad = await run('issue-cert', '--namespace', 'Shop!');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/namespace: expected a Kubernetes namespace name/);
  });
});
