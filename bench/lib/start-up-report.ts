/**
 * The start-up figures as their own table (they have no go-control-plane column): each
 * variant's median against Node's floor, and the two start-up targets.
 */
import type { StartUpResult } from '../scenarios/start-up.js';

const ms = (value: number) => value.toFixed(0);
const over = (value: number, floor: number) => {
  const d = value - floor;
  return `${d < 0 ? '−' : '+'}${Math.abs(d).toFixed(0)}`;
};
const mark = (met: boolean) => (met ? '✅' : '❌');

/** Launch → accepting on the xDS port, the compiled CLI (issue 15). */
export const CLI_TARGET_MS = 200;
/** Import + the first `startMockIstiod()`, inside the process (issue 15). */
export const LIBRARY_TARGET_MS = 150;

export function startUpLines(result: StartUpResult): string[] {
  const m = result.median;
  const c = result.medianCpu;
  const lib = result.library.median;
  const rows: [string, string, string, string][] = [
    ["`node -e ''`, launch to exit (floor)", ms(m.nodeExit), '–', '–'],
    [
      'a Node one-liner, launch to accepting on a port (floor)',
      ms(m.nodeListen),
      over(m.nodeListen, m.nodeExit),
      ms(c.nodeListen),
    ],
    [
      'compiled CLI `mock-istiod serve`, launch to accepting on the xDS port',
      ms(m.cli),
      over(m.cli, m.nodeListen),
      ms(c.cli),
    ],
    [
      '`tsx src/cli/main.ts serve` (the sources under tsx), the same',
      ms(m.tsx),
      over(m.tsx, m.nodeListen),
      '–',
    ],
    [
      'library: launch to the first `startMockIstiod()` resolved',
      ms(m.library),
      over(m.library, m.nodeExit),
      ms(c.library),
    ],
    [
      'library, inside the process: import + first `startMockIstiod()`',
      `${ms(lib.importMs)} + ${ms(lib.startMs)} (${ms(lib.firstMs)})`,
      '–',
      '–',
    ],
  ];
  return [
    `Start-up, a fresh process each run, median of ${result.runs} (ms; CPU: the process's time on a CPU when it served, its threads' schedstat):`,
    '',
    '| figure | ms | above the floor | CPU ms |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    `- ${mark(m.cli <= CLI_TARGET_MS)} compiled CLI, launch to accepting ≤ ${CLI_TARGET_MS} ms: ${ms(m.cli)} ms`,
    `- ${mark(lib.firstMs <= LIBRARY_TARGET_MS)} library import + first \`startMockIstiod()\` ≤ ${LIBRARY_TARGET_MS} ms: ${ms(lib.firstMs)} ms`,
  ];
}
