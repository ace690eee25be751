/**
 * `serve --replay <file> --replay-timeline`: a recording re-enacted on its own timeline. Each
 * proxy starts at the first state istiod sent it and gets each later push at the time it came
 * after that first one, counted from when the proxy first connects to the mock; faults act
 * on top as on any configuration. The last state stays once the recording has run out.
 */
import type { Logger } from 'pino';
import type { StreamView } from '../core/events.js';
import type { MockIstiod } from './mock-istiod-api.js';
import { firstStates, type ReplayedNode } from './replay.js';

export interface Reenactment {
  stop(): void;
}

export function reenact(
  mock: MockIstiod,
  nodes: readonly ReplayedNode[],
  log: Logger,
): Reenactment {
  const current = new Map(firstStates(nodes).map((set) => [set.name, set]));
  const waiting = new Map(nodes.map((n) => [n.node, n]));
  const timers = new Set<NodeJS.Timeout>();
  // One change at a time, in the order the steps come due.
  let changes = Promise.resolve();
  const play = (node: string, step: ReplayedNode['steps'][number], index: number) => {
    current.set(node, step.set);
    const sets = [...current.values()];
    changes = changes
      .then(() => mock.control.setResources({ sets }))
      .then(
        () => log.info({ node, step: index, atMs: step.atMs }, 'replay: the next push istiod sent'),
        (err: unknown) => log.error({ err, node, step: index }, 'replay: a recorded step failed'),
      );
  };
  const onOpen = (stream: StreamView) => {
    const replayed = waiting.get(stream.proxy.nodeId);
    if (!replayed) return;
    // A node's clock starts once, with its first stream.
    waiting.delete(replayed.node);
    replayed.steps.slice(1).forEach((step, i) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        play(replayed.node, step, i + 1);
      }, step.atMs);
      timers.add(timer);
    });
  };
  mock.events.on('stream-open', onOpen);
  return {
    stop() {
      mock.events.off('stream-open', onOpen);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
