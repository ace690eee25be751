/**
 * Whether what a test started is still there: a process by its pid, a listener by its
 * address. The library's leak checks (src/testing/leaks.ts) and the suite's fixtures ask
 * the same two questions.
 */
import { connect } from 'node:net';

/** Whether a process with this pid is alive (0: never started). */
export function processAlive(pid: number): boolean {
  if (pid === 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What a TCP connection to `host:port` meets: a listener, a refusal, or no answer in 1 s. */
export function connectOutcome({
  host,
  port,
}: {
  host: string;
  port: number;
}): Promise<'accepted' | 'refused' | 'timeout'> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', () => resolve('refused'));
  });
}
