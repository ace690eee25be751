/**
 * A captured config_dump file read and imported whole, for `import` and `serve
 * --from-config-dump`: problems throw `INVALID_RESOURCES`, one line each.
 */
import { MockIstiodError } from '../util/errors.js';
import {
  importConfigDump,
  readDumpFile,
  type ImportedDump,
  type ImportOptions,
} from './import-dump.js';

export function importDumpFile(path: string, options: Partial<ImportOptions>): ImportedDump {
  const read = readDumpFile(path);
  const imported = read.ok ? importConfigDump(read.value, options) : read;
  if (!imported.ok) {
    const list = imported.problems.map((p) => `\n  ${p.path}: ${p.message}`).join('');
    throw new MockIstiodError('INVALID_RESOURCES', `cannot import ${path}:${list}`, {
      problems: imported.problems,
    });
  }
  return imported.value;
}
