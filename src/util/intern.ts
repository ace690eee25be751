/**
 * Strings decoded from many requests alike (type URLs, metadata values) kept once: each
 * decode makes its own copy, and a stream keeps its copies as long as it lives. The table is
 * bounded, since a client may send any string; past `max` entries, or above `maxLength`
 * characters, a string is returned as it came.
 */
export function boundedInterner(max: number, maxLength = Infinity): (value: string) => string {
  const table = new Map<string, string>();
  return (value) => {
    if (value.length > maxLength) return value;
    const known = table.get(value);
    if (known !== undefined) return known;
    if (table.size < max) table.set(value, value);
    return value;
  };
}
