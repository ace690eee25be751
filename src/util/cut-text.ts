/**
 * Texts a client chooses (a NACK's `error_detail.message`, an `ISTIO_VERSION`, a node id) are
 * kept, logged, shown and exported as labels. Each place keeps at most a prefix of such a
 * text, cut here and nowhere else, so that every view of it says the same: the prefix, then a
 * marker with the length the client sent (`…[truncated, 1048576 bytes]`).
 */

const MARKER = /…\[truncated, (\d+) bytes\]$/;

/**
 * `text` when it has at most `max` characters; else its first `max` characters and the
 * marker with its whole length in UTF-8 bytes. A text cut before keeps the length it had
 * first, so a NACK cut when it came in and cut again for the page still says what Envoy sent.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const before = MARKER.exec(text);
  const original = before ? Number(before[1]) : Buffer.byteLength(text, 'utf8');
  const base = before ? text.slice(0, before.index) : text;
  let end = Math.min(max, base.length);
  // Never leave half of a surrogate pair at the end.
  const last = base.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${base.slice(0, end)}…[truncated, ${original} bytes]`;
}
