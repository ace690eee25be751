/**
 * UTF-8 length and writing for the many short names of a large response: `Buffer.byteLength`
 * and `buf.write` cross into C++ for every string, which for 100,000 names of a few dozen
 * characters costs more than the loop over their characters. Strings with a character past
 * ASCII take those calls instead.
 */

/** The UTF-8 length of `text`. */
export function utf8Length(text: string): number {
  const length = text.length;
  if (length > 256) return Buffer.byteLength(text);
  for (let i = 0; i < length; i++) {
    if (text.charCodeAt(i) >= 0x80) return Buffer.byteLength(text);
  }
  return length;
}

/** Writes `text` (`bytes` long in UTF-8, from `utf8Length`) at `at`; returns the end. */
export function writeUtf8(buffer: Buffer, at: number, text: string, bytes: number): number {
  if (bytes !== text.length || bytes > 256) return at + buffer.write(text, at, bytes);
  for (let i = 0; i < bytes; i++) buffer[at + i] = text.charCodeAt(i);
  return at + bytes;
}
