import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { waitFor } from '../../src/util/wait.js';
import { packageRoot } from '../../src/util/package-root.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { sidecarNode } from '../support/nodes.js';

interface Run {
  child: ChildProcess;
  stdout: string[];
  stderr: () => string;
  exit: Promise<number | null>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

function cli(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: packageRoot(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const stdout: string[] = [];
  let stderr = '';
  child.stdout
    ?.setEncoding('utf8')
    .on('data', (chunk: string) => stdout.push(...chunk.split('\n').filter(Boolean)));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout, stderr: () => stderr, exit };
}

/** The xDS address a `serve --log-format json` run reports once it listens. */
async function xdsAddress(run: Run): Promise<string> {
  const serving = await waitFor(
    () =>
      run.stdout
        .map((l) => JSON.parse(l) as { msg: string; xds?: string })
        .find((l) => l.msg === 'mock istiod is serving'),
    { timeoutMs: 15_000, description: 'the "mock istiod is serving" log line' },
  );
  return serving.xds as string;
}

describe('mock-istiod serve', () => {
  it('serves on the ports it reports and exits 0 on SIGTERM, ending streams with UNAVAILABLE', async () => {
    const run = cli(['serve', '--port', '0', '--control-port', '0', '--log-format', 'json']);
    const client = new AdsTestClient(await xdsAddress(run));
    try {
      const stream = client.sotw();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
      expect((await stream.next(10_000)).resources).toHaveLength(2);
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(0);
      expect((await stream.done).code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      client.close();
    }
  });

  it('on SIGTERM flushes the journal file, with the stream closed as the last entries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-cli-'));
    const journal = join(dir, 'journal.jsonl');
    try {
      const run = cli([
        'serve',
        '--port',
        '0',
        '--control-port',
        '0',
        '--log-format',
        'json',
        '--journal',
        journal,
      ]);
      const client = new AdsTestClient(await xdsAddress(run));
      try {
        const stream = client.sotw();
        stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
        await stream.next(10_000);
        run.child.kill('SIGTERM');
        expect(await run.exit).toBe(0);
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
    const run = cli(args);
    expect(await run.exit).toBe(2);
    const lines = run.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
  });

  it('says which port is taken when it cannot listen', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = cli([
        'serve',
        '--port',
        '0',
        '--control-port',
        String(port),
        '--log-level',
        'silent',
      ]);
      expect(await run.exit).toBe(2);
      expect(run.stderr().trim()).toBe(
        `mock-istiod: cannot listen for the control API on 127.0.0.1:${port} (EADDRINUSE): the port is in use; choose another with --control-port`,
      );
    } finally {
      taken.close();
    }
  });
});
