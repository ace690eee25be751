/**
 * unpackEnvoy (src/envoy/unpack-envoy.ts): a zstd-compressed "Envoy" (a small executable
 * script here) is unpacked once into the cache, mode 0755, reused afterwards, unpacked whole
 * when several processes start at once, and a missing or corrupt file is refused with a
 * message naming it and the variable.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findEnvoy } from '../../src/envoy/find-envoy.js';
import { envoyUnpackDirs, unpackEnvoy } from '../../src/envoy/unpack-envoy.js';

const run = promisify(execFile);
const SCRIPT = '#!/bin/sh\necho fake-envoy "$@"\n';

if (typeof zlib.zstdCompressSync !== 'function') {
  throw new Error(
    `Node ${process.version} has no zstd in zlib: run the tests with Node 24 ` +
      '(export PATH="$(scripts/install-node.sh):$PATH")',
  );
}

let work: string;
let env: NodeJS.ProcessEnv;

function compress(text: string): Buffer {
  return zlib.zstdCompressSync(Buffer.from(text), {
    params: { [zlib.constants.ZSTD_c_checksumFlag]: 1 },
  });
}

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'unpack-envoy-'));
  env = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache') };
});

afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('unpackEnvoy', () => {
  it('unpacks on first use into the cache, mode 0755, and reuses it afterwards', async () => {
    const zst = join(work, 'envoy.zst');
    writeFileSync(zst, compress(SCRIPT));
    const path = unpackEnvoy(zst, env);
    expect(path.startsWith(join(work, 'cache', 'mock-istiod', 'envoy-unpacked'))).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(SCRIPT);
    expect(statSync(path).mode & 0o777).toBe(0o755);
    expect((await run(path, ['--version'])).stdout).toBe('fake-envoy --version\n');
    const first = statSync(path);
    // Through findEnvoy (the variable, ENVOY_BIN unset): the same file, not written again.
    expect(findEnvoy({ ...env, MOCK_ISTIOD_ENVOY_ZST: zst })).toBe(path);
    expect(statSync(path).mtimeMs).toBe(first.mtimeMs);
    expect(statSync(path).ino).toBe(first.ino);
    // ENVOY_BIN still wins.
    expect(findEnvoy({ ...env, ENVOY_BIN: process.execPath, MOCK_ISTIOD_ENVOY_ZST: zst })).toBe(
      process.execPath,
    );
    // Another compressed file is another binary, in a folder of its own.
    writeFileSync(zst, compress(SCRIPT.replace('fake-envoy', 'other-envoy')));
    const other = unpackEnvoy(zst, env);
    expect(other).not.toBe(path);
    expect((await run(other, [])).stdout).toBe('other-envoy\n');
  });

  it('gives several processes starting at once the same whole binary', async () => {
    const zst = join(work, 'envoy.zst');
    // Big enough that the writes overlap: 8 MB of comment after the script.
    writeFileSync(zst, compress(SCRIPT + `# ${'x'.repeat(8 << 20)}\n`));
    const module = join(process.cwd(), 'src', 'envoy', 'unpack-envoy.ts');
    const code =
      `import(${JSON.stringify(module)}).then(({ unpackEnvoy }) => ` +
      `console.log(unpackEnvoy(${JSON.stringify(zst)})));`;
    const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        run(tsx, ['--eval', code], { env: { ...process.env, ...env } }),
      ),
    );
    const paths = new Set(results.map((r) => r.stdout.trim()));
    expect(paths.size).toBe(1);
    const [path] = [...paths];
    expect((await run(path!, ['ok'])).stdout).toBe('fake-envoy ok\n');
    expect(statSync(path!).size).toBe(SCRIPT.length + 2 + (8 << 20) + 1);
    // No temporary file is left behind.
    expect(readdirSync(join(path!, '..'))).toEqual(['envoy']);
  }, 60_000);

  it('falls back to a folder in the temporary directory when the cache is not writable', () => {
    const zst = join(work, 'envoy.zst');
    writeFileSync(zst, compress(SCRIPT));
    writeFileSync(join(work, 'cache'), 'a file, not a folder');
    const [cache, temp] = envoyUnpackDirs(env);
    expect(cache).toBe(join(work, 'cache', 'mock-istiod', 'envoy-unpacked'));
    const path = unpackEnvoy(zst, env);
    expect(path.startsWith(temp!)).toBe(true);
    rmSync(join(path, '..'), { recursive: true });
  });

  it('refuses a missing or corrupt file, naming it and the variable', () => {
    const missing = join(work, 'missing.zst');
    expect(() => unpackEnvoy(missing, env)).toThrow(
      expect.objectContaining({ code: 'ENVOY_NOT_FOUND', details: { path: missing } }),
    );
    expect(() => unpackEnvoy(missing, env)).toThrow(
      `Envoy could not be unpacked from ${missing} (MOCK_ISTIOD_ENVOY_ZST): no such file; ` +
        'point MOCK_ISTIOD_ENVOY_ZST at a zstd-compressed Envoy or set ENVOY_BIN to an Envoy binary',
    );
    const notZstd = join(work, 'plain.zst');
    writeFileSync(notZstd, SCRIPT);
    expect(() => findEnvoy({ ...env, MOCK_ISTIOD_ENVOY_ZST: notZstd })).toThrow(
      /Envoy could not be unpacked from .*plain\.zst \(MOCK_ISTIOD_ENVOY_ZST\): it is not a whole zstd file \(/,
    );
    // A flipped byte in the middle: the frame's checksum (or its structure) gives it away.
    const corrupt = join(work, 'corrupt.zst');
    const bytes = compress(SCRIPT.repeat(50));
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(corrupt, bytes);
    expect(() => unpackEnvoy(corrupt, env)).toThrow(/it is not a whole zstd file/);
    // A cut-off file.
    const cut = join(work, 'cut.zst');
    writeFileSync(cut, compress(SCRIPT).subarray(0, 10));
    expect(() => unpackEnvoy(cut, env)).toThrow(/it is not a whole zstd file/);
    // Nothing was left in the cache by the refusals.
    expect(() => readdirSync(join(work, 'cache', 'mock-istiod', 'envoy-unpacked'))).toThrow();
  });
});
