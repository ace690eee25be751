/**
 * The connection storm of docs/RELIABILITY.md at full size: `attempts` new connections at
 * once from several processes against the full server; prints the counts and latencies.
 */
import { storm, type ProbeFigures } from '../../test/support/harness/storm.js';

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const probe = (p: ProbeFigures) =>
  `p50 ${p.p50Ms} ms, max ${p.maxMs} ms (${p.probes} probes, ${p.failed} failed)`;

export async function stormRun(
  attempts: number,
  workers: number,
  timeoutMs: number,
): Promise<{ problems: number }> {
  console.log(
    `storm: ${attempts} connection attempts at once from ${workers} processes, each waiting up to ${timeoutMs} ms`,
  );
  const r = await storm({ attempts, workers, timeoutMs });
  console.log(`storm: ${r.wallMs} ms; outcomes ${JSON.stringify(r.counts)}`);
  console.log(
    `storm: answered ${r.answered}: first response p50 ${r.answeredP50Ms} ms, p99 ${r.answeredP99Ms} ms`,
  );
  console.log(`storm: the server sent ${r.serverAnswered} first responses to storm streams`);
  console.log(`storm: a fresh client's first response before: ${probe(r.before)}`);
  console.log(`storm: during: ${probe(r.during)}`);
  console.log(`storm: after: ${probe(r.after)}`);
  console.log(
    `storm: clients left ${r.clientsAfter}, server RSS after ${mib(r.rssAfter)}, heap after GC ${mib(r.heapAfter)}, ` +
      `open-file limit ${JSON.stringify(r.serverFdLimit)}, exit code ${r.exitCode} after ${r.stopMs} ms, ` +
      `error log lines ${r.serverErrorLines.length}`,
  );
  return { problems: r.clientsAfter !== 0 || r.exitCode !== 0 || r.after.failed > 0 ? 1 : 0 };
}
