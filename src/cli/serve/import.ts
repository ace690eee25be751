/**
 * `mock-istiod import <dump> [-o <file>]`: a captured Envoy config_dump (or istioctl's
 * `proxy-config all -o json`) written as an editable resource file, with the import report.
 */
import { writeFileSync } from 'node:fs';
import { parseFlags } from '../flags.js';
import { formatOf, formatResourceFile } from '../../import/resource-file.js';
import { MockIstiodError } from '../../util/errors.js';
import { importDumpFile } from '../../import/import-file.js';
import { formatReport } from '../../import/report.js';
import { IMPORT_FLAGS, IMPORT_USAGE, parseImportFlags } from './import-flags.js';

export const IMPORT_COMMAND_USAGE = `Usage: mock-istiod import <config_dump.json> [-o <resources.yaml|.json>] [options]

Reads an Envoy admin /config_dump (with or without ?include_eds) or istioctl's
"proxy-config all -o json", and writes the dynamic resources it holds as a resource file
(docs/import.md). The import report goes to stderr (and into a YAML file, as comments).

Options:
  -o, --output <file>      where to write (.json: JSON, else YAML; default: stdout, YAML)
${IMPORT_USAGE}  --tls-dir <dir>          the mock's CA files, for --sds ca
  -h, --help               show this help
`;

const OPTIONS = {
  output: { type: 'string', short: 'o' },
  'tls-dir': { type: 'string' },
  ...IMPORT_FLAGS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export function importCommand(argv: string[]): Promise<number> {
  const parsed = parseFlags(argv, OPTIONS, IMPORT_COMMAND_USAGE, { positionals: true });
  if (!parsed) return Promise.resolve(0);
  const { values, positionals } = parsed;
  const [source, ...extra] = positionals;
  if (source === undefined || extra.length > 0)
    throw new MockIstiodError('USAGE', 'import: expected one config_dump file');
  const imported = importDumpFile(source, parseImportFlags(values, values['tls-dir']));
  const output = values.output;
  const text = formatResourceFile(imported, output ? formatOf(output) : 'yaml', source);
  if (output) writeFileSync(output, text);
  else process.stdout.write(text);
  process.stderr.write(`${formatReport(imported.report).join('\n')}\n`);
  if (output)
    process.stderr.write(
      `wrote ${output}: serve it with mock-istiod serve --resources ${output}\n`,
    );
  return Promise.resolve(0);
}
