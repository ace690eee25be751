/**
 * Protobuf bytes built by hand, for requests no well-behaved encoder would write: a varint,
 * and a length-delimited field around a body.
 */

/** A protobuf varint's bytes. */
export function varint(n: number): number[] {
  const bytes: number[] = [];
  while (n > 0x7f) {
    bytes.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  bytes.push(n);
  return bytes;
}

/** A length-delimited field `n` holding `body`. */
export const lengthField = (n: number, body: Buffer): Buffer =>
  Buffer.concat([Buffer.from([(n << 3) | 2, ...varint(body.length)]), body]);
