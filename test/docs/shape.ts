/**
 * Checks what a command printed against what the doc shows, by shape: the doc's JSON keys
 * must be there with values of the same kind, a table's header must have the doc's columns,
 * a line of text must appear (`…` standing for anything).
 */

/**
 * Parses JSON as docs write it: `…` outside strings stands for "more of the same" and is
 * dropped (`[…]` → `[]`, `{ "a": 1, … }` → `{ "a": 1 }`). Undefined when it is not JSON.
 */
export function parseDocJson(text: string): unknown {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c !== '…') out += c;
  }
  try {
    return JSON.parse(out.replace(/,(\s*[\]}])/g, '$1')) as unknown;
  } catch {
    return undefined;
  }
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Every difference between the shape the doc shows and the actual value, each with its path:
 * an object's keys (but `…`) must be there, each value of the same kind; each element the
 * doc shows in an array must fit some element of the actual array. Empty when it fits.
 */
export function shapeMismatches(doc: unknown, actual: unknown, path = '$'): string[] {
  if (kind(doc) !== kind(actual)) {
    return [`${path}: the doc shows ${kind(doc)}, the command printed ${kind(actual)}`];
  }
  if (Array.isArray(doc) && Array.isArray(actual)) {
    return doc.flatMap((element, i) => {
      if (actual.length === 0) return [`${path}[${i}]: the doc shows an element, found none`];
      const misses = actual.map((a) => shapeMismatches(element, a, `${path}[${i}]`));
      return misses.some((m) => m.length === 0) ? [] : misses[0]!;
    });
  }
  if (kind(doc) === 'object') {
    const a = actual as Record<string, unknown>;
    return Object.entries(doc as Record<string, unknown>).flatMap(([key, value]) => {
      if (key === '…') return [];
      if (!(key in a)) return [`${path}.${key}: the doc shows it, the command did not print it`];
      return shapeMismatches(value, a[key], `${path}.${key}`);
    });
  }
  return [];
}

/** A documented JSON output (optionally after an HTTP status, `400 {…}`) checked by shape. */
export function checkJson(documented: string, printed: string): string[] {
  const doc = parseDocJson(documented.replace(/^\d{3}\s+(?=[[{])/, ''));
  if (doc === undefined) return [`the doc's output is not JSON: ${documented}`];
  let actual: unknown;
  try {
    actual = JSON.parse(printed) as unknown;
  } catch {
    return [`the doc shows JSON, the command printed: ${printed.slice(0, 300)}`];
  }
  return shapeMismatches(doc, actual);
}

/** A documented line of text must appear in the output; `…` matches anything. */
export function checkText(documented: string, printed: string): string[] {
  const pattern = documented
    .trim()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'))
    .join('[\\s\\S]*');
  return new RegExp(pattern).test(printed)
    ? []
    : [`the doc shows "${documented.trim()}", the command printed: ${printed.slice(0, 500)}`];
}

/** A documented table: the first line's columns (split on 2+ spaces) head the output too. */
export function checkColumns(documented: string, printed: string): string[] {
  const columns = (text: string) => (text.split('\n')[0] ?? '').trim().split(/\s{2,}/);
  const want = columns(documented);
  const got = columns(printed);
  return want.join('|') === got.join('|')
    ? []
    : [`the doc's columns are ${want.join(', ')}; the command printed ${got.join(', ')}`];
}

/** Whether a documented output looks like JSON (so it is checked by shape). */
export function looksLikeJson(documented: string): boolean {
  return /^(\d{3}\s+)?[[{]/.test(documented.trim());
}
