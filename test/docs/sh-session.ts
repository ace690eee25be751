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
 *
 * With `{ e2e: true }` (test/e2e/docs-real.test.ts, the blocks marked `e2e`) it is the
 * session of a user with the real binaries and several terminals: `istioctl` and
 * `.istio/bin/istioctl` are the real istioctl (ISTIO_BIN_DIR), `serve --tls` keeps its files
 * in the session's own directory, a started mock puts the lab's listeners on free ports, a
 * `pilot-agent` (or `agent`) command, foreground or `&`, runs in the background on
 * free ports until its pod is `2/2`; so do the lab's app (`npm run upstream`, on the mock's
 * app port), an Envoy run by hand (`envoy -c <file>`, the file's fixed ports moved to free
 * ones) and the image (`podman run`, the e2e-built image on loopback and free ports); `docker
 * build` is built by podman. What a block started keeps running for the file's later blocks,
 * until a block starts another mock or the file ends. After every block the
 * pod must still be running and ready.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeLabResources } from '../../src/resources/lab.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import { DEFAULT_CLI_TLS_DIR } from '../../src/cli/serve/tls-flags.js';
import {
  sidecarBootstrap,
  startEnvoy,
  startMockIstiod,
  type TestEnvoy,
  type TestMockIstiod,
} from '../../src/testing/index.js';
import { moveFixedPorts } from '../support/harness/fixed-ports-bootstrap.js';
import {
  buildsGo,
  buildsImage,
  buildsWithDocker,
  envoyBootstrapOf,
  notRunnable,
  rewritePorts,
  startsContainer,
  startsGrpcServer,
  startsSidecar,
  startsServer,
  startsUpstream,
  type PortMap,
} from './commands.js';
import { splitCommands, type Block, type Command } from './markdown.js';
import { checkColumns, checkJson, checkText, looksLikeJson } from './shape.js';

export const REPO = join(import.meta.dirname, '..', '..');

const COMMAND_TIMEOUT_MS = 30_000;
/** docs/container.md's build context: in e2e, a directory of the session's (removed after). */
const IMAGE_CONTEXT_DIR = '/tmp/mock-istiod-context';
/** `serve --tls`'s default directory as the docs spell it (docs/security.md): in e2e, the session's. */
const DOCUMENTED_TLS_DIR = '~/.cache/mock-istiod/tls';
/** The tag a `docker build` twin builds under (never the documented one). */
const DOCKER_TWIN_TAG = 'mock-istiod:docs-context';
/** `curl -N …` alone on its line: a stream the user reads until Ctrl-C. */
const STREAM = /^curl\s(?:[^|;&]*\s)?-N\s[^|;&]*$/;
const STREAM_SECONDS = 3;
/** curl's exit code when --max-time ran out. */
const CURL_TIMED_OUT = 28;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** An image build (`docker build` of the context, its twin): minutes on two shared cores. */
const BUILD_TIMEOUT_MS = 300_000;

function run(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = COMMAND_TIMEOUT_MS,
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      stderr += `\n[docs test: no exit after ${timeoutMs} ms, killed]`;
      killGroup(child, 'SIGKILL');
    }, timeoutMs);
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
  /** What it printed on stdout alone (pilot-agent's pod view). */
  stdout: string;
  hasExited: boolean;
}

export interface ShSessionOptions {
  /** The e2e project's session: the real binaries, processes kept across blocks (above). */
  e2e?: boolean;
  /**
   * e2e: the built image a `podman run … mock-istiod:latest` runs instead, and the environment
   * `podman` needs on this machine (test/support/harness/image.ts).
   */
  image?: { tag: string; env: NodeJS.ProcessEnv };
}

/** Where the real pilot-agent and istioctl are (test/e2e/global-setup.ts checks them). */
function istioBinDir(): string {
  return process.env['ISTIO_BIN_DIR'] || join(REPO, '.istio', 'bin');
}

