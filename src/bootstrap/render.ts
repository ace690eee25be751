/**
 * Renders a bootstrap (or any Envoy config object) as YAML or JSON text for Envoy's `-c`.
 */
import type * as Yaml from 'yaml';
import { lazyRequire } from '../util/lazy-require.js';

/** Loaded on first use: start-up does not pay for the YAML writer when nothing is rendered. */
const yaml = lazyRequire<typeof Yaml>(import.meta.url, 'yaml');

export type BootstrapFormat = 'yaml' | 'json';

export interface RenderOptions {
  /** A comment for the top of a YAML file (one `#` line per line of text); ignored for JSON. */
  comment?: string;
}

/**
 * YAML or pretty JSON, ending in a newline. In YAML, strings containing `|` are quoted:
 * Istio's cluster names (`inbound|8101||`) are valid plain scalars, but quoting them is the
 * habit the course teaches, and it keeps hand edits from turning them into block scalars.
 * Quotes are single, as Prettier (this repository's formatter) writes YAML, and long strings
 * are never folded.
 */
export function renderBootstrap(
  config: object,
  format: BootstrapFormat,
  options: RenderOptions = {},
): string {
  if (format === 'json') return `${JSON.stringify(config, null, 2)}\n`;
  const { Document, visit } = yaml();
  const doc = new Document(config);
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.includes('|')) {
        node.type = 'QUOTE_SINGLE';
      }
    },
  });
  if (options.comment !== undefined) {
    doc.commentBefore = options.comment
      .split('\n')
      .map((line) => (line === '' ? '' : ` ${line}`))
      .join('\n');
  }
  return doc.toString({ lineWidth: 0, singleQuote: true });
}
