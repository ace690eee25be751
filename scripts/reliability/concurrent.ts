/**
 * Concurrent control at full size (docs/RELIABILITY.md): many control clients against live
 * proxies, checked against the answers replayed in revision order.
 */
import { startMockIstiod } from '../../src/testing/start.js';
import { concurrentControl } from '../../test/support/harness/concurrent-control.js';
import { seededRandom } from '../../test/support/fixtures/raw-ads.js';

export async function concurrentRun(clients: number, ops: number, seed: number): Promise<boolean> {
  const server = await startMockIstiod({ journalSize: 1000, maxStreamsPerSecond: 0 });
  try {
    const report = await concurrentControl(server, {
      clients,
      opsPerClient: ops,
      proxies: 50,
      seed,
      random: seededRandom(seed),
    });
    console.log(
      `concurrent control: ${clients} clients x ${ops} changes, 50 proxies, seed ${seed}, ` +
        `${report.seconds.toFixed(1)} s: ${report.answers} answers (revisions 1..${report.revisions}), ` +
        `${report.streamsOpened} streams, ${report.responses} responses, ` +
        `${report.backwards.length} versions back, ${report.disagreements.length} disagreements ` +
        JSON.stringify(report.byKind),
    );
    for (const line of [...report.backwards, ...report.disagreements].slice(0, 20))
      console.log(`  ${line}`);
    return report.backwards.length === 0 && report.disagreements.length === 0;
  } finally {
    await server.close();
  }
}
