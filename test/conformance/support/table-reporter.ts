/**
 * Prints the conformance table after a run that included the `conformance` project: one row
 * per case, agree or differ, and for each case that differs both transcripts line by line.
 * The whole table, with every transcript, is also written to
 * test-results/conformance.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import type { ConformanceRow } from './run.js';

export default class ConformanceTableReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const rows: ConformanceRow[] = [];
    for (const module of testModules) {
      if (module.project.name !== 'conformance') continue;
      for (const test of module.children.allTests()) {
        const row = test.meta().conformance;
        if (row) rows.push(row);
      }
    }
    if (rows.length === 0) return;
    const agreeing = rows.filter((r) => r.agree).length;
    const out: string[] = [
      '',
      `conformance: ${agreeing} of ${rows.length} cases agree with istiod`,
    ];
    for (const row of rows)
      out.push(` ${row.agree ? 'agree ' : 'DIFFER'}  ${row.rule}: ${row.title}`);
    for (const row of rows.filter((r) => !r.agree)) {
      out.push('', `DIFFER ${row.rule}: ${row.title}`);
      const length = Math.max(row.istiod.length, row.mock.length);
      for (let i = 0; i < length; i += 1) {
        const a = row.istiod[i] ?? '';
        const b = row.mock[i] ?? '';
        if (a === b) out.push(`    = ${a}`);
        else out.push(`  istiod ${a}`, `  mock   ${b}`);
      }
    }
    process.stdout.write(`${out.join('\n')}\n`);
    writeMarkdown(rows, agreeing);
  }
}

function writeMarkdown(rows: ConformanceRow[], agreeing: number): void {
  const cell = (lines: string[]) =>
    lines.map((l) => l.replace(/\|/g, '\\|').replace(/</g, '&lt;')).join('<br>');
  const md = [
    '# Conformance: the mock against istiod',
    '',
    `${agreeing} of ${rows.length} cases agree. Written by \`npm run conformance\`.`,
    '',
    '| rule | case | istiod | mock | |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.rule} | ${r.title} | ${cell(r.istiod)} | ${cell(r.mock)} | ${r.agree ? 'agree' : '**differ**'} |`,
    ),
    '',
  ];
  const dir = 'test-results';
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'conformance.md'), md.join('\n'));
}
