/**
 * How the classroom demo talks: step titles, plain sentences, the commands a student would
 * type with what they print, log lines, and a "what to look at" line per step. Everything
 * goes through one `write(line)` so that the demo can print to a terminal or into a test.
 */

/** Every port the demo uses: a real sidecar's by default, or free ones (tests, busy machines). */
export interface DemoPorts {
  /** mock istiod's xDS (15012) and control API (15014). */
  xds: number;
  control: number;
  /** The lab upstream, the app behind `inbound|8101||`. */
  app: number;
  /** Step (f): the orders service of cluster east, and of cluster west. */
  eastOrders: number;
  westOrders: number;
  /** The lab's listeners, pushed over LDS. */
  inbound: number;
  outbound: number;
  /** Envoy's admin API, pilot-agent's status port, the readiness and Prometheus listeners. */
  admin: number;
  status: number;
  readiness: number;
  prometheus: number;
}

export const SIDECAR_DEMO_PORTS: Readonly<DemoPorts> = Object.freeze({
  xds: 15012,
  control: 15014,
  app: 8101,
  eastOrders: 8102,
  westOrders: 8103,
  inbound: 15006,
  outbound: 10081,
  admin: 15000,
  status: 15020,
  readiness: 15021,
  prometheus: 15090,
});

/** What each port is, for the "port in use" message. */
export const PORT_ROLES: Readonly<Record<keyof DemoPorts, string>> = Object.freeze({
  xds: 'mock istiod xDS',
  control: 'mock istiod control API',
  app: 'lab upstream (the app)',
  eastOrders: "cluster east's orders (step f)",
  westOrders: "cluster west's orders (step f)",
  inbound: 'virtualInbound',
  outbound: 'virtualOutbound',
  admin: 'Envoy admin',
  status: 'pilot-agent status',
  readiness: 'Envoy readiness listener',
  prometheus: 'Envoy Prometheus listener',
});

export class Narrator {
  constructor(private readonly write: (line: string) => void) {}

  /** `━━ (a) 1/2 Ready … ━━`, ruled out to 78 terminal columns. */
  title(id: string, text: string): void {
    const head = `━━ (${id}) ${text} `;
    this.write('');
    this.write(head + '━'.repeat(Math.max(3, 78 - columns(head))));
  }

  text(sentence: string): void {
    this.write(sentence);
  }

  /** A command and what it printed, indented like a terminal session. */
  command(command: string, output: readonly string[]): void {
    this.write(`  $ ${command}`);
    for (const line of output) for (const part of line.split('\n')) this.write(`    ${part}`);
  }

  /** A log line from one of the components. */
  log(line: string): void {
    this.write(`  [log] ${line}`);
  }

  /** The pod as `kubectl get pod -w` prints it. */
  pod(line: string): void {
    this.write(`  [kubectl get pod -w] ${line}`);
  }

  look(sentence: string): void {
    this.write(`  → ${sentence}`);
  }
}

/** Terminal columns: Hangul (and other wide East Asian letters) take two. */
function columns(text: string): number {
  let width = 0;
  for (const char of text)
    width += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]/u.test(char)
      ? 2
      : 1;
  return width;
}

export type CurlResult = { status: number; body: string } | { error: string };

/** One GET with a deadline; a connection error comes back as `{ error: 'ECONNREFUSED' }`. */
export async function curl(url: string, timeoutMs = 5_000): Promise<CurlResult> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, body: await response.text() };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return { error: cause?.code ?? (err instanceof Error ? err.message : String(err)) };
  }
}
