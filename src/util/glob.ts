/**
 * Node-id globs, the one matcher for every node filter (fault scopes and triggers, resource
 * sets' `match`, `wait-for-ack`, `push`, `disconnect`, the live page): `*` matches any run of
 * characters (including none, and including line breaks), `?` exactly one UTF-16 code unit;
 * everything else matches itself. A glob without wildcards is an exact match. Node ids
 * contain `~`, `.` and `|`, none of which is special here.
 *
 * Both sides come from outside (a node id from any xDS client, a glob from the control API or
 * a file), so the matcher must not backtrack: a glob turned into a regular expression
 * (`^.*a.*a.*a.*X$`) takes exponential time in the number of stars. Here the glob is cut at
 * its stars into literal pieces; the first piece must start the value and the last must end
 * it, and each piece between them is taken at its leftmost place after the one before. The
 * leftmost place is always a safe choice, since it leaves the most text for the pieces after
 * it, so no choice is ever revisited. A piece without `?` is found with `indexOf`, one
 * with `?` in a single pass over the value (see findWildPiece); the glob's length is capped
 * by MAX_GLOB_LENGTH.
 */

/**
 * The longest glob accepted, in UTF-16 code units. Node ids are a few hundred characters at
 * most in Istio (`sidecar~10.0.0.1~pod.ns~ns.svc.cluster.local`), so this leaves room for
 * any real filter while refusing a megabyte-long one at the edge.
 */
export const MAX_GLOB_LENGTH = 1024;

/** The problem text for a glob longer than MAX_GLOB_LENGTH, or undefined. */
export function globLengthProblem(glob: string): string | undefined {
  return glob.length > MAX_GLOB_LENGTH
    ? `a node-id glob may have at most ${MAX_GLOB_LENGTH} characters; this one has ${glob.length}`
    : undefined;
}

/** The problem text for a value that is not a non-empty glob within MAX_GLOB_LENGTH. */
export function globProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') {
    return 'expected a node-id glob such as "sidecar~*"';
  }
  return globLengthProblem(value);
}

/** True when `piece` (which may hold `?`) matches `value` at `at`; the caller checks room. */
function pieceAt(piece: string, value: string, at: number): boolean {
  for (let i = 0; i < piece.length; i++) {
    const c = piece.charCodeAt(i);
    if (c !== 63 /* ? */ && c !== value.charCodeAt(at + i)) return false;
  }
  return true;
}

/** A piece holding `?`, with its Shift-And tables (see findWildPiece). */
interface WildPiece {
  piece: string;
  words: number;
  table: Int32Array;
  wide: Map<number, number>;
}

/**
 * The leftmost place at or after `from` where a piece holding `?` matches, or -1, found in
 * one pass over `value` (Shift-And: bit i of the state says that the piece's first i + 1
 * characters end at the current place), so the work is the value's length times the piece's
 * length / 32, with no step ever taken back.
 */
function findWildPiece(wild: WildPiece, value: string, from: number): number {
  const { piece, words, table, wide } = wild;
  const state = new Int32Array(words);
  const lastWord = (piece.length - 1) >>> 5;
  const lastBit = 1 << ((piece.length - 1) & 31);
  for (let at = from; at < value.length; at++) {
    const c = value.charCodeAt(at);
    const base = (c < 128 ? c : (wide.get(c) ?? 128)) * words;
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const word = state[w]!;
      state[w] = ((word << 1) | carry) & table[base + w]!;
      carry = word >>> 31;
    }
    if ((state[lastWord]! & lastBit) !== 0) return at - piece.length + 1;
  }
  return -1;
}

/**
 * For each character, the places in `piece` it may stand at (its own places and every `?`),
 * `words` 32-bit words per character: rows 0–127 are ASCII, row 128 any character the piece
 * does not name, and rows from 129 on the piece's other characters (found through `wide`).
 */
function wildPiece(piece: string): WildPiece {
  const words = (piece.length + 31) >>> 5;
  const wide = new Map<number, number>();
  for (let i = 0; i < piece.length; i++) {
    const c = piece.charCodeAt(i);
    if (c >= 128 && !wide.has(c)) wide.set(c, 129 + wide.size);
  }
  const table = new Int32Array((129 + wide.size) * words);
  for (let i = 0; i < piece.length; i++) {
    const c = piece.charCodeAt(i);
    const bit = 1 << (i & 31);
    const word = i >>> 5;
    if (c !== 63 /* ? */) {
      const row = c < 128 ? c : wide.get(c)!;
      table[row * words + word]! |= bit;
    } else for (let row = 0; row < 129 + wide.size; row++) table[row * words + word]! |= bit;
  }
  return { piece, words, table, wide };
}

/** A glob cut at its stars, each middle piece ready to be searched for. */
interface CompiledGlob {
  /** No star: the glob is the whole value (its `?` match any one character). */
  whole: boolean;
  first: string;
  last: string;
  middle: (string | WildPiece)[];
  /** What keeping it costs, in bytes (for the cache's bound). */
  bytes: number;
}

function compile(glob: string): CompiledGlob {
  const pieces = glob.split('*');
  const middle = pieces
    .slice(1, -1)
    .filter((piece) => piece !== '')
    .map((piece) => (piece.includes('?') ? wildPiece(piece) : piece));
  const tables = middle.reduce((n, p) => n + (typeof p === 'string' ? 0 : p.table.byteLength), 0);
  return {
    whole: pieces.length === 1,
    first: pieces[0] ?? '',
    last: pieces[pieces.length - 1] ?? '',
    middle,
    bytes: 2 * glob.length + tables,
  };
}

/**
 * Compiled globs by text. A filter is matched against every stream's node id, over and
 * over, so it is cut and its tables built once. Globs come from outside: the cache is bound
 * by the bytes it keeps, oldest out first, and a glob too large for it is compiled per match.
 */
const compiled = new Map<string, CompiledGlob>();
let compiledBytes = 0;
const CACHE_BYTES = 4 * 1024 * 1024;
const LARGEST_CACHED = CACHE_BYTES / 8;

function compiledGlob(glob: string): CompiledGlob {
  const hit = compiled.get(glob);
  if (hit) return hit;
  const made = compile(glob);
  if (made.bytes > LARGEST_CACHED) return made;
  for (const [old, entry] of compiled) {
    if (compiledBytes + made.bytes <= CACHE_BYTES) break;
    compiled.delete(old);
    compiledBytes -= entry.bytes;
  }
  compiled.set(glob, made);
  compiledBytes += made.bytes;
  return made;
}

/** The bytes the cache of compiled globs keeps (for tests of its bound). */
export function compiledGlobBytes(): number {
  return compiledBytes;
}

/** True when `value` matches `glob` (see the module comment for the syntax). */
export function globMatches(glob: string, value: string): boolean {
  const { whole, first, last, middle } = compiledGlob(glob);
  if (whole) return glob.length === value.length && pieceAt(glob, value, 0);
  const end = value.length - last.length;
  if (end < first.length) return false;
  if (!pieceAt(first, value, 0) || !pieceAt(last, value, end)) return false;
  let at = first.length;
  for (const piece of middle) {
    const found =
      typeof piece === 'string' ? value.indexOf(piece, at) : findWildPiece(piece, value, at);
    const length = typeof piece === 'string' ? piece.length : piece.piece.length;
    if (found < 0 || found + length > end) return false;
    at = found + length;
  }
  return true;
}

/** True when `value` matches `glob`; an undefined glob matches everything. */
export function matchesGlob(glob: string | undefined, value: string): boolean {
  return glob === undefined || globMatches(glob, value);
}
