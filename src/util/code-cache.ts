/**
 * Runs one of the bundles `npm run build` writes (scripts/bundle.mjs: the CLI, and the library
 * behind `mock-istiod` and `mock-istiod/testing`) with V8's code cache, so that a start does
 * not parse and compile what the last one already did. Node 20 has no compile cache of its own
 * (`module.enableCompileCache` came later), so the bundle, a CommonJS file, is compiled here
 * with `vm.Script` and the cached data the build wrote beside it.
 *
 * The cache's name carries the bundle's build id (its first line) and the Node that made it
 * (version and architecture), so a rebuilt bundle never meets an old cache and another Node
 * never reads this one: V8 only checks its own version, which Node releases can share while
 * their builds differ (Node 20.18 read 20.20's cache and crashed). V8 itself rejects a cache
 * made with other V8 flags. Without a cache of its own, the bundle is compiled as usual. Nothing is written at run time, except
 * when the build asks for it (`MOCK_ISTIOD_WRITE_CODE_CACHE=1`): the cache is then written as
 * the process exits, or on SIGUSR2, holding every function the run has compiled.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/** How a bundle's first line names its build: `// mock-istiod bundle <id>`. */
const BUILD_ID = /^\/\/ mock-istiod bundle ([0-9a-f]+)\n/;

/** The Node a cache is for: `v20.20.2-x64`. */
export function nodeTag(): string {
  return `${process.version}-${process.arch}`;
}

/** Where the code cache of a bundle with this build id, made by this Node, lives. */
export function codeCachePath(bundle: string, buildId: string, node = nodeTag()): string {
  return `${bundle}.${buildId}.${node}.v8cache`;
}

function readCache(path: string | undefined): Buffer | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path);
  } catch {
    return undefined; // not built (yet): compile as usual
  }
}

export interface RanBundle {
  /** The bundle's `module.exports`. */
  exports: Record<string, unknown>;
  /** Whether V8 took the code cache, turned it down, or there was none. */
  cache: 'used' | 'rejected' | 'none';
}

/** Evaluates the CommonJS bundle at `url` (a file URL) as Node would `require` it. */
export function runBundle(url: string | URL): RanBundle {
  const file = fileURLToPath(url);
  const source = readFileSync(file, 'utf8');
  const buildId = BUILD_ID.exec(source)?.[1];
  const cachePath = buildId === undefined ? undefined : codeCachePath(file, buildId);
  const cachedData = readCache(cachePath);
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  if (cachePath !== undefined && process.env.MOCK_ISTIOD_WRITE_CODE_CACHE === '1') {
    const write = () => writeCache(cachePath, script.createCachedData());
    process.once('exit', write).once('SIGUSR2', write); // SIGUSR2: a server, when it serves
  }
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as Record<string, unknown>, id: file, filename: file };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  const cache = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  return { exports: module.exports, cache };
}

function writeCache(path: string, data: Buffer): void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, data);
  renameSync(partial, path);
}
