/**
 * The few DER (ASN.1 distinguished encoding) writers the mock's certificates need: enough for
 * root-cert.ts (the self-signed root) and leaf-cert.ts (what the CA signs).
 */

/** A tag-length-value: the length in short form below 128 bytes, else in long form. */
export function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  let length: Buffer;
  if (n < 0x80) {
    length = Buffer.from([n]);
  } else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

export const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
export const set = (...items: Buffer[]) => tlv(0x31, ...items);
export const octetString = (bytes: Buffer) => tlv(0x04, bytes);
export const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
/** `[n] EXPLICIT`: a constructed context-specific tag around `item`. */
export const explicit = (n: number, item: Buffer) => tlv(0xa0 | n, item);
export const TRUE = Buffer.from([0x01, 0x01, 0xff]);
export const NULL = Buffer.from([0x05, 0x00]);

/** A non-negative INTEGER from big-endian bytes, in its minimal form. */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const trimmed = bytes.subarray(start);
  const sign = (trimmed[0] ?? 0) & 0x80 ? Buffer.from([0]) : Buffer.alloc(0);
  return tlv(0x02, sign, trimmed);
}

export const smallInteger = (value: number) => unsignedInteger(Buffer.from([value]));

/** A BIT STRING: `unusedBits` of the last byte are padding. */
export function bitString(bytes: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.from([unusedBits]), bytes);
}

/** An OBJECT IDENTIFIER from its dotted form (`2.5.4.10`). */
export function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const groups: number[] = [];
    for (let value = arc; ; value = Math.floor(value / 128)) {
      groups.unshift((value % 128) | (groups.length > 0 ? 0x80 : 0));
      if (value < 128) break;
    }
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/**
 * A certificate time (RFC 5280 §4.1.2.5): UTCTime up to 2049, GeneralizedTime from 2050, to
 * the second, in UTC.
 */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-12-01T10:33:11.000Z
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii'))
    : tlv(0x18, Buffer.from(digits, 'ascii'));
}
