/**
 * A length-delimited protobuf field's head (its tag and its length as a varint), written by
 * hand where a response is laid out in one buffer of the right size: the nonce appended to a
 * shared body, a delta response's resources, an empty resource's name.
 */

/** How many bytes the varint `n` takes. */
export function varintSize(n: number): number {
  let size = 1;
  for (; n >= 0x80; n = Math.floor(n / 128)) size += 1;
  return size;
}

/** The size of a length-delimited field (tag below 16) of `length` bytes. */
export function fieldSize(length: number): number {
  return 1 + varintSize(length) + length;
}

/** Writes the tag and length of length-delimited field `field`; returns where its bytes go. */
export function writeTag(bytes: Buffer, at: number, field: number, length: number): number {
  bytes[at++] = (field << 3) | 2;
  let n = length;
  for (; n >= 0x80; n = Math.floor(n / 128)) bytes[at++] = (n % 128) | 0x80;
  bytes[at++] = n;
  return at;
}
