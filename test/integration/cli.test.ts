import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { packageRoot } from '../../src/util/package-root.js';

const cli = useCli();

describe('mock-istiod serve', () => {
  it('serves on the ports it reports and exits 0 on SIGTERM, ending streams with UNAVAILABLE', async () => {
    const run = cli.start(['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS]);
    const client = new AdsTestClient((await waitForServing(run)).xds);
    try {
      const stream = client.sotw();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
      expect((await stream.next(10_000)).resources).toHaveLength(2);
      run.child.kill('SIGTERM');
      expect(await run.exited()).toBe(0);
      expect((await stream.done).code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      client.close();
    }
  });

  it('on SIGTERM flushes the journal file, with the stream closed as the last entries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-cli-'));
    const journal = join(dir, 'journal.jsonl');
    try {
      const run = cli.start(['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS, '--journal', journal]);
      const client = new AdsTestClient((await waitForServing(run)).xds);
      try {
        const stream = client.sotw();
        stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
        await stream.next(10_000);
        run.child.kill('SIGTERM');
        expect(await run.exited()).toBe(0);
      } finally {
        client.close();
      }
      const kinds = readFileSync(journal, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { kind: string }).kind);
      expect(kinds).toEqual(['open', 'subscribe', 'response', 'close']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [['serve', '--port', 'abc'], 'mock-istiod: --port: expected a port number 0-65535, got "abc"'],
    [['serve', '--bogus'], "mock-istiod: Unknown option '--bogus'"],
    [['serve', '--log-level', 'loud'], 'mock-istiod: --log-level: expected one of'],
    [['frobnicate'], 'mock-istiod: unknown command "frobnicate"'],
  ])('%j fails with one clear line and exit code 2', async (args, message) => {
    const run = await cli.run(args);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
  });

  it.each([['--version'], ['-V']])(
    '%s prints the version in package.json and exits 0',
    async (flag) => {
      const { version } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
        version: string;
      };
      const run = await cli.run([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`mock-istiod ${version}\n`);
    },
  );

  it('says which port is taken when it cannot listen', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = await cli.run([
        'serve',
        '--port',
        '0',
        '--control-port',
        String(port),
        '--log-level',
        'silent',
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(
        `mock-istiod: cannot listen for the control API on 127.0.0.1:${port} (EADDRINUSE): the port is in use; choose another with --control-port`,
      );
    } finally {
      taken.close();
    }
  });
});
