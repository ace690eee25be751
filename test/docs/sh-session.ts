/**
 * Runs the ```sh blocks of one Markdown file as one terminal session, the way a user pastes
 * them, against a mock istiod and a real Envoy started on free ports (docs/docs-tests.md):
 *
 * - the documented default ports (15012 xDS, 15014 control, 15000 Envoy's admin, 15006 and
 *   10081 the lab's listeners) are rewritten to the session's, and `MOCK_ISTIOD_CONTROL_PORT`
 *   is set, as the client commands read it;
 * - `mock-istiod` is the checkout's CLI (`npm run cli --` without npm's banner);
 * - a command that starts a mock (`npm start …`, `mock-istiod serve …`) runs in the background
 *   on ports of its own until the block ends, and must answer `/ready`; the block's later
 *   commands talk to it;
 * - the commands run in a directory that links to the checkout, so files they write
 *   (`> sidecar.yaml`) land there and not in the repository.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeLabResources } from '../../src/resources/lab.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import {
  sidecarBootstrap,
  startEnvoy,
  startMockIstiod,
  type TestEnvoy,
  type TestMockIstiod,
} from '../../src/testing/index.js';
import { notRunnable, rewritePorts, startsServer, type PortMap } from './commands.js';
import { splitCommands, type Block, type Command } from './markdown.js';
import { checkColumns, checkJson, checkText, looksLikeJson } from './shape.js';

export const REPO = join(import.meta.dirname, '..', '..');

const COMMAND_TIMEOUT_MS = 30_000;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      stderr += `\n[docs test: no exit after ${COMMAND_TIMEOUT_MS} ms, killed]`;
      killGroup(child, 'SIGKILL');
    }, COMMAND_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** A mock started by a command of the block, in the background. */
interface Server {
  child: ChildProcess;
  ports: PortMap;
  output: string;
  exited: Promise<void>;
}

export class ShSession {
  private readonly dir = mkdtempSync(join(tmpdir(), 'docs-sh-'));
  private shared?: { istiod: TestMockIstiod; envoy: TestEnvoy; ports: PortMap };
  private server?: Server;
  /** Every command run, for the summary. */
  commands = 0;

  constructor() {
    // The working directory: the checkout's files, linked (so that `npm start`,
    // `envoy-configs/…` and `src/…` resolve), with the session's own files beside them.
    for (const entry of readdirSync(REPO)) {
      if (entry === '.git') continue;
      symlinkSync(join(REPO, entry), join(this.dir, entry));
    }
    const bin = join(this.dir, '.docs-bin');
    mkdirSync(bin);
    const cli = join(bin, 'mock-istiod');
    writeFileSync(
      cli,
      `#!/bin/sh\nexec "${join(REPO, 'node_modules', '.bin', 'tsx')}" "${join(REPO, 'src', 'cli', 'main.ts')}" "$@"\n`,
    );
    chmodSync(cli, 0o755);
  }