export class ShSession {
  private readonly dir = mkdtempSync(join(tmpdir(), 'docs-sh-'));
  private shared?: { istiod: TestMockIstiod; envoy: TestEnvoy; ports: PortMap };
  private server?: Server;
  /** The real pilot-agent a command started (e2e), with the ports it was given. */
  private agent?: Server;
  /** e2e: the lab's app a command started (`npm run upstream`), on a free port. */
  private upstream?: Server;
  /** e2e: the grpc-go example's server (`./grpc-xds-go server … &`), on the session's port. */
  private grpcServer?: Server;
  /** e2e: the port the docs' 7070 (the proxyless echo service) is, chosen once a file. */
  private grpcPort?: number;
  /** e2e: an Envoy run by hand (`envoy -c <file>`), its fixed ports moved to free ones. */
  private envoy?: { envoy: TestEnvoy; ports: PortMap };
  /** e2e: the command that started the running mock. */
  private serverCommand = '';
  private readonly e2e: boolean;
  private readonly image?: ShSessionOptions['image'];
  /** e2e: the tags a `docker build` twin made, removed when the file ends. */
  private readonly builtTags = new Set<string>();
  /** e2e: the container a `podman run` started, removed when its mock is stopped. */
  private container?: string;
  /** e2e: the `export` lines run so far in the file. */
  private readonly exports: string[] = [];
  /** Every command run, for the summary. */
  commands = 0;

