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

/**
 * The leftmost place at or after `from` where a piece holding `?` matches, or -1, found in
 * one pass over `value` (Shift-And: bit i of the state says that the piece's first i + 1
 * characters end at the current place), so the work is the value's length times the piece's
 * length / 32, with no step ever taken back.
 */
function findWildPiece(piece: string, value: string, from: number): number {
  const words = (piece.length + 31) >>> 5;
  const masks = wildMasks(piece, words);
  const state = new Int32Array(words);
  const lastWord = (piece.length - 1) >>> 5;
  const lastBit = 1 << ((piece.length - 1) & 31);
  for (let at = from; at < value.length; at++) {
    const c = value.charCodeAt(at);
    const base = (c < 128 ? c : (masks.wide.get(c) ?? 128)) * words;
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const word = state[w]!;
      state[w] = ((word << 1) | carry) & masks.table[base + w]!;
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
function wildMasks(piece: string, words: number): { table: Int32Array; wide: Map<number, number> } {
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
  return { table, wide };
}

/** The leftmost place at or after `from` where `piece` matches, or -1. */
function findPiece(piece: string, value: string, from: number): number {
  return piece.includes('?') ? findWildPiece(piece, value, from) : value.indexOf(piece, from);
}

/** True when `value` matches `glob` (see the module comment for the syntax). */
export function globMatches(glob: string, value: string): boolean {
  const pieces = glob.split('*');
  const first = pieces[0] ?? '';
  if (pieces.length === 1) return glob.length === value.length && pieceAt(glob, value, 0);
  const lastPiece = pieces[pieces.length - 1] ?? '';
  const end = value.length - lastPiece.length;
  if (end < first.length) return false;
  if (!pieceAt(first, value, 0) || !pieceAt(lastPiece, value, end)) return false;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i] ?? '';
    if (piece === '') continue;
    const found = findPiece(piece, value, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** True when `value` matches `glob`; an undefined glob matches everything. */
export function matchesGlob(glob: string | undefined, value: string): boolean {
  return glob === undefined || globMatches(glob, value);
}
