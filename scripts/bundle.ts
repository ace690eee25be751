/**
 * `npm run build`'s bundling step (after tsc and the prepared types). It writes the compiled
 * code as two CommonJS bundles, each one file with the packages it imports inside:
 *
 * - dist/src/cli/main.bundle.cjs, the CLI, which bin/mock-istiod.js runs when it is there;
 * - dist/src/lib.bundle.cjs, the library: `mock-istiod` and `mock-istiod/testing` are two small
 *   ES modules (dist/src/index.bundle.js, dist/src/testing/index.bundle.js, written here too)
 *   that take their exports from it, so that both share one instance of each module.
 *
 * Each is then started once (the CLI serving, the library starting a mock) to write V8's code
 * cache beside it, which src/util/code-cache.ts hands to V8 at every later start: Node then
 * neither resolves nor reads some 300 modules, nor compiles what the cache holds
 * (docs/BENCHMARKS.md, "Start-up"). Packages loaded on first use (src/util/lazy-require.ts)
 * stay outside, and the commands the CLI imports on first use are still evaluated only when
 * used. The licences of the bundled packages go to dist/src/bundled-licenses.txt.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Metafile } from 'esbuild';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, 'dist/src');
const LICENSES = 'bundled-licenses.txt';
const CLI = join(dist, 'cli/main.bundle.cjs');
const LIBRARY = join(dist, 'lib.bundle.cjs');

/**
 * Packages the library bundle leaves in node_modules: their objects cross the library's API (a
 * user's pino logger, grpc-js clients and channels in tests, metrics registries), so a user's
 * copy and the library's should stay the same one.
 */
const LIBRARY_EXTERNAL = ['@grpc/grpc-js'];

/** The code caches written for `bundle` (any build of it). */
function codeCaches(bundle: string): string[] {
  const prefix = `${basename(bundle)}.`;
  return readdirSync(dirname(bundle))
    .filter((f) => f.startsWith(prefix) && f.endsWith('.v8cache'))
    .map((f) => join(dirname(bundle), f));
}

/** Bundles `entry` to `outfile`; returns the packages it took in (name → folder). */
async function bundle(
  entry: Pick<BuildOptions, 'entryPoints' | 'stdin'>,
  outfile: string,
  external: string[] = [],
): Promise<Map<string, string>> {
  const result = await build({
    ...entry,
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    // The modules are ES modules: in one CommonJS file, import.meta.url is the bundle's, and
    // import.meta.resolve resolves from the bundle.
    define: { 'import.meta.url': '__bundle_url', 'import.meta.resolve': '__bundle_resolve' },
    banner: {
      js: [
        `// Licences of the packages bundled here: ${LICENSES}`,
        "var __bundle_url = require('node:url').pathToFileURL(__filename).href;",
        "var __bundle_resolve = (s) => require('node:url').pathToFileURL(require.resolve(s)).href;",
      ].join('\n'),
    },
    legalComments: 'eof',
    sourcemap: true,
    sourcesContent: false, // the sources are in dist/ and node_modules: a map a third the size
    metafile: true,
    logLevel: 'warning',
  });
  const built = readFileSync(outfile, 'utf8');
  const code = built.replace(/^#!.*\n/, ''); // vm.Script takes no hashbang
  // The first line names the build, so that a code cache is only ever used with its bundle.
  const id = createHash('sha256').update(code).digest('hex').slice(0, 16);
  for (const old of codeCaches(outfile)) rmSync(old);
  writeFileSync(outfile, `// mock-istiod bundle ${id}\n${code}`);
  if (code === built) {
    // That line moved the code down one line: so must the source map.
    const map = JSON.parse(readFileSync(`${outfile}.map`, 'utf8')) as { mappings: string };
    writeFileSync(`${outfile}.map`, JSON.stringify({ ...map, mappings: `;${map.mappings}` }));
  }
  return packagesOf(result.metafile);
}

function packagesOf(metafile: Metafile): Map<string, string> {
  const found = new Map<string, string>();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/)((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) found.set(match[2] as string, join(root, match[1] as string, match[2] as string));
  }
  return found;
}

/** Each bundled package's name, version and licence, with the text of its licence file. */
function licenseText(packages: Map<string, string>): string {
  const sorted = [...packages].sort(([a], [b]) => a.localeCompare(b));
  return sorted
    .map(([name, dir]) => {
      const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        version: string;
        license?: string;
      };
      const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
      const text = file ? readFileSync(join(dir, file), 'utf8').trim() : '(no licence file)';
      return `${name} ${meta.version} (${meta.license ?? 'see below'})\n\n${text}\n`;
    })
    .join(`\n${'-'.repeat(78)}\n\n`);
}

/** The ES module behind a package entry: the named exports of one part of the library bundle. */
async function writeEntry(file: string, part: 'main' | 'testing', compiled: string) {
  const names = Object.keys((await import(pathToFileURL(compiled).href)) as object).sort();
  const up = part === 'testing' ? '../' : './';
  const lines = [
    '// Written by scripts/bundle.ts: the exports of the library bundle, which',
    "// 'mock-istiod' and 'mock-istiod/testing' share, run with its code cache.",
    `import { runBundle } from '${up}util/code-cache.js';`,
    `const part = runBundle(new URL('${up}lib.bundle.cjs', import.meta.url)).exports.${part};`,
    `export const { ${names.join(', ')} } = part;`,
    '',
  ];
  writeFileSync(file, lines.join('\n'));
}

/**
 * Runs Node with `args` to write a code cache: at exit, or, for a server, once `ready` says it
 * serves (on SIGUSR2: the run is then stopped when the cache is there).
 */
function warm(args: string[], cacheOf: string, ready?: (stdout: string) => boolean) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, MOCK_ISTIOD_WRITE_CODE_CACHE: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    let out = '';
    let asked = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (asked || !ready?.(out)) return;
      asked = true;
      child.kill('SIGUSR2');
      const poll = setInterval(() => {
        if (codeCaches(cacheOf).length === 0) return;
        clearInterval(poll);
        child.kill('SIGKILL');
      }, 10);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (codeCaches(cacheOf).length > 0) resolve();
      else reject(new Error(`node ${args.join(' ')} exited (${code ?? signal}): ${out}`));
    });
  });
}

const packages = new Map([
  ...(await bundle({ entryPoints: [join(dist, 'cli/main.js')] }, CLI)),
  ...(await bundle(
    {
      stdin: {
        contents: [
          "export * as main from './index.js';",
          "export * as testing from './testing/index.js';",
        ].join('\n'),
        resolveDir: dist,
        sourcefile: 'library-entry.js',
      },
    },
    LIBRARY,
    LIBRARY_EXTERNAL,
  )),
]);
writeFileSync(join(dist, LICENSES), licenseText(packages));
await writeEntry(join(dist, 'index.bundle.js'), 'main', join(dist, 'index.js'));
await writeEntry(join(dist, 'testing/index.bundle.js'), 'testing', join(dist, 'testing/index.js'));

const serve = [join(root, 'bin/mock-istiod.js'), 'serve', '--port', '0', '--control-port', '0'];
await warm(serve, CLI, (out) => out.includes('is serving'));
const entry = pathToFileURL(join(dist, 'index.bundle.js')).href;
const firstStart = [
  `const { startMockIstiod } = await import(${JSON.stringify(entry)});`,
  'const istiod = await startMockIstiod();',
  'await istiod.close();',
];
await warm(['--input-type=module', '-e', firstStart.join('\n')], LIBRARY);
