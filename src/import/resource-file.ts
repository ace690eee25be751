/**
 * An import written as a resource file (docs/resources.md): one set, `{ resources, versions }`,
 * in YAML (the import report above it as comments) or JSON, by the file's extension. The file
 * is then edited and served like any other: `mock-istiod serve --resources <file>`.
 */
import { extname } from 'node:path';
import type * as Yaml from 'yaml';
import { lazyRequire } from '../util/lazy-require.js';

/** Loaded on first use: start-up does not pay for the YAML parser when no file is read. */
const yaml = lazyRequire<typeof Yaml>(import.meta.url, 'yaml');
import type { ImportedDump } from './import-dump.js';
import { formatReport } from './report.js';

export type ResourceFileFormat = 'yaml' | 'json';

export function formatOf(path: string): ResourceFileFormat {
  return extname(path) === '.json' ? 'json' : 'yaml';
}

export function formatResourceFile(
  imported: ImportedDump,
  format: ResourceFileFormat,
  source: string,
  /** The first comment line, when the set did not come from `import` (e.g. `generate`). */
  origin = `Imported from ${source} by mock-istiod import.`,
): string {
  const { resources, versions } = imported.spec;
  const doc = { resources, ...(versions ? { versions } : {}) };
  if (format === 'json') return `${JSON.stringify(doc, null, 2)}\n`;
  const header = [...origin.split('\n'), ...formatReport(imported.report)];
  const comments = header.map((line) => `# ${line}`.trimEnd()).join('\n');
  return `${comments}\n${yaml().stringify(doc, { lineWidth: 0 })}`;
}
