/**
 * UUIDs for nonces: each response's nonce is its version and a fresh UUID, as istiod makes
 * them (`2026-12-01T18:41:04Z/31048114c9-…`). A connection's first responses take several,
 * and `crypto.randomUUID` formats 16 random bytes each time (about 1 µs). Here one random
 * UUID is drawn now and then, and the ones after it count up in its last 48 bits: the same
 * shape (version 4, RFC 4122 variant), and no more likely to be met again, in this process or
 * another, than the random UUIDs they count from.
 */
import { randomUUID } from 'node:crypto';

/** How many UUIDs follow one drawn at random, before the next is drawn. */
export const UUIDS_PER_DRAW = 2 ** 20;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

let head = '';
/** The last 48 bits, in two halves of 24 (small integers: no float to format). */
let high = 0;
let low = 0;
let left = 0;

/** A UUID (version 4 in shape) not given before in this process. */
export function freshUuid(): string {
  if (left === 0) {
    const drawn = randomUUID();
    head = drawn.slice(0, 24);
    high = Number.parseInt(drawn.slice(24, 30), 16);
    low = Number.parseInt(drawn.slice(30), 16);
    left = UUIDS_PER_DRAW;
    return drawn;
  }
  left -= 1;
  low = (low + 1) & 0xffffff;
  if (low === 0) high = (high + 1) & 0xffffff;
  return (
    head +
    HEX[high >>> 16] +
    HEX[(high >>> 8) & 0xff] +
    HEX[high & 0xff] +
    HEX[low >>> 16] +
    HEX[(low >>> 8) & 0xff] +
    HEX[low & 0xff]
  );
}
