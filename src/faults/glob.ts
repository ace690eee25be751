/**
 * Node-id globs for fault scopes: `*` matches any run of characters (including none), `?`
 * exactly one; everything else matches itself. A glob without wildcards is an exact match.
 * Node ids contain `~`, `.` and `|`, none of which is special here.
 */
const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (!re) {
    const body = [...glob]
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
    re = new RegExp(`^${body}$`, 's');
    if (cache.size > 256) cache.clear();
    cache.set(glob, re);
  }
  return re;
}

/** True when `value` matches `glob`; an undefined glob matches everything. */
export function matchesGlob(glob: string | undefined, value: string): boolean {
  return glob === undefined || globToRegExp(glob).test(value);
}
