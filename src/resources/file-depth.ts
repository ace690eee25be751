/**
 * How deeply a resource file nests, found in one linear pass over its text before the YAML
 * parser sees it. The parser takes time out of proportion to the size of a deeply nested
 * file (a 200 KB `[[[…]]]` holds the event loop for seconds) and only then reports it, so a
 * file nested past the limit is refused unparsed, with the line where it went too deep.
 *
 * Two kinds of nesting are measured:
 * - flow: `[` and `{` (YAML flow collections, all of JSON), not counting those inside a
 *   quoted scalar (`'…'` with `''`, `"…"` with `\` escapes) or a `#` comment;
 * - block: the column where a line's content starts, past its indentation and any `- `,
 *   `? ` and `: ` indicators before it (`- - - x` nests three sequences on one line).
 *
 * It is a bound, not a parser: a bracket inside a plain scalar counts as nesting (so the limit
 * is far above what real configurations need). A quote is the start of a quoted scalar only
 * where a node may start (after `[`, `{`, `,`, an indicator, an anchor or a tag, or at the
 * start of a line outside brackets), as in YAML. The text is scanned twice, once with quoted
 * scalars running over lines as YAML has them and once with each ending at its line's end,
 * so that a quote the scanner takes for another kind than the parser does cannot hide the
 * brackets after it.
 */

/**
 * The deepest nesting a resource file may have: flow collections inside each other, and
 * block nesting as indentation (at most twice this many columns). Envoy resources nest about
 * 30 levels; the parser takes about 10 ms for a file nested this deep.
 */
export const MAX_RESOURCE_FILE_DEPTH = 256;

const NL = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const HASH = 35;
const SQ = 39;
const DQ = 34;
const BACKSLASH = 92;

/** Characters that matter to the scan; any other is a plain character of a word. */
const SPECIAL = new Uint8Array(128);
for (const c of '\n\t \'"#[]{},-?:&!') SPECIAL[c.charCodeAt(0)] = 1;

/** Where a text first nests past `limit`, in words, or undefined when it does not. */
export function nestingProblem(
  text: string,
  limit: number = MAX_RESOURCE_FILE_DEPTH,
): string | undefined {
  const spanning = scanText(text, limit, true);
  if (typeof spanning === 'string') return spanning;
  // With no quoted scalar over lines, the second reading would be the same as the first.
  if (!spanning.spanned) return undefined;
  const cut = scanText(text, limit, false);
  return typeof cut === 'string' ? cut : undefined;
}

/** The first problem, or whether some quoted scalar ran over a line (when there is none). */
function scanText(text: string, limit: number, spanLines: boolean): string | { spanned: boolean } {
  const scan: Scan = {
    text,
    limit,
    spanLines,
    spanned: false,
    quote: 0,
    i: 0,
    line: 1,
    depth: 0,
    nodeStart: true,
  };
  const n = text.length;
  while (scan.i < n) {
    const tooDeep = scanLine(scan);
    if (tooDeep) return `line ${scan.line}: ${tooDeep}`;
    scan.line++;
  }
  return { spanned: scan.spanned };
}

interface Scan {
  readonly text: string;
  readonly limit: number;
  /** Whether a quoted scalar goes on past the end of its line (it does in YAML). */
  readonly spanLines: boolean;
  /** Whether a quoted scalar has run over the end of a line. */
  spanned: boolean;
  /** The quote of a quoted scalar still open at the start of this line, or 0. */
  quote: number;
  /** The next character to look at. */
  i: number;
  line: number;
  /** Open flow collections. */
  depth: number;
  /** Whether a quote here would start a quoted scalar (after an indicator, not in a word). */
  nodeStart: boolean;
}

/** One line, from its first character past its newline; what went too deep, if anything. */
function scanLine(s: Scan): string | undefined {
  if (s.quote) {
    // A quoted scalar from the lines before: its rest is not nesting.
    if (!skipQuoted(s, s.quote)) return undefined;
    s.nodeStart = false;
  } else {
    const tooDeep = checkBlockColumn(s);
    if (tooDeep) return tooDeep;
  }
  return scanRest(s);
}

/**
 * The rest of the line. The position and the node flag are kept in locals while it runs (the
 * scan is on every load's path), and put back in `s` where another function reads them.
 */