  /** Runs a block's commands in order; returns every problem, each naming its line. */
  async runBlock(block: Block): Promise<string[]> {
    const problems: string[] = [];
    const exports: string[] = [];
    try {
      const commands = splitCommands(block);
      const refused = commands.flatMap((c) => {
        const why = notRunnable(c.text);
        return why ? [`${block.file}:${c.line}: ${why}`] : [];
      });
      if (refused.length > 0) return refused;
      if (commands.length === 0) {
        return [`${block.file}:${block.line}: a \`sh\` block with no command: make it \`text\``];
      }
      for (const [index, command] of commands.entries()) {
        const where = `${block.file}:${command.line}`;
        this.commands += 1;
        if (startsServer(command.text)) {
          const failed = await this.startServer(command, exports);
          if (failed) return [`${where}: \`${command.text.trim()}\`: ${failed}`];
          continue;
        }
        if (/^export\s/.test(command.text.trim())) exports.push(command.text);
        const ports = await this.ports();
        const script = [...exports, rewritePorts(command.text, ports)].join('\n');
        const ran = await run(script, this.dir, this.env(ports.control));
        const said = `${where}: \`${command.text.trim()}\``;
        if (ran.code !== 0) {
          problems.push(`${said} exited ${ran.code}: ${(ran.stderr || ran.stdout).trim()}`);
          continue;
        }
        const documented = command.output.join('\n');
        if (documented !== '') {
          const misses = looksLikeJson(documented)
            ? checkJson(documented, ran.stdout)
            : command.output.flatMap((line) => checkText(line, ran.stdout + ran.stderr));
          problems.push(...misses.map((m) => `${said}: ${m}`));
        }
        const shown = block.next;
        if (index === 0 && (shown?.lang === 'json' || shown?.lang === 'text')) {
          const misses =
            shown.lang === 'json'
              ? checkJson(shown.code, ran.stdout)
              : checkColumns(shown.code, ran.stdout);
          problems.push(
            ...misses.map((m) => `${said}, output at ${shown.file}:${shown.line}: ${m}`),
          );
        }
      }
      return problems;
    } finally {
      await this.stopServer();
    }
  }

  private env(controlPort: number | undefined): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${join(this.dir, '.docs-bin')}:${process.env['PATH'] ?? ''}`,
      LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
    };
    if (controlPort !== undefined) env['MOCK_ISTIOD_CONTROL_PORT'] = String(controlPort);
    return env;
  }

  /** The ports commands talk to: the block's own mock if it started one, else the shared. */
  private async ports(): Promise<PortMap> {
    const shared = await this.sharedMock();
    return { ...shared.ports, ...this.server?.ports };
  }

  /** One mock and one real Envoy for the whole file, started at the first command. */
  private async sharedMock(): Promise<{ ports: PortMap }> {
    if (this.shared) return this.shared;
    const [inbound, outbound] = (await freePorts(2)) as [number, number];
    const istiod = await startMockIstiod({
      resources: makeLabResources({ inboundPort: inbound, outboundPort: outbound }),
    });
    const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(istiod) });
    await envoy.waitForState('LIVE');
    const ports: PortMap = {
      xds: istiod.addresses.xds.port,
      control: istiod.addresses.control?.port,
      admin: Number(new URL(envoy.adminUrl).port),
      inbound,
      outbound,
    };
    this.shared = { istiod, envoy, ports };
    return this.shared;
  }

  /** Starts a `serve` command in the background on free ports and waits for `/ready`. */
  private async startServer(command: Command, exports: string[]): Promise<string | undefined> {
    await this.stopServer();
    const [xds, control] = (await freePorts(2)) as [number, number];
    const env = { ...this.env(control), MOCK_ISTIOD_PORT: String(xds) };
    const script = [...exports, `exec ${command.text}`].join('\n');
    const child = spawn('bash', ['-c', script], { cwd: this.dir, env, detached: true });
    const server: Server = {
      child,
      ports: { xds, control },
      output: '',
      exited: new Promise((resolve) => child.on('close', () => resolve())),
    };
    child.stdout?.on('data', (d: Buffer) => (server.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (server.output += d.toString()));
    this.server = server;
    let exited = false;
    void server.exited.then(() => (exited = true));
    try {
      await waitFor(
        async () => {
          if (exited) return 'exited';
          try {
            const res = await fetch(`http://127.0.0.1:${control}/ready`);
            return res.ok ? 'ready' : undefined;
          } catch {
            return undefined;
          }
        },
        { timeoutMs: 20_000, intervalMs: 100, description: 'the mock to answer /ready' },
      ).then((state) => {
        if (state === 'exited') throw new Error('it exited');
      });
      return undefined;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return `${why}; its output:\n${server.output.trim().split('\n').slice(-10).join('\n')}`;
    }
  }

  private async stopServer(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    killGroup(server.child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(server.child, 'SIGKILL'), 5_000);
    await server.exited;
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    await this.stopServer();
    if (this.shared) {
      await this.shared.envoy.stop();
      await this.shared.istiod.close();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
