/**
 * What `agent` and `pilot-agent` do once their sidecar runs: print the pod's line as
 * `kubectl get pod -w` would, again at every change, and stop on SIGINT/SIGTERM (a second
 * signal exits at once) or when the sidecar's process exits on its own.
 */
import type { Logger } from 'pino';
import { formatPodHeader, formatPodLine, type PodView } from '../../envoy/agent-pod-view.js';
import { describeExit, type EnvoyExit } from '../../envoy/envoy-exit.js';

export interface RunningPod {
  podView(): PodView;
  readonly events: { on(event: 'pod', listener: (view: PodView) => void): unknown };
  readonly envoy: { readonly exited: Promise<EnvoyExit> };
  stop(): Promise<void>;
}

export interface PodRunText {
  /** Logged when the process exits on its own, e.g. "Envoy exited". */
  exited: string;
  /** Logged on a signal, e.g. "stopping Envoy". */
  stopping: string;
  /** More to log with an exit, e.g. Envoy's last lines. */
  exitDetail?: () => Record<string, unknown>;
}

export function runPodUntilDone(
  running: RunningPod,
  log: Logger,
  text: PodRunText,
): Promise<number> {
  const view = running.podView();
  process.stdout.write(`${formatPodHeader(view.name)}\n${formatPodLine(view)}\n`);
  running.events.on('pod', (next: PodView) => process.stdout.write(`${formatPodLine(next)}\n`));
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (code: number) => {
      stopping = true;
      running.stop().then(
        () => resolve(code),
        () => resolve(1),
      );
    };
    void running.envoy.exited.then((exit) => {
      if (stopping) return;
      log.error(
        { exit: describeExit(exit), ...text.exitDetail?.() },
        `${text.exited}: the sidecar container would restart (CrashLoopBackOff)`,
      );
      stop(1);
    });
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(1);
      log.info(`${signal}: ${text.stopping}`);
      stop(0);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
