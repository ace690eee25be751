/**
 * grpc-js is loaded on first use (src/util/grpc-js.ts): a mock on its default plaintext port
 * never loads it, and a TLS port or a test client does. Every other module imports its types
 * only; one value import anywhere would load it with the library.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const srcDir = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Starts a mock in a fresh Node with `options`, then says whether grpc-js was loaded. */
async function loadsGrpcJs(options: string, after = ''): Promise<boolean> {
  const entry = pathToFileURL(join(srcDir, 'index.ts')).href;
  const script = [
    "import { createRequire } from 'node:module';",
    `const { startMockIstiod } = await import(${JSON.stringify(entry)});`,
    `const istiod = await startMockIstiod(${options});`,
    after,
    'await istiod.close();',
    'const cache = createRequire(import.meta.url).cache;',
    "console.log(JSON.stringify(Object.keys(cache).some((k) => k.includes('/@grpc/grpc-js/'))));",
  ].join('\n');
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { timeout: 30_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as boolean;
}

describe('grpc-js, loaded on first use', () => {
  it('is imported for its types only, but in src/util/grpc-js.ts', () => {
    const valueImports = sourceFiles(srcDir).filter((file) => {
      const text = readFileSync(file, 'utf8');
      return (
        /^import (?!type )[^;]*from '@grpc\/grpc-js';/m.test(text) ||
        text.includes("require('@grpc/grpc-js')")
      );
    });
    expect(valueImports.map((f) => relative(srcDir, f))).toEqual([]);
  });

  it('is not loaded by a mock on its plaintext port, and is by one with TLS', async () => {
    expect(await loadsGrpcJs('')).toBe(false);
    expect(await loadsGrpcJs('{ tls: true }')).toBe(true);
  });
});
