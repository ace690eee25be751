/**
 * Envoy's API types prepared at build time: `npm run build` (scripts/prepare-types.ts) parses
 * the .proto files once and writes protobufjs's JSON form of the resolved root, a top-level
 * type at a time (src/xds/type-units.ts), to `dist/descriptors/envoy-types.json`, a git-ignored
 * file that ships in the package. Building the root from it skips parsing some 130 .proto files
 * at every start, and only the types a start uses are built.
 *
 * The file records what it was made from (the list of files, a hash of this project's own, and
 * the versions of the packages that hold and parse the others); when that no longer matches,
 * it is stale and `envoyRoot()` parses the .proto files instead, so a checkout without a
 * build, or with a stale one, still works.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { packageRoot } from '../util/package-root.js';
import { lazyRoot, splitIntoUnits, type TypeUnits } from './type-units.js';

const require = createRequire(import.meta.url);

/** The prepared file's shape: what it was made from, and the root split into units. */
interface PreparedTypes {
  madeFrom: string;
  units: TypeUnits;
}

/** Changed when the file's shape changes, so that an older file is stale. */
const FORMAT = 3;

/** Where the build writes the prepared types (shipped with the package, never committed). */
export function preparedTypesPath(): string {
  return join(packageRoot(), 'dist', 'descriptors', 'envoy-types.json');
}

function packageVersion(name: string): string {
  const dir = dirname(require.resolve(`${name}/package.json`));
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** This project's own .proto files among `files` (in `proto/`), with a hash of their text. */
function ownProtos(files: readonly string[]): Record<string, string> {
  const own: Record<string, string> = {};
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(packageRoot(), 'proto', file), 'utf8');
    } catch {
      continue; // one of Envoy's, from @grpc/grpc-js-xds (its version stands for it)
    }
    own[file] = createHash('sha256').update(text).digest('hex');
  }
  return own;
}

/** What a prepared file made from these .proto files, with the installed packages, records. */
export function preparedFrom(files: readonly string[]): string {
  return JSON.stringify({
    format: FORMAT,
    files,
    own: ownProtos(files),
    '@grpc/grpc-js-xds': packageVersion('@grpc/grpc-js-xds'),
    protobufjs: packageVersion('protobufjs'),
  });
}

/** Writes `root` (loaded from `files`) as the prepared types, atomically. */
export function writePreparedTypes(
  root: protobuf.Root,
  files: readonly string[],
  path = preparedTypesPath(),
): void {
  const prepared: PreparedTypes = { madeFrom: preparedFrom(files), units: splitIntoUnits(root) };
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify(prepared));
  renameSync(partial, path);
}

/** Whether a prepared file for exactly these `files` and packages exists at `path`. */
export function preparedTypesFresh(files: readonly string[], path = preparedTypesPath()): boolean {
  return readPrepared(files, path) !== undefined;
}

/**
 * The root from the prepared file, or undefined when it is missing, unreadable or was made from
 * other files or package versions (the caller then parses the .proto files). Its types are
 * added when first looked up (src/xds/type-units.ts), and the types' references resolved per
 * type on first use (as protobufjs and the JSON converter do), not all at once.
 */
export function loadPreparedTypes(
  files: readonly string[],
  path = preparedTypesPath(),
): protobuf.Root | undefined {
  const prepared = readPrepared(files, path);
  if (!prepared) return undefined;
  return lazyRoot(prepared.units);
}

function readPrepared(files: readonly string[], path: string): PreparedTypes | undefined {
  let prepared: PreparedTypes;
  try {
    prepared = JSON.parse(readFileSync(path, 'utf8')) as PreparedTypes;
  } catch {
    return undefined;
  }
  return prepared.madeFrom === preparedFrom(files) ? prepared : undefined;
}