  constructor(options: ShSessionOptions = {}) {
    this.e2e = options.e2e === true;
    this.image = options.image;
    // The working directory: the checkout's files, linked (so that `npm start`,
    // `envoy-configs/…` and `src/…` resolve), with the session's own files beside them.
    for (const entry of readdirSync(REPO)) {
      if (entry === '.git' || (this.e2e && entry === '.istio')) continue;
      symlinkSync(join(REPO, entry), join(this.dir, entry));
    }
    if (this.e2e) {
      // `.istio/bin/istioctl` as the docs write it, wherever the binaries are.
      mkdirSync(join(this.dir, '.istio'));
      symlinkSync(istioBinDir(), join(this.dir, '.istio', 'bin'));
      mkdirSync(join(this.dir, '.docs-tls'));
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
    // e2e: one shell for the whole file, so an `export` holds for the later blocks too.
    const exports = this.e2e ? this.exports : [];
    try {
      const commands = splitCommands(block);
      const refused = commands.flatMap((c) => {
        const why = notRunnable(c.text, this.e2e);
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
        if (this.e2e && startsContainer(command.text)) {
          const failed = await this.startContainer(command, exports);
          if (failed) return [`${where}: \`${command.text.trim()}\`: ${failed}`];
          continue;
        }
        if (this.e2e && startsSidecar(command.text)) {
          const failed = await this.startAgent(command, exports);
          if (failed) return [`${where}: \`${command.text.trim()}\`: ${failed}`];
          continue;
        }
        if (this.e2e && startsGrpcServer(command.text)) {
          const failed = await this.startGrpcServer(command, exports);
          if (failed) return [`${where}: \`${command.text.trim()}\`: ${failed}`];
          continue;
        }
        if (this.e2e && startsUpstream(command.text)) {
          const failed = await this.startUpstream(command, exports);
          if (failed) return [`${where}: \`${command.text.trim()}\`: ${failed}`];
          continue;
        }
        const bootstrap = this.e2e ? envoyBootstrapOf(command.text) : undefined;
        if (bootstrap !== undefined) {
          const failed = await this.startEnvoyTwin(bootstrap);
          if (failed) return [`${where}: \`${command.text.trim()}\`: ${failed}`];
          continue;
        }
        if (/^export\s/.test(command.text.trim())) exports.push(command.text);
        const ports = await this.ports();
        // A stream read until Ctrl-C (`curl -N`): its twin reads it for a few seconds.
        const streams = STREAM.test(command.text.trim());
        const text = streams
          ? command.text.replace(/^(\s*)curl\b/, `$1curl --max-time ${STREAM_SECONDS}`)
          : command.text;
        const docker = this.e2e && buildsWithDocker(text);
        // The build script finds the checkout from its own path: the checkout's, not a link's.
        const built = docker
          ? this.dockerTwin(text)
          : this.e2e
            ? text.replace(
                /^(\s*)scripts\/build-image\.sh\b/,
                `$1${join(REPO, 'scripts', 'build-image.sh')}`,
              )
            : text;
        const moved = this.e2e ? this.movedInputs(built, ports) : built;
        const script = [...exports, this.rewrite(moved, ports)].join('\n');
        const env = { ...this.env(ports.control), ...(this.e2e ? this.image?.env : {}) };
        const builds = this.e2e && (buildsImage(text) || buildsGo(text));
        const timeout = builds ? BUILD_TIMEOUT_MS : COMMAND_TIMEOUT_MS;
        const ran = await run(script, this.dir, env, timeout);
        if (docker) this.builtTags.add(DOCKER_TWIN_TAG);
        if (streams && ran.code === CURL_TIMED_OUT && ran.stdout !== '') ran.code = 0;
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
      problems.push(...this.agentProblems(block));
      return problems;
    } finally {
      if (!this.e2e) await this.stopServer();
    }
  }

  /** e2e: a pilot-agent started earlier must still run, its pod ready since it was. */
  private agentProblems(block: Block): string[] {
    const agent = this.agent;
    if (!agent) return [];
    const where = `${block.file}:${block.line}`;
    if (agent.hasExited) {
      return [`${where}: pilot-agent exited; its output:\n${tail(agent.output)}`];
    }
    const views = agent.stdout.split('\n').filter((line) => /\s\d\/2\s/.test(line));
    const since = views.slice(views.findIndex((line) => /\s2\/2\s/.test(line)));
    const notReady = since.find((line) => /\s1\/2\s/.test(line));
    if (notReady !== undefined) {
      return [
        `${where}: the pod went NOT ready (\`${notReady.trim()}\`); pilot-agent said:\n${tail(agent.output)}`,
      ];
    }
    return [];
  }

  /**
   * e2e: `mock-istiod generate <file>` of a Kubernetes file naming the proxyless echo port
   * (7070) reads a copy with that port made the session's, as the command's own 7070s are:
   * the Service, the pod's container port and the endpoints then agree with the server the
   * session runs.
   */
  private movedInputs(text: string, ports: PortMap): string {
    const file = /^\s*mock-istiod generate\s+(\S+\.ya?ml)\b/.exec(text)?.[1];
    if (file === undefined || ports.grpc === undefined) return text;
    const source = resolve(this.dir, file);
    const content = readFileSync(source, 'utf8');
    const rewritten = rewritePorts(content, { grpc: ports.grpc });
    if (rewritten === content) return text;
    const copy = join(this.dir, '.docs-moved', file.replaceAll('/', '_'));
    mkdirSync(join(this.dir, '.docs-moved'), { recursive: true });
    writeFileSync(copy, rewritten);
    return text.replace(file, copy);
  }

  /** The documented ports, and in e2e the documented TLS and image directories, made the session's. */
  private rewrite(text: string, ports: PortMap): string {
    const rewritten = rewritePorts(text, ports);
    if (!this.e2e) return rewritten;
    return rewritten
      .replaceAll(DEFAULT_CLI_TLS_DIR, this.tlsDir)
      .replaceAll(DOCUMENTED_TLS_DIR, this.tlsDir)
      .replaceAll(IMAGE_CONTEXT_DIR, join(this.dir, 'mock-istiod-context'));
  }

  private get tlsDir(): string {
    return join(this.dir, '.docs-tls');
  }

  private env(controlPort: number | undefined): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${join(this.dir, '.docs-bin')}:${process.env['PATH'] ?? ''}`,
      LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
    };
    if (controlPort !== undefined) env['MOCK_ISTIOD_CONTROL_PORT'] = String(controlPort);
    if (this.e2e) {
      env['PATH'] = `${env['PATH']}:${istioBinDir()}`;
      env['MOCK_ISTIOD_TLS_DIR'] = this.tlsDir;
      // As on a laptop with no cluster: istioctl finds no Kubernetes configuration.
      env['KUBECONFIG'] = '/nonexistent/kubeconfig';
    }
    return env;
  }

  /** The ports commands talk to: the block's own mock if it started one, else the shared. */
  private async ports(): Promise<PortMap> {
    // e2e: with a mock of the block's own running, no shared mock and Envoy are needed.
    const shared = this.e2e && this.server ? this.shared : await this.sharedMock();
    if (this.e2e) this.grpcPort ??= ((await freePorts(1)) as [number])[0];
    return {
      ...shared?.ports,
      ...(this.grpcPort !== undefined && { grpc: this.grpcPort }),
      ...this.server?.ports,
      ...this.upstream?.ports,
      ...this.agent?.ports,
      ...this.envoy?.ports,
    };
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
    const [xds, control, inbound, outbound, app] = (await freePorts(5)) as [
      number,
      number,
      number,
      number,
      number,
    ];
    const env: NodeJS.ProcessEnv = { ...this.env(control), MOCK_ISTIOD_PORT: String(xds) };
    // MOCK_ISTIOD_TLS_DIR alone would turn TLS on: a mock started without --tls keeps it off.
    if (!/\s--tls(-dir)?\b/.test(command.text)) delete env['MOCK_ISTIOD_TLS_DIR'];
    // A comment after the command (`npm start   # terminal 1`) would swallow the flags added.
    let text = command.text.replace(/\s#.*$/gm, '').replace(/\s*&\s*$/, '');
    const ports: PortMap = { xds, control };
    if (this.e2e && !/--(inbound|outbound)-port\b/.test(text)) {
      // The lab's listeners, which the real pilot-agent's Envoy will open, on free ports.
      text = `${text}${/^npm (start|run start)$/.test(text.trim()) ? ' --' : ''} --inbound-port ${inbound} --outbound-port ${outbound}`;
      Object.assign(ports, { inbound, outbound });
      if (!/--app-port\b/.test(text)) {
        // The lab's app (8101), which `npm run upstream -- --port 8101` plays, on a free port.
        text = `${text} --app-port ${app}`;
        Object.assign(ports, { app });
      }
    }
    this.serverCommand = command.text;
    const server = this.spawnBackground(execLine(text), exports, env, ports);
    this.server = server;
    return this.waitReady(server, control);
  }

  /**
   * e2e: `podman run … mock-istiod:latest` in the background: the image the e2e project built,
   * with the mock on loopback and free ports (given as `-e` variables, so the command line's
   * own arguments stay as written), a name of its own; ready when `GET /ready` answers.
   */
  private async startContainer(command: Command, exports: string[]): Promise<string | undefined> {
    await this.stopServer();
    if (!this.image) return 'no image was built for this session (test/e2e/docs-real.test.ts)';
    const [xds, control] = (await freePorts(2)) as [number, number];
    const name = `mock-istiod-docs-${process.pid}-${control}`;
    const text = command.text
      .replace(/\s#.*$/gm, '')
      .replace(/\\\n/g, ' ')
      .replace(/\s*&\s*$/, '')
      .replace(/(^|\s)mock-istiod:\S+/, `$1${this.image.tag}`)
      .replace(/--name[=\s]+\S+/, '')
      .replace(
        /^\s*podman run\b/,
        [
          `podman run --name ${name}`,
          '-e MOCK_ISTIOD_HOST=127.0.0.1 -e MOCK_ISTIOD_CONTROL_HOST=127.0.0.1',
          `-e MOCK_ISTIOD_PORT=${xds} -e MOCK_ISTIOD_CONTROL_PORT=${control}`,
        ].join(' '),
      );
    const env = { ...this.env(control), ...this.image.env };
    const server = this.spawnBackground(execLine(text), exports, env, { xds, control });
    this.server = server;
    this.container = name;
    return this.waitReady(server, control, /MOCK_ISTIOD_CONTROL_TOKEN=(\S+)/.exec(text)?.[1]);
  }

  /** Waits for a mock started in the background to answer `GET /ready` (with its token). */
  private async waitReady(
    server: Server,
    control: number,
    token?: string,
  ): Promise<string | undefined> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    try {
      await waitFor(
        async () => {
          if (server.hasExited) return 'exited';
          try {
            const res = await fetch(`http://127.0.0.1:${control}/ready`, { headers });
            return res.ok ? 'ready' : undefined;
          } catch {
            return undefined;
          }
        },
        {
          // `npm start` builds first when dist/ is stale: on two shared cores, a minute.
          timeoutMs: this.e2e ? 120_000 : 20_000,
          intervalMs: 100,
          description: 'the mock to answer /ready',
        },
      ).then((state) => {
        if (state === 'exited') throw new Error('it exited');
      });
      return undefined;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return `${why}; its output:\n${tail(server.output)}`;
    }
  }

  private spawnBackground(
    line: string,
    exports: string[],
    env: NodeJS.ProcessEnv,
    ports: PortMap,
  ): Server {
    const script = [...exports, line].join('\n');
    const child = spawn('bash', ['-c', script], { cwd: this.dir, env, detached: true });
    const server: Server = {
      child,
      ports,
      output: '',
      stdout: '',
      hasExited: false,
      exited: new Promise((resolve) => child.on('close', () => resolve())),
    };
    void server.exited.then(() => (server.hasExited = true));
    child.stdout?.on('data', (d: Buffer) => {
      server.output += d.toString();
      server.stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => (server.output += d.toString()));
    return server;
  }

  /**
   * e2e: the real pilot-agent in the background, its ports free ones (Envoy's admin becomes the
   * session's 15000), against the block's mock; ready when its pod view says `2/2`.
   */
  private async startAgent(command: Command, exports: string[]): Promise<string | undefined> {
    await this.stopAgent();
    const current = await this.ports();
    if (current.xds === undefined || current.control === undefined) {
      return 'no mock is running for pilot-agent to connect to';
    }
    const [admin, status, readiness, prometheus] = (await freePorts(4)) as [
      number,
      number,
      number,
      number,
    ];
    const flags = [
      `--admin-port ${admin} --status-port ${status}`,
      `--readiness-port ${readiness} --prometheus-port ${prometheus}`,
      `--discovery-address 127.0.0.1:${current.xds}`,
    ].join(' ');
    const text = `${this.rewrite(command.text, current).replace(/\s*&\s*$/, '')} ${flags}`;
    const agent = this.spawnBackground(execLine(text), exports, this.env(current.control), {
      admin,
    });
    this.agent = agent;
    try {
      await waitFor(
        () => (agent.hasExited ? 'exited' : /\s2\/2\s/.test(agent.stdout) ? 'ready' : undefined),
        { timeoutMs: 60_000, intervalMs: 100, description: 'the pod to be ready (2/2)' },
      ).then((state) => {
        if (state === 'exited') throw new Error('pilot-agent exited');
      });
      return undefined;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return `${why}; its output:\n${tail(agent.output)}`;
    }
  }

  /** e2e: the lab's app in the background, its port the session's; ready when it answers. */
  private async startUpstream(command: Command, exports: string[]): Promise<string | undefined> {
    await this.stopUpstream();
    const current = await this.ports();
    const ports = { ...current, app: current.app ?? ((await freePorts(1)) as [number])[0] };
    const text = this.rewrite(command.text, ports).replace(/\s*&\s*$/, '');
    const port = Number(/--port[=\s]+(\d+)/.exec(text)?.[1] ?? ports.app);
    const upstream = this.spawnBackground(execLine(text), exports, this.env(current.control), {
      app: port,
    });
    this.upstream = upstream;
    try {
      await waitFor(
        async () => {
          if (upstream.hasExited) return 'exited';
          try {
            await fetch(`http://127.0.0.1:${port}/`);
            return 'answers';
          } catch {
            return undefined;
          }
        },
        { timeoutMs: 30_000, intervalMs: 100, description: `the upstream to answer on ${port}` },
      ).then((state) => {
        if (state === 'exited') throw new Error('it exited');
      });
      return undefined;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return `${why}; its output:\n${tail(upstream.output)}`;
    }
  }

  /**
   * e2e: the grpc-go example's server in the background, on the session's port for 7070;
   * ready when it prints the address it serves on. It keeps running for the file's later
   * blocks, as in the user's other terminal.
   */
  private async startGrpcServer(command: Command, exports: string[]): Promise<string | undefined> {
    await this.stopGrpcServer();
    const ports = await this.ports();
    const text = this.rewrite(command.text, ports).replace(/\s*&\s*$/, '');
    const server = this.spawnBackground(execLine(text), exports, this.env(ports.control), {});
    this.grpcServer = server;
    try {
      await waitFor(() => (server.hasExited ? 'exited' : server.stdout.includes('"serving"')), {
        timeoutMs: 60_000,
        intervalMs: 100,
        description: 'the grpc-go server to serve',
      }).then((state) => {
        if (state === 'exited') throw new Error('it exited');
      });
      return undefined;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return `${why}; its output:\n${tail(server.output)}`;
    }
  }

  private async stopGrpcServer(): Promise<void> {
    const server = this.grpcServer;
    this.grpcServer = undefined;
    if (server) await stop(server);
  }

  /**
   * e2e: `envoy -c <file>` run as its twin, the real Envoy on the same file with the sidecar's
   * fixed ports moved to free ones (15012 to the running mock's xDS port; the admin port takes
   * 15000's place). Ready when LIVE, or, against a mock started with `--withhold-first`, when
   * it has connected and waits.
   */
  private async startEnvoyTwin(file: string): Promise<string | undefined> {
    await this.stopEnvoyTwin();
    const current = await this.ports();
    if (current.xds === undefined) return 'no mock is running for Envoy to connect to';
    const out = join(this.dir, `.docs-envoy-${current.xds}.yaml`);
    let envoy: TestEnvoy | undefined;
    try {
      const moved = await moveFixedPorts(resolve(this.dir, file), current.xds, out);
      envoy = await startEnvoy({ bootstrap: moved.path });
      this.envoy = { envoy, ports: { admin: moved.admin } };
      if (/--withhold-first\b/.test(this.serverCommand)) {
        await envoy.waitForStat('control_plane.connected_state', (v) => v === 1, {
          timeoutMs: 30_000,
        });
      } else {
        await envoy.waitForState('LIVE', { timeoutMs: 30_000 });
      }
      return undefined;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      const logs = envoy ? `; its log:\n${tail(envoy.logs())}` : '';
      return `${why}${logs}`;
    }
  }

  private async stopEnvoyTwin(): Promise<void> {
    const twin = this.envoy;
    this.envoy = undefined;
    if (twin) await twin.envoy.stop();
  }

  private async stopUpstream(): Promise<void> {
    const upstream = this.upstream;
    this.upstream = undefined;
    if (upstream) await stop(upstream);
  }

  private async stopAgent(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    if (agent) await stop(agent);
  }

  private async stopServer(): Promise<void> {
    // pilot-agent, Envoy and gRPC first: they would otherwise retry a mock that is gone.
    await this.stopGrpcServer();
    await this.stopAgent();
    await this.stopEnvoyTwin();
    await this.stopUpstream();
    const server = this.server;
    this.server = undefined;
    const container = this.container;
    this.container = undefined;
    if (container && this.image) {
      // podman's client forwards SIGTERM, but the container is removed for certain.
      spawnSync('podman', ['rm', '--force', '--ignore', '--time', '10', container], {
        env: { ...process.env, ...this.image.env },
        timeout: 30_000,
      });
    }
    if (server) await stop(server);
  }

  /** `docker build -t <tag> <dir>` as podman builds it (Docker-format, for the HEALTHCHECK). */
  private dockerTwin(text: string): string {
    return text
      .replace(/^(\s*)docker build\b/, '$1podman build --format docker')
      .replace(/(^|\s)(-t|--tag)[=\s]+\S+/, `$1--tag ${DOCKER_TWIN_TAG}`);
  }

  async close(): Promise<void> {
    await this.stopServer();
    for (const tag of this.builtTags) {
      spawnSync('podman', ['rmi', '--force', '--ignore', tag], {
        env: { ...process.env, ...this.image?.env },
        timeout: 30_000,
      });
    }
    if (this.shared) {
      await this.shared.envoy.stop();
      await this.shared.istiod.close();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** SIGTERM to the process group, SIGKILL after 5 s; resolves when it has exited. */
async function stop(server: Server): Promise<void> {
  killGroup(server.child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(server.child, 'SIGKILL'), 5_000);
  await server.exited;
  clearTimeout(timer);
}

/** The last lines of a process's output, for a failure message. */
function tail(output: string): string {
  return output.trim().split('\n').slice(-15).join('\n');
}

/** `exec` of a command line, its leading `VAR=value` assignments kept before it. */
function execLine(text: string): string {
  const [, assignments = '', rest = ''] =
    /^\s*((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)([\s\S]*)$/.exec(text) ?? [];
  return `${assignments}exec ${rest}`;
}
