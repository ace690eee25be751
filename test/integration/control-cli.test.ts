/**
 * The CLI verbs that drive a running mock (`release`, `withhold`, `down`, `up`, `reset`,
 * `push`, `disconnect`, `fault add|ls|rm`, `journal --follow`): their effect on the mock, the
 * `-o json` answers, and the exit codes (0 done, 1 not reachable, 2 refused or misused).
 */
import { describe, expect } from 'vitest';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { useCli } from '../support/fixtures/cli.js';
import { handshake } from '../support/fixtures/handshake.js';
import { syncProxy } from '../support/fixtures/synced-proxy.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();

const url = (server: TestMockIstiod) => `http://127.0.0.1:${server.addresses.control?.port}`;

describe('control verbs against a running mock', () => {
  it('withhold, release, push, disconnect, down, up, reset: each changes the mock', async ({
    startMock,
    connect,
  }) => {
    const server = await startMock({ controlToken: 'tok' });
    await syncProxy(server, connect(server));
    const run = (...args: string[]) =>
      cli.run([...args, '--control', url(server), '--control-token', 'tok']);
    expect(await run('withhold')).toMatchObject({
      code: 0,
      stdout: 'withholding every response\n',
    });
    expect((await server.control.state()).withheld).toBe(true);
    expect(await run('release', '-o', 'json')).toMatchObject({
      code: 0,
      stdout: '{"released":true,"withheld":false}\n',
    });
    expect(await run('push', '--types', 'CDS')).toMatchObject({
      code: 0,
      stdout: 'pushed to 1 stream(s)\n',
    });
    expect(await run('down')).toMatchObject({ code: 0 });
    expect((await server.control.state()).serving).toBe(false);
    expect(await run('up')).toMatchObject({ code: 0 });
    expect((await server.control.state()).serving).toBe(true);
    expect(await run('reset', '-o', 'json')).toMatchObject({
      code: 0,
      stdout: '{"removedFaults":0,"withheld":false,"serving":true}\n',
    });
    const noToken = await cli.run(['release', '--control', url(server)]);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/wants a token: --control-token/);
  });

  it('disconnect ends the stream with the status asked for', async ({ mock: server, ads }) => {
    await syncProxy(server, ads);
    const run = await cli.run([
      'disconnect',
      '--code',
      'PERMISSION_DENIED',
      '--control',
      url(server),
    ]);
    expect(run).toMatchObject({
      code: 0,
      stdout: 'disconnected 1 stream(s) with PERMISSION_DENIED\n',
    });
    await waitFor(() => server.streams().length === 0, { timeoutMs: 5_000 });
  });

  it('fault add, ls, rm; a bad fault exits 2 naming the field; nothing listening exits 1', async ({
    mock: server,
    ads,
  }) => {
    await syncProxy(server, ads);
    const run = (...args: string[]) => cli.run([...args, '--control', url(server)]);
    expect(await run('fault', 'add', 'withhold:types=LDS', '--id', 'hold')).toMatchObject({
      code: 0,
      stdout: 'fault hold (withhold) active\n',
    });
    expect((await server.control.listFaults()).faults.map((f) => f.id)).toEqual(['hold']);
    const ls = await run('fault', 'ls');
    expect(ls.stdout).toMatch(/^ID +SCENARIO +STATE +SCOPE +COUNTS\nhold +withhold +active +LDS/);
    const json = JSON.parse((await run('fault', 'ls', '-o', 'json')).stdout) as {
      faults: { id: string }[];
    };
    expect(json.faults.map((f) => f.id)).toEqual(['hold']);
    const bad = await run('fault', 'add', 'delay:ms=soon');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^mock-istiod: invalid fault: params\.ms: expected a duration/);
    expect(await run('fault', 'rm', 'hold')).toMatchObject({
      code: 0,
      stdout: 'removed 1 fault(s)\n',
    });
    expect((await server.control.listFaults()).faults).toEqual([]);
    expect((await run('fault', 'rm', 'hold')).code).toBe(2);
    expect((await run('fault', 'frobnicate')).code).toBe(2);
    const away = await cli.run(['fault', 'ls', '--control', 'http://127.0.0.1:1']);
    expect(away.code).toBe(1);
    expect(away.stderr).toMatch(/cannot reach mock-istiod at 127\.0\.0\.1:1/);
  });

  it('journal --follow prints new entries as they come, and ends on SIGINT with 0', async ({
    mock: server,
    ads: client,
  }) => {
    const follow = cli.start(['journal', '--follow', '-o', 'json', '--control', url(server)]);
    await waitFor(() => follow.child.pid !== undefined, { timeoutMs: 5_000 });
    await handshake(client.sotw());
    await waitFor(
      () =>
        follow
          .lines()
          .map((line) => JSON.parse(line) as { kind: string })
          .some((e) => e.kind === 'ack'),
      { timeoutMs: 10_000, description: 'an ack entry from journal --follow' },
    );
    follow.child.kill('SIGINT');
    expect(await follow.exited()).toBe(0);
  });
});
