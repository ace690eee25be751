/**
 * Envoy shipped compressed (the container image carries it as a zstd file, a quarter of its
 * size, named by `MOCK_ISTIOD_ENVOY_ZST`), unpacked on first use into a per-user cache and run
 * from there afterwards. The unpacked file is named by a hash of the compressed one, and
 * written atomically (a temporary file beside it, then a rename), so that two processes
 * starting at once both end up with a whole binary and a changed file is unpacked afresh.
 * Node's own zlib decompresses it (zstd is in zlib from Node 22.15 and 23.8).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { MockIstiodError } from '../util/errors.js';

/** The variable naming a zstd-compressed Envoy to unpack when `ENVOY_BIN` is not set. */
export const ENVOY_ZST_VARIABLE = 'MOCK_ISTIOD_ENVOY_ZST';

/**
 * The folders the unpacked binary may go in, first choice first: the per-user cache
 * (`$XDG_CACHE_HOME` or `~/.cache`, then `mock-istiod/envoy-unpacked`), then, where that is
 * not writable (another uid in a container, a read-only home), one in the temporary folder
 * named by the uid.
 */
export function envoyUnpackDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const xdg = env['XDG_CACHE_HOME'];
  const home = env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : homedir();
  const cache = xdg !== undefined && xdg !== '' ? xdg : join(home, '.cache');
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return [join(cache, 'mock-istiod', 'envoy-unpacked'), join(tmpdir(), `mock-istiod-envoy-${uid}`)];
}

/** What was read and hashed, per compressed file, so a second look in this process is free. */
const hashes = new Map<string, { size: number; mtimeMs: number; hash: string }>();

function unpackError(zstPath: string, reason: string): MockIstiodError<'ENVOY_NOT_FOUND'> {
  return new MockIstiodError(
    'ENVOY_NOT_FOUND',
    `Envoy could not be unpacked from ${zstPath} (${ENVOY_ZST_VARIABLE}): ${reason}; ` +
      `point ${ENVOY_ZST_VARIABLE} at a zstd-compressed Envoy or set ENVOY_BIN to an Envoy binary`,
    { details: { path: zstPath } },
  );
}

const ZSTD_MAGIC = 0xfd2fb528;

/**
 * Why `data` is not one or more whole zstd frames, or `undefined` when it is. Node's zlib
 * returns what it could decompress of a cut-off file without an error, so the frames' block
 * structure is walked to the end first (the decompressor then checks each frame's checksum).
 */
export function zstdIncomplete(data: Buffer): string | undefined {
  let at = 0;
  if (data.length === 0) return 'the file is empty';
  while (at < data.length) {
    if (at + 8 > data.length) return `it ends inside a frame header (byte ${at})`;
    const magic = data.readUInt32LE(at);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      at += 8 + data.readUInt32LE(at + 4); // a skippable frame
      continue;
    }
    if (magic !== ZSTD_MAGIC) return `no zstd frame at byte ${at}`;
    const descriptor = data[at + 4]!;
    const singleSegment = (descriptor >> 5) & 1;
    const contentSizeBytes = [singleSegment, 2, 4, 8][descriptor >> 6]!;
    const dictionaryBytes = [0, 1, 2, 4][descriptor & 3]!;
    const checksumBytes = (descriptor >> 2) & 1 ? 4 : 0;
    at += 5 + (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes;
    for (let last = false; !last;) {
      if (at + 3 > data.length) return `it is cut off (no last block by byte ${data.length})`;
      const header = data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16);
      last = (header & 1) === 1;
      const type = (header >> 1) & 3;
      if (type === 3) return `a reserved block type at byte ${at}`;
      at += 3 + (type === 1 ? 1 : header >>> 3);
    }
    at += checksumBytes;
    if (at > data.length) return `it is cut off (the last frame needs ${at} bytes)`;
  }
  return undefined;
}

/** Whether `path` is a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether this user owns `path`: an unpacked binary (or its folder) another user made, in the
 * shared temporary folder, is not run.
 */
function ownedByUs(path: string): boolean {
  if (typeof process.getuid !== 'function') return true;
  try {
    return statSync(path).uid === process.getuid();
  } catch {
    return false;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The path of the Envoy unpacked from the zstd file `zstPath`: the one already unpacked when
 * there is one, otherwise unpacked now. Throws `ENVOY_NOT_FOUND` saying why when the file is
 * missing, is not a whole zstd file (its checksum is checked), or no folder is writable.
 */
export function unpackEnvoy(zstPath: string, env: NodeJS.ProcessEnv = process.env): string {
  let stat;
  try {
    stat = statSync(zstPath);
  } catch {
    throw unpackError(zstPath, 'no such file');
  }
  if (!stat.isFile()) throw unpackError(zstPath, 'not a file');
  let data: Buffer | undefined;
  let known = hashes.get(zstPath);
  if (known === undefined || known.size !== stat.size || known.mtimeMs !== stat.mtimeMs) {
    try {
      data = readFileSync(zstPath);
    } catch (err) {
      throw unpackError(zstPath, `it cannot be read (${errorText(err)})`);
    }
    const hash = createHash('sha256').update(data).digest('hex').slice(0, 16);
    known = { size: stat.size, mtimeMs: stat.mtimeMs, hash };
    hashes.set(zstPath, known);
  }
  const dirs = envoyUnpackDirs(env).map((dir) => join(dir, known.hash));
  for (const dir of dirs) {
    const target = join(dir, 'envoy');
    if (isExecutableFile(target) && ownedByUs(dir) && ownedByUs(target)) return target;
  }
  const decompress = (zlib as { zstdDecompressSync?: (buf: Buffer) => Buffer }).zstdDecompressSync;
  if (decompress === undefined) {
    throw unpackError(
      zstPath,
      `this Node (${process.version}) has no zstd in zlib: run it with Node 22.15 or later`,
    );
  }
  if (data === undefined) {
    try {
      data = readFileSync(zstPath);
    } catch (err) {
      throw unpackError(zstPath, `it cannot be read (${errorText(err)})`);
    }
  }
  const incomplete = zstdIncomplete(data);
  if (incomplete !== undefined) {
    throw unpackError(zstPath, `it is not a whole zstd file (${incomplete})`);
  }
  let binary: Buffer;
  try {
    binary = decompress(data);
  } catch (err) {
    throw unpackError(zstPath, `it is not a whole zstd file (${errorText(err)})`);
  }
  if (binary.length === 0) throw unpackError(zstPath, 'it unpacks to an empty file');
  const failures: string[] = [];
  for (const dir of dirs) {
    const target = join(dir, 'envoy');
    const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      writeFileSync(temp, binary, { mode: 0o755, flag: 'wx' });
      chmodSync(temp, 0o755); // whatever the umask
      renameSync(temp, target);
      return target;
    } catch (err) {
      try {
        rmSync(temp, { force: true });
      } catch {
        // the folder itself could not be made: there is no temporary file
      }
      failures.push(`${dir}: ${errorText(err)}`);
    }
  }
  throw unpackError(zstPath, `no folder to unpack it in is writable (${failures.join('; ')})`);
}
