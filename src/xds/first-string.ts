/**
 * The name of an encoded xDS resource without decoding it: every resource type the mock
 * serves names itself in field 1 (`name`, or `cluster_name` for endpoints), a string. Read by
 * walking the top-level fields, so a relayed response is named at the cost of a scan.
 */

/** Field 1 of an encoded message as a string, or '' when it has none or the bytes are bad. */
export function firstStringField(bytes: Uint8Array): string {
  let at = 0;
  while (at < bytes.length) {
    const tag = readVarint(bytes, at);
    if (tag === undefined) return '';
    at = tag.next;
    const field = Math.floor(tag.value / 8);
    const wire = tag.value % 8;
    if (wire === 2) {
      const length = readVarint(bytes, at);
      if (length === undefined || length.next + length.value > bytes.length) return '';
      if (field === 1) {
        return Buffer.from(bytes.buffer, bytes.byteOffset + length.next, length.value).toString(
          'utf8',
        );
      }
      at = length.next + length.value;
    } else if (wire === 0) {
      const skipped = readVarint(bytes, at);
      if (skipped === undefined) return '';
      at = skipped.next;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else return '';
  }
  return '';
}

function readVarint(bytes: Uint8Array, start: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let at = start; at < bytes.length && at < start + 10; at++) {
    const byte = bytes[at] ?? 0;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return { value, next: at + 1 };
    scale *= 128;
  }
  return undefined;
}
