/**
 * The soak of docs/RELIABILITY.md at full size: `minutes` of churn, pushes, faults and a slow
 * consumer against the full server in its own process; prints a line a minute and the figures.
 */
import { soak, type SoakReport } from '../../test/support/harness/soak.js';

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export async function soakRun(minutes: number, tls = false): Promise<{ problems: number }> {
  console.log(`soak: ${minutes} min against the full server${tls ? ', xDS over TLS' : ''}`);
  const report = await soak({
    durationMs: minutes * 60_000,
    tls,
    log: (line) => console.log(`soak: ${line}`),
  });
  printSoak(report);
  const bad = report.unexpectedCount > 0 || report.clientsAfter !== 0 || report.exitCode !== 0;
  return { problems: bad ? 1 : 0 };
}

export function printSoak(r: SoakReport): void {
  const first = r.samples[0];
  const last = r.samples.at(-1);
  console.log(
    `soak: ${r.seconds.toFixed(0)} s; ${r.pushes} pushes, ${r.churnCycles} churn cycles, ` +
      `${r.slowCatchUps} slow-consumer catch-ups, ${r.scrapes} metric scrapes`,
  );
  console.log(`soak: faults applied ${JSON.stringify(r.faultsApplied)}`);
  console.log(`soak: injected errors seen ${JSON.stringify(r.injected)}`);
  console.log(`soak: unexpected errors ${r.unexpectedCount} ${JSON.stringify(r.unexpected)}`);
  console.log(`soak: server error log lines ${r.serverErrorLines.length}`);
  for (const w of r.windows) {
    console.log(
      `soak: window ${w.window}: ${w.pushes} push deliveries, p50 ${w.p50Ms} ms, p99 ${w.p99Ms} ms, max ${w.maxMs} ms`,
    );
  }
  for (const s of r.samples) {
    console.log(
      `soak: memory at ${(s.atMs / 1000).toFixed(0)} s: rss ${mib(s.rss)}, heap ${mib(s.heapUsed)}${s.collected ? ' (after GC)' : ''}`,
    );
  }
  if (first && last) {
    console.log(
      `soak: heap ${mib(first.heapUsed)} -> ${mib(last.heapUsed)}, slope after warm-up ` +
        `${r.heapSlopeKiBPerMin} KiB/min (RSS ${r.rssSlopeKiBPerMin} KiB/min)`,
    );
  }
  console.log(
    `soak: clients left ${r.clientsAfter}, exit code ${r.exitCode}, journal ${r.journalLines} lines (${r.journalBadLines} unparsable)`,
  );
}
