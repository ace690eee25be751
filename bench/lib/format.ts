/**
 * Writes files the way the repository's Prettier check expects them (results JSON, the
 * benchmarks doc), so that a benchmark run never leaves `npm run format:check` failing.
 */
import { writeFileSync } from 'node:fs';
import * as prettier from 'prettier';

export async function writeFormatted(path: string, text: string): Promise<void> {
  const config = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(text, { ...config, filepath: path }));
}