function scanRest(s: Scan): string | undefined {
  const { text, limit } = s;
  const n = text.length;
  let { i, nodeStart } = s;
  let prev = SPACE;
  /** The first character of the word being read (0 between words), and if it began a node. */
  let word = 0;
  let wordAtNode = false;
  while (i < n) {
    const c = text.charCodeAt(i++);
    if (c < 128 && SPECIAL[c] === 0) {
      // The common case, kept short: a character of a word.
      if (word === 0) {
        word = c;
        wordAtNode = nodeStart;
      }
      nodeStart = false;
      prev = c;
      continue;
    }
    if (c === NL) break;
    if (c === SPACE || c === TAB) {
      // After an anchor or a tag (`&a 'x'`, `!!str "x"`), its node.
      if (wordAtNode && (word === 38 || word === 33)) nodeStart = true;
      word = 0;
    } else {
      if (word === 0) {
        word = c;
        wordAtNode = nodeStart;
      }
      if ((c === SQ || c === DQ) && nodeStart) {
        s.i = i;
        // Cut at the line's end, it is taken for a word going on (no node starts after it).
        s.nodeStart = false;
        if (!skipQuoted(s, c)) return undefined;
        i = s.i;
        nodeStart = false;
      } else if (c === HASH && (prev === SPACE || prev === TAB)) {
        s.i = i;
        s.nodeStart = nodeStart;
        return skipToLineEnd(s);
      } else if (c === 91 || c === 123) {
        // [ or {
        if (++s.depth > limit) return tooDeepFlow(limit);
        nodeStart = true;
        word = 0;
      } else {
        if ((c === 93 || c === 125) && s.depth > 0) s.depth--; // ] or }
        nodeStart = startsNode(c, text.charCodeAt(i), prev, word === c && wordAtNode);
        if (c === 44) word = 0;
      }
    }
    prev = c;
  }
  s.i = i;
  s.nodeStart = nodeStart;
  return undefined;
}

function tooDeepFlow(limit: number): string {
  return `nested more than ${limit} levels deep (flow brackets); a resource file may nest at most ${limit} levels`;
}

/**
 * Whether a node may start after `c` (followed by `next`, after `prev`): after `,`; after
 * `-` and `?` followed by a space where they start a node themselves (not `a - b`); after
 * `:` followed by a space, or right behind a quote or a bracket (`{"a":"b"}`). Inside a
 * word (`it's`), a quote is a character of it.
 */
function startsNode(c: number, next: number, prev: number, firstAtNode: boolean): boolean {
  if (c === 44) return true; // ,
  const spaced = next === SPACE || next === TAB || next === NL || next === CR || next !== next;
  if (c === 45 || c === 63) return spaced && firstAtNode; // - ?
  if (c === 58) return spaced || prev === DQ || prev === SQ || prev === 93 || prev === 125; // :
  return false;
}

/** Refusal of a line whose content starts past the columns nesting may take. */
function checkBlockColumn(s: Scan): string | undefined {
  const column = blockColumn(s);
  const maxColumns = 2 * s.limit;
  // Checked inside brackets too: a bracket in a plain scalar (`a: x[`) is counted as open,
  // and must not turn the check off for the block nesting after it.
  if (column <= maxColumns || endsContent(s.text.charCodeAt(s.i), s)) return undefined;
  return `content starts at column ${column + 1} (block nesting); a resource file may indent at most ${maxColumns} columns (${s.limit} levels)`;
}

/**
 * The column where the line's content starts, past its indentation and its `- `, `? ` and
 * `: ` indicators; leaves `s.i` at the first character after the indentation alone.
 */
function blockColumn(s: Scan): number {
  const { text } = s;
  let j = s.i;
  while (text.charCodeAt(j) === SPACE) j++;
  const indent = j;
  for (;;) {
    const c = text.charCodeAt(j);
    const next = text.charCodeAt(j + 1);
    if ((c === 45 || c === 63 || c === 58) && (next === SPACE || next === TAB)) {
      j += 2;
      while (text.charCodeAt(j) === SPACE) j++;
    } else break;
  }
  const column = j - s.i;
  s.i = indent;
  // A new line in block context (no flow collection open) may start a node; in a flow
  // collection, after a word it continues the word (a multi-line plain scalar).
  if (s.depth === 0) s.nodeStart = true;
  return column;
}

/** A blank line, or one holding only a comment, nests nothing however far it is indented. */
function endsContent(c: number, s: Scan): boolean {
  return c === NL || c === CR || c === HASH || s.i >= s.text.length;
}

/**
 * Past a quoted scalar opened by `quote`: true past its closing quote, false past the end of
 * the line, where it goes on to the next line when the scan lets
 * quoted scalars span lines (`s.quote`), and ends otherwise (the next line is scanned as
 * unquoted).
 */
function skipQuoted(s: Scan, quote: number): boolean {
  const { text } = s;
  const n = text.length;
  while (s.i < n) {
    const c = text.charCodeAt(s.i);
    if (c === NL) {
      s.spanned = true;
      s.quote = s.spanLines ? quote : 0;
      s.i++;
      return false;
    }
    s.i++;
    if (c === BACKSLASH && quote === DQ) {
      if (text.charCodeAt(s.i) !== NL) s.i++;
    } else if (c === quote) {
      if (quote === SQ && text.charCodeAt(s.i) === SQ) s.i++;
      else {
        s.quote = 0;
        return true;
      }
    }
  }
  return false;
}

/** Past a comment and its newline: the line is done. */
function skipToLineEnd(s: Scan): undefined {
  const at = s.text.indexOf('\n', s.i);
  s.i = at < 0 ? s.text.length : at + 1;
  return undefined;
}
