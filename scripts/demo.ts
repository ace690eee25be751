/**
 * The classroom demo in one command (`npm run demo`): the lab upstream, a mock istiod that
 * withholds its first answer, and a real Envoy started by the agent (pilot-agent's part), on
 * a real sidecar's ports. It walks through six steps, printing the evidence of each
 * (docs/classroom.md has the full walkthrough with expected output):
 *
 *   (a) 1/2 Ready: PRE_INITIALIZING, connected_state 1, the readiness message;
 *   (b) release → LIVE, 2/2, :15006/orders 200, :10081 503 via BlackHoleCluster;
 *   (c) istiod down → connected_state 0, traffic still served, readiness stays (cached);
 *   (d) a push Envoy rejects → update_rejected, the old config kept, then the fix;
 *   (e) Unknown gRPC client cluster → validate fails before Envoy ever starts;
 *   (f) two clusters, one CLUSTER_ID → the east sidecar routes to west's service; then fixed.
 *
 *   npm run demo                   # about two and a half minutes, pauses between steps
 *   npm run demo -- --step         # waits for Enter between steps
 *   npm run demo -- --fast         # no pauses
 *   npm run demo -- --free-ports   # when a sidecar port (15000, 15012, …) is taken
 *   npm run demo -- --real-agent   # the real pilot-agent (npm run install-istio) instead
 *   npm run demo -- --lang ko      # narrated in Korean (also LANG=ko_KR.UTF-8)
 */
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { startLabUpstream, type LabUpstream } from './lab-upstream.js';
import { formatPodHeader, formatPodLine } from '../src/envoy/agent-pod-view.js';
import { makeLabResources } from '../src/resources/lab.js';
import { freePorts } from '../src/util/ports.js';
import { startMockIstiod, type TestMockIstiod } from '../src/testing/start.js';
import { isMainModule } from '../src/util/is-main.js';
import { isMockIstiodError, MockIstiodError } from '../src/util/errors.js';
import { DEFAULT_LANG, resolveLang, type Lang } from '../src/util/lang.js';
import { Narrator, PORT_ROLES, SIDECAR_DEMO_PORTS, type DemoPorts } from './demo-narrator.js';
import * as steps from './demo-steps.js';
import { startEmulatedSidecar, startRealSidecar } from './demo-sidecars.js';
import type { DemoContext, Evidence } from './demo-steps.js';
import { stepMixedClusters } from './demo-step-clusters.js';
import { createWarningLog } from './demo-clusters.js';
import { DEMO_TEXT } from './demo-messages.js';

export interface DemoOptions {
  /** `sidecar`: 15012, 15000, 15021, … (the commands printed work as shown); `free`: any. */
  ports: 'sidecar' | 'free';
  /** Run the real pilot-agent (against a mock serving TLS) instead of the emulated agent. */
  realAgent: boolean;
  /** Pause after each step, in milliseconds (ignored with `step`). */
  pauseMs: number;
  /** Wait for `waitForEnter()` between steps. */
  step: boolean;
  /** The language of the narration (commands and the programs' own texts stay as printed). */
  lang: Lang;
  write: (line: string) => void;
  waitForEnter: () => Promise<void>;
}

export interface DemoStepResult {
  id: 'a' | 'b' | 'c' | 'd' | 'e' | 'f';
  title: string;
  evidence: Evidence;
}

type Title = keyof typeof DEMO_TEXT.en & `title${string}`;

const STEPS: readonly [DemoStepResult['id'], Title, (c: DemoContext) => Promise<Evidence>][] = [
  ['a', 'titleA', steps.stepWithheld],
  ['b', 'titleB', steps.stepReleased],
  ['c', 'titleC', steps.stepIstiodDown],
  ['d', 'titleD', steps.stepRejectedPush],
  ['e', 'titleE', steps.stepUnknownCluster],
  ['f', 'titleF', stepMixedClusters],
];

/** Runs the whole demo; everything it started is stopped before it returns or throws. */
export async function runDemo(partial: Partial<DemoOptions> = {}): Promise<DemoStepResult[]> {
  const options: DemoOptions = {
    ports: 'sidecar',
    realAgent: false,
    pauseMs: 25_000,
    step: false,
    lang: DEFAULT_LANG,
    write: (line) => process.stdout.write(`${line}\n`),
    waitForEnter: () => Promise.resolve(),
    ...partial,
  };
  const say = new Narrator(options.write);
  const text = DEMO_TEXT[options.lang];
  const ports = options.ports === 'free' ? await freeDemoPorts() : await checkedSidecarPorts();
  const lab = await startComponents(ports, options, say);
  const results: DemoStepResult[] = [];
  try {
    for (const [index, [id, titleKey, run]] of STEPS.entries()) {
      const title = text[titleKey];
      say.title(id, title);
      results.push({ id, title, evidence: await run(lab.context) });
      if (index < STEPS.length - 1) await pause(options, say);
    }
    say.text('');
    say.text(text.done);
    say.text(text.done2);
    return results;
  } finally {
    await lab.close();
  }
}

interface Components {
  context: DemoContext;
  close(): Promise<void>;
}

