/**
 * What an import did, for the user to read before trusting it: every rewrite with the path it
 * changed, everything not served and why, what cannot work on this machine, and the warming,
 * draining and rejected entries with what was kept. Paths are JSON paths inside the dump.
 */
import type { Problem } from '../util/problems.js';

export interface ImportReport {
  /** Resources served, by type name (`CDS`: 12, …). */
  counts: Record<string, number>;
  /** Versions kept per type (with `keepVersions`), else empty. */
  versions: Record<string, string>;
  rewrites: Problem[];
  notImported: Problem[];
  /** What a local Envoy cannot do with the imported set as it is, and why. */
  cannotWork: Problem[];
  inFlight: Problem[];
}

export function emptyReport(): ImportReport {
  return { counts: {}, versions: {}, rewrites: [], notImported: [], cannotWork: [], inFlight: [] };
}

const HEADINGS: [keyof ImportReport, string][] = [
  ['rewrites', 'rewritten'],
  ['inFlight', 'warming, draining, rejected'],
  ['notImported', 'not imported'],
  ['cannotWork', 'cannot work here as it is'],
];

/** The report as lines of text (the CLI prints it; `import -o` writes it as comments). */
export function formatReport(report: ImportReport): string[] {
  const counts = Object.entries(report.counts).map(([type, n]) => `${type} ${n}`);
  const lines = [`imported: ${counts.join(', ') || 'nothing'}`];
  const versions = Object.entries(report.versions).map(([type, v]) => `${type} ${v}`);
  if (versions.length > 0) lines.push(`versions kept: ${versions.join(', ')}`);
  for (const [key, heading] of HEADINGS) {
    const list = report[key] as Problem[];
    if (list.length === 0) continue;
    lines.push(`${heading} (${list.length}):`);
    for (const p of list) lines.push(`  ${p.path}: ${p.message}`);
  }
  return lines;
}
