/**
 * What the docs test does with one command of a ```sh block: whether it runs it at all,
 * whether it starts a mock, and the documented ports rewritten to the session's
 * (docs/docs-tests.md).
 */

/** The documented default ports, by what they are. */
export const DEFAULT_PORTS = {
  xds: 15012,
  control: 15014,
  admin: 15000,
  inbound: 15006,
  outbound: 10081,
  /** The lab's app (`npm run upstream -- --port 8101`), behind the inbound listener. */
  app: 8101,
  /** e2e: the proxyless echo server of docs/proxyless.md (`./grpc-xds-go server -port 7070`). */
  grpc: 7070,
} as const;
export type PortName = keyof typeof DEFAULT_PORTS;
export type PortMap = Partial<Record<PortName, number>>;

/** `host:15014`, `--admin 15000`, … with each documented default replaced by the session's. */
export function rewritePorts(command: string, ports: PortMap): string {
  let out = command;
  for (const [name, documented] of Object.entries(DEFAULT_PORTS) as [PortName, number][]) {
    const actual = ports[name];
    if (actual === undefined) continue;
    out = out.replace(new RegExp(`(?<=[:\\s=])${documented}\\b`, 'g'), String(actual));
  }
  return out;
}

/** A command that starts a mock istiod and runs until stopped. */
export function startsServer(command: string): boolean {
  return /^(npm start\b|npm run (start|cli -- serve)\b|mock-istiod serve\b|npx tsx src\/cli\/main\.ts serve\b)/.test(
    command.trim(),
  );
}

/**
 * A command that runs a sidecar until stopped: the real pilot-agent in front of Envoy
 * (docs/real-istio.md) or the emulated `agent`, in the foreground or with a trailing `&`. In
 * the e2e project it runs in the background on free ports until its pod is ready (`2/2`).
 */
export function startsSidecar(command: string): boolean {
  return /^([A-Z_][A-Z0-9_]*=\S*\s+)*(npm run (--silent )?cli -- |mock-istiod |npx tsx src\/cli\/main\.ts )(pilot-agent|agent)\b/.test(
    command.trim(),
  );
}

/** The example grpc-go server, `./grpc-xds-go server …`: in the e2e project, in the background. */
export function startsGrpcServer(command: string): boolean {
  return /^([A-Z_][A-Z0-9_]*=\S*\s+)*\.\/grpc-xds-go server\b/.test(command.trim());
}

/** A Go build (`go build …`): a minute or more on a cold module cache. */
export function buildsGo(command: string): boolean {
  return /^go build\b/.test(command.trim());
}

/** The lab's app, `npm run upstream …`: in the e2e project a twin on a free port (below). */
export function startsUpstream(command: string): boolean {
  return /^(npm run upstream\b|npx tsx scripts\/lab-upstream\.ts\b)/.test(command.trim());
}

/**
 * Envoy run by hand on a bootstrap with the sidecar's fixed ports
 * (`.venv/bin/envoy -c envoy-configs/sidecar-sotw.yaml`): in the e2e project its twin runs the
 * same file with those ports moved to free ones. Returns the bootstrap's path.
 */
export function envoyBootstrapOf(command: string): string | undefined {
  const bare = command.replace(/\s#.*$/gm, '').trim();
  return /^(?:\.venv\/bin\/)?envoy\s+-c\s+(\S+)\s*&?$/.exec(bare)?.[1];
}

/**
 * The image run in the foreground (`podman run … mock-istiod:latest`, docs/container.md): in the
 * e2e project a twin, the image `test/e2e/image.test.ts` builds, on loopback and free ports.
 */
export function startsContainer(command: string): boolean {
  return /^podman run\b/.test(command.trim());
}

/**
 * `docker build` of the plain build context (docs/container.md): Docker is not on this
 * machine, so in the e2e project the same context is built by podman, as an OCI builder that
 * is not `scripts/build-image.sh`, under a tag of the session's.
 */
export function buildsWithDocker(command: string): boolean {
  return /^docker build\b/.test(command.trim());
}

/** Commands of the image that take minutes rather than seconds (a build). */
export function buildsImage(command: string): boolean {
  return /^(docker build|scripts\/build-image\.sh)\b/.test(command.trim());
}

/**
 * What the e2e project's docs test runs besides (blocks marked `e2e`): the real istioctl,
 * `echo` and `mkdir` (in the session's scratch directory), and the grpc-go example, built
 * and run (docs/proxyless.md).
 */
const ALLOWED_E2E = [
  /^(\.istio\/bin\/)?istioctl\b/,
  /^echo\b/,
  /^mkdir\b/,
  /^npm run upstream\b/,
  /^(\.venv\/bin\/)?envoy -c\b/,
  /^podman run\b/,
  /^scripts\/build-image\.sh --context-only\b/,
  /^docker build\b/,
  /^go build -C examples\/grpc-xds-go\b/,
  /^\.\/grpc-xds-go (server|client)\b/,
];

/**
 * What the docs test runs: commands that read or talk to a mock, or start one. Anything else
 * (`npm ci`, `npm test`, the demo, Envoy on the sidecar's fixed ports, …) changes the
 * checkout or the machine, or runs for minutes: such a block is marked `no-run`.
 */
const ALLOWED = [
  /^curl\b/,
  /^jq\b/,
  /^grep\b/,
  /^export\b/,
  /^mock-istiod\b/,
  /^npm start\b/,
  /^npm run (--silent )?(start|cli)\b/,
  /^npx tsx src\/cli\/main\.ts\b/,
];

/** The parts of a command line joined by `&&`, `||`, `;` or `|`, outside quotes. */
export function segments(command: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let current = '';
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      current += c;
    } else if (c === ';' || c === '|' || (c === '&' && command[i + 1] === '&')) {
      parts.push(current);
      current = '';
      if (command[i + 1] === c) i++;
    } else current += c;
  }
  parts.push(current);
  return parts.map((p) => p.replace(/\\\n/g, ' ').trim()).filter((p) => p !== '');
}

/** Why the docs test will not run this command, or undefined when it will. */
export function notRunnable(command: string, e2e = false): string | undefined {
  const allowed = e2e ? [...ALLOWED, ...ALLOWED_E2E] : ALLOWED;
  for (const segment of segments(command.replace(/\s#.*$/gm, '').replace(/\s*&\s*$/, ''))) {
    const head = segment.replace(/^([A-Z_][A-Z0-9_]*=\S*\s+)+/, '');
    if (!allowed.some((a) => a.test(head))) {
      return (
        `the docs test does not run \`${head.split(/\s+/).slice(0, 3).join(' ')}\` ` +
        `(it runs curl, jq, grep, mock-istiod and npm start${e2e ? ', and istioctl, echo, mkdir, npm run upstream, envoy -c, podman run, build-image.sh --context-only, docker build, go build -C examples/grpc-xds-go and ./grpc-xds-go in a block marked `e2e`' : ''}): ` +
        'mark the block `no-run` and say why in the sentence before it (docs/docs-tests.md)'
      );
    }
  }
  return undefined;
}
