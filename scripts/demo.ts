/**
 * The classroom demo in one command (`npm run demo`): the lab upstream, a mock istiod that
 * withholds its first answer, and a real Envoy started by the agent (pilot-agent's part), on
 * a real sidecar's ports. It walks through five steps, printing the evidence of each
 * (docs/classroom.md has the full walkthrough with expected output):
 *
 *   (a) 1/2 Ready: PRE_INITIALIZING, connected_state 1, the readiness message;
 *   (b) release → LIVE, 2/2, :15006/orders 200, :10081 503 via BlackHoleCluster;
 *   (c) istiod down → connected_state 0, traffic still served, readiness stays (cached);
 *   (d) a push Envoy rejects → update_rejected, the old config kept, then the fix;
 *   (e) Unknown gRPC client cluster → validate fails before Envoy ever starts.
 *
 *   npm run demo                   # about two minutes, pauses between steps
 *   npm run demo -- --step         # waits for Enter between steps
 *   npm run demo -- --fast         # no pauses
 *   npm run demo -- --free-ports   # when a sidecar port (15000, 15012, …) is taken
 *   npm run demo -- --real-agent   # the real pilot-agent (npm run install-istio) instead
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
import { Narrator, PORT_ROLES, SIDECAR_DEMO_PORTS, type DemoPorts } from './demo-narrator.js';
import * as steps from './demo-steps.js';
import { startEmulatedSidecar, startRealSidecar } from './demo-sidecars.js';
import type { DemoContext, Evidence } from './demo-steps.js';

export interface DemoOptions {
  /** `sidecar`: 15012, 15000, 15021, … (the commands printed work as shown); `free`: any. */
  ports: 'sidecar' | 'free';
  /** Run the real pilot-agent (against a mock serving TLS) instead of the emulated agent. */
  realAgent: boolean;
  /** Pause after each step, in milliseconds (ignored with `step`). */
  pauseMs: number;
  /** Wait for `waitForEnter()` between steps. */
  step: boolean;
  write: (line: string) => void;
  waitForEnter: () => Promise<void>;
}

export interface DemoStepResult {
  id: 'a' | 'b' | 'c' | 'd' | 'e';
  title: string;
  evidence: Evidence;
}

const STEPS: readonly [DemoStepResult['id'], string, (c: DemoContext) => Promise<Evidence>][] = [
  ['a', '1/2 Ready: the sidecar waits for istiod', steps.stepWithheld],
  ['b', 'istiod answers: LIVE, 2/2, traffic flows', steps.stepReleased],
  ['c', 'istiod goes down: Envoy keeps serving', steps.stepIstiodDown],
  ['d', 'a push Envoy rejects: NACK, old config kept', steps.stepRejectedPush],
  ['e', 'Unknown gRPC client cluster: refused before starting', steps.stepUnknownCluster],
];

/** Runs the whole demo; everything it started is stopped before it returns or throws. */
export async function runDemo(partial: Partial<DemoOptions> = {}): Promise<DemoStepResult[]> {
  const options: DemoOptions = {
    ports: 'sidecar',
    realAgent: false,
    pauseMs: 25_000,
    step: false,
    write: (line) => process.stdout.write(`${line}\n`),
    waitForEnter: () => Promise.resolve(),
    ...partial,
  };
  const say = new Narrator(options.write);
  const ports = options.ports === 'free' ? await freeDemoPorts() : await checkedSidecarPorts();
  const lab = await startComponents(ports, options.realAgent, say);
  const results: DemoStepResult[] = [];
  try {
    for (const [index, [id, title, run]] of STEPS.entries()) {
      say.title(id, title);
      results.push({ id, title, evidence: await run(lab.context) });
      if (index < STEPS.length - 1) await pause(options, say);
    }
    say.text('');
    say.text("Done. The seed's field symptoms: (a) is the pod stuck at 1/2 Ready, (e) is only the");
    say.text(
      'sidecar in CrashLoopBackOff; the third, mixed multi-cluster config, is in docs/classroom.md.',
    );
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
  realAgent: boolean,
  say: Narrator,
): Promise<Components> {
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
    const istiod: TestMockIstiod = await startMockIstiod({
      resources,
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
    say.text('mock-istiod classroom demo: a sidecar, its agent and its control plane, no cluster.');
    say.text(
      `  app (lab upstream) 127.0.0.1:${ports.app}    mock istiod xDS 127.0.0.1:${ports.xds}${realAgent ? ' over TLS' : ''} (withholding)`,
    );
    say.text(`  sidecar: ${agent.kind} in front of a real Envoy`);
    say.text(
      `  Envoy admin :${ports.admin}   pilot-agent status :${ports.status}   readiness :${ports.readiness}   Prometheus :${ports.prometheus}`,
    );
    say.text(`  live page: http://127.0.0.1:${ports.control}/ui/`);
    const name = agent.podView().name;
    say.pod(formatPodHeader(name));
    say.pod(formatPodLine(agent.podView()));
    agent.onPod((view) => say.pod(formatPodLine(view)));
    return { context: { ports, istiod, agent, resources, say }, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function pause(options: DemoOptions, say: Narrator): Promise<void> {
  if (options.step) {
    say.text('');
    say.text('(press Enter for the next step)');
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

The classroom walkthrough (docs/classroom.md): mock istiod + lab upstream + a real Envoy
started by the agent, through five steps, with the evidence of each.

  --step             wait for Enter between steps
  --fast             no pauses between steps
  --pause <seconds>  pause between steps (default 25: about two minutes in all)
  --free-ports       use any free ports instead of a sidecar's (15000, 15012, 15021, …)
  --real-agent       run the real pilot-agent (npm run install-istio builds it) in front of
                     Envoy, against the mock over TLS, instead of the emulated agent
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
  grpc.setLogVerbosity(grpc.logVerbosity.NONE);
  const input = createInterface({ input: process.stdin });
  const lines = input[Symbol.asyncIterator]();
  try {
    await runDemo({
      ports: values['free-ports'] ? 'free' : 'sidecar',
      realAgent: values['real-agent'],
      pauseMs: seconds * 1000,
      step: values.step,
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