async function startComponents(
  ports: DemoPorts,
  { realAgent, lang }: DemoOptions,
  say: Narrator,
): Promise<Components> {
  const text = DEMO_TEXT[lang];
  const stops: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const upstream: LabUpstream = await startLabUpstream({ mode: 'ok', port: ports.app });
    stops.push(() => upstream.close());
    const resources = makeLabResources({
      inboundPort: ports.inbound,
      outboundPort: ports.outbound,
      appPort: ports.app,
    });
    // The mock's warnings are kept, so that step (f) can show its collision warning.
    const mockLog = createWarningLog();
    const istiod: TestMockIstiod = await startMockIstiod({
      resources,
      logger: mockLog.logger,
      withholdFirst: true,
      xds: { host: '127.0.0.1', port: ports.xds },
      control: { host: '127.0.0.1', port: ports.control },
      // The real pilot-agent speaks TLS to istiod and asks its CA for a certificate.
      tls: realAgent,
    });
    stops.push(() => istiod.close());
    const agent = realAgent
      ? await startRealSidecar(ports, istiod)
      : await startEmulatedSidecar(ports);
    stops.push(() => agent.stop());
    say.text(text.intro);
    say.text(text.components({ app: ports.app, xds: ports.xds, tls: realAgent }));
    say.text(realAgent ? text.sidecarReal : text.sidecarEmulated);
    say.text(text.ports(ports));
    say.text(text.page({ control: ports.control }));
    const name = agent.podView().name;
    say.pod(formatPodHeader(name));
    say.pod(formatPodLine(agent.podView()));
    agent.onPod((view) => say.pod(formatPodLine(view)));
    const context = { ports, istiod, agent, resources, say, lang, mockWarnings: mockLog.warnings };
    return { context, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function pause(options: DemoOptions, say: Narrator): Promise<void> {
  if (options.step) {
    say.text('');
    say.text(DEMO_TEXT[options.lang].pressEnter);
    await options.waitForEnter();
  } else if (options.pauseMs > 0) {
    // Pacing for a classroom: time to read the evidence before the next step.
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
}

async function freeDemoPorts(): Promise<DemoPorts> {
  const keys = Object.keys(SIDECAR_DEMO_PORTS) as (keyof DemoPorts)[];
  const free = await freePorts(keys.length);
  return Object.fromEntries(keys.map((key, i) => [key, free[i]])) as unknown as DemoPorts;
}

/** The sidecar ports, after checking that none is taken (all busy ones named at once). */
async function checkedSidecarPorts(): Promise<DemoPorts> {
  const busy: string[] = [];
  for (const [key, port] of Object.entries(SIDECAR_DEMO_PORTS) as [keyof DemoPorts, number][]) {
    if (!(await canListen(port))) busy.push(`${port} (${PORT_ROLES[key]})`);
  }
  if (busy.length > 0) {
    throw new MockIstiodError(
      'LISTEN_FAILED',
      `port${busy.length > 1 ? 's' : ''} in use: ${busy.join(', ')}; stop what listens there, or run with --free-ports`,
    );
  }
  return { ...SIDECAR_DEMO_PORTS };
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const USAGE = `Usage: npm run demo -- [--step | --fast | --pause <seconds>] [--free-ports] [--real-agent]
                     [--lang en|ko]

The classroom walkthrough (docs/classroom.md): mock istiod + lab upstream + a real Envoy
started by the agent, through six steps, with the evidence of each.

  --step             wait for Enter between steps
  --fast             no pauses between steps
  --pause <seconds>  pause between steps (default 25: about two and a half minutes in all)
  --free-ports       use any free ports instead of a sidecar's (15000, 15012, 15021, …)
  --real-agent       run the real pilot-agent (npm run install-istio builds it) in front of
                     Envoy, against the mock over TLS, instead of the emulated agent
  --lang <en|ko>     the narration's language (default: from LC_ALL, LC_MESSAGES or LANG,
                     e.g. LANG=ko_KR.UTF-8; else English); commands and the texts of Envoy,
                     pilot-agent and Kubernetes stay as those programs print them
  -h, --help         show this help
`;

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      step: { type: 'boolean', default: false },
      fast: { type: 'boolean', default: false },
      pause: { type: 'string' },
      'free-ports': { type: 'boolean', default: false },
      'real-agent': { type: 'boolean', default: false },
      lang: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const seconds = values.fast ? 0 : Number(values.pause ?? '25');
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new MockIstiodError(
      'USAGE',
      `--pause: expected a number of seconds, got "${values.pause}"`,
    );
  }
  const lang = resolveLang(values.lang, process.env);
  grpc.setLogVerbosity(grpc.logVerbosity.NONE);
  const input = createInterface({ input: process.stdin });
  const lines = input[Symbol.asyncIterator]();
  try {
    await runDemo({
      ports: values['free-ports'] ? 'free' : 'sidecar',
      realAgent: values['real-agent'],
      pauseMs: seconds * 1000,
      step: values.step,
      lang,
      waitForEnter: async () => void (await lines.next()),
    });
    return 0;
  } finally {
    input.close();
  }
}

if (isMainModule(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      // A port in use or a bad flag is the user's to fix: one line, no stack trace.
      const userError =
        isMockIstiodError(err, 'LISTEN_FAILED') ||
        isMockIstiodError(err, 'USAGE') ||
        isMockIstiodError(err, 'ISTIO_NOT_FOUND') ||
        (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
      process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!userError) console.error(err);
      process.exit(userError ? 2 : 1);
    },
  );
}
