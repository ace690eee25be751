/**
 * Bundles run with V8's code cache (src/util/code-cache.ts): the cache the build asks for is
 * written at exit and used by the next run; a cache V8 does not take (garbage here, another
 * Node's in life) is turned down and the bundle still runs; a rebuilt bundle never meets the
 * old cache, whose name carries the old build id.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCachePath, nodeTag, runBundle, type RanBundle } from '../../src/util/code-cache.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeBundle(id: string, answer: number): string {
  const file = join(dir, 'bundle.cjs');
  const body = `exports.answer = ${answer};\nexports.file = __filename;\nexports.req = typeof require('node:path').join;\n`;
  writeFileSync(file, `// mock-istiod bundle ${id}\n${body}`);
  return file;
}

/**
 * Runs the bundle in a fresh Node (in one process, V8 would reuse its own compilation and
 * never look at the cache); `write` is the build's request to write the cache at exit.
 */
async function runFresh(file: string, write = false): Promise<RanBundle> {
  const loader = pathToFileURL(join(import.meta.dirname, '../../src/util/code-cache.ts')).href;
  const script = [
    `const { runBundle } = await import(${JSON.stringify(loader)});`,
    `console.log(JSON.stringify(runBundle(${JSON.stringify(pathToFileURL(file).href)})));`,
  ].join('\n');
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      env: { ...process.env, MOCK_ISTIOD_WRITE_CODE_CACHE: write ? '1' : '' },
      timeout: 20_000,
    },
  );
  return JSON.parse(stdout) as RanBundle;
}

describe('code cache', () => {
  it('is written when the build asks, then used; garbage is turned down; a rebuild skips it', async () => {
    const file = writeBundle('0123abcd', 42);
    const exports = { answer: 42, file, req: 'function' };
    expect(runBundle(pathToFileURL(file))).toMatchObject({ cache: 'none', exports });

    expect(await runFresh(file, true)).toMatchObject({ cache: 'none', exports });
    expect(readdirSync(dir)).toContain(`bundle.cjs.0123abcd.${nodeTag()}.v8cache`);
    expect(await runFresh(file)).toMatchObject({ cache: 'used', exports });

    // Made by another Node: never read (V8 checks only its own version, which Node releases
    // can share while their builds differ).
    const other = codeCachePath(file, '0123abcd', 'v20.0.0-x64');
    renameSync(codeCachePath(file, '0123abcd'), other);
    expect(await runFresh(file)).toMatchObject({ cache: 'none', exports });
    renameSync(other, codeCachePath(file, '0123abcd'));

    writeFileSync(codeCachePath(file, '0123abcd'), 'not a code cache at all');
    expect(await runFresh(file)).toMatchObject({ cache: 'rejected', exports });

    // Rebuilt, the same length: the cache of the old build is not read for the new one.
    await runFresh(file, true);
    const rebuilt = writeBundle('4567cdef', 43);
    expect(await runFresh(rebuilt)).toMatchObject({ cache: 'none', exports: { answer: 43 } });
  });
});
