/**
 * Reading DER, strictly and with bounds: what csr.ts needs of a certificate signing request a
 * caller sends and leaf-cert.ts of the CA's own certificate. Only definite lengths, low tag
 * numbers and lengths of at most four bytes are read; anything else is a `DerError`, which
 * callers turn into their own message. Nothing is copied: an element is offsets into the
 * buffer it was read from.
 */

export class DerError extends Error {}

/** One tag-length-value: the whole of it is `der[start, end)`, its contents `der[contentStart, end)`. */
export interface DerElement {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

export const TAG = {
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  sequence: 0x30,
  set: 0x31,
} as const;

/** The element at `offset`, which must end by `limit`. */
export function readElement(der: Buffer, offset = 0, limit = der.length): DerElement {
  if (offset + 2 > limit) throw new DerError('truncated');
  const tag = der[offset] as number;
  if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not read');
  const first = der[offset + 1] as number;
  let length = first;
  let contentStart = offset + 2;
  if (first & 0x80) {
    const bytes = first & 0x7f;
    if (bytes === 0) throw new DerError('indefinite length');
    if (bytes > 4) throw new DerError('length too long');
    if (contentStart + bytes > limit) throw new DerError('truncated');
    length = 0;
    for (let i = 0; i < bytes; i += 1) length = length * 256 + (der[contentStart + i] as number);
    contentStart += bytes;
  }
  const end = contentStart + length;
  if (end > limit) throw new DerError('truncated');
  return { tag, start: offset, contentStart, end };
}

/** The element that is the whole of `der`, with tag `tag`. */
export function readWhole(der: Buffer, tag: number): DerElement {
  const element = expectTag(readElement(der), tag);
  if (element.end !== der.length) throw new DerError('trailing bytes');
  return element;
}

export function expectTag(element: DerElement, tag: number): DerElement {
  if (element.tag !== tag) throw new DerError(`expected tag ${tag}, found ${element.tag}`);
  return element;
}

/** The elements inside a constructed one, in order. */
export function childrenOf(der: Buffer, parent: DerElement): DerElement[] {
  const found: DerElement[] = [];
  for (let at = parent.contentStart; at < parent.end;) {
    const child = readElement(der, at, parent.end);
    found.push(child);
    at = child.end;
  }
  return found;
}

/** The element's bytes, tag and length included. */
export const whole = (der: Buffer, element: DerElement) => der.subarray(element.start, element.end);

/** The element's contents. */
export const contents = (der: Buffer, element: DerElement) =>
  der.subarray(element.contentStart, element.end);

/** An OBJECT IDENTIFIER's dotted form (`1.2.840.10045.4.3.2`). */
export function readOid(der: Buffer, element: DerElement): string {
  const bytes = contents(der, expectTag(element, TAG.oid));
  if (bytes.length === 0 || bytes.length > 64) throw new DerError('bad object identifier');
  const arcs: number[] = [];
  let value = 0;
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER) throw new DerError('bad object identifier');
    if (byte & 0x80) continue;
    if (arcs.length === 0) {
      const first = value < 40 ? 0 : value < 80 ? 1 : 2;
      arcs.push(first, value - 40 * first);
    } else arcs.push(value);
    value = 0;
  }
  if ((bytes[bytes.length - 1] ?? 0) & 0x80) throw new DerError('bad object identifier');
  return arcs.join('.');
}

/** A BIT STRING's bytes, which must be whole (no unused bits): keys and signatures are. */
export function readWholeBits(der: Buffer, element: DerElement): Buffer {
  const bytes = contents(der, expectTag(element, TAG.bitString));
  if (bytes.length === 0 || bytes[0] !== 0) throw new DerError('bit string with unused bits');
  return bytes.subarray(1);
}

/** A small non-negative INTEGER (a version, a salt length). */
export function readSmallInteger(der: Buffer, element: DerElement): number {
  const bytes = contents(der, expectTag(element, TAG.integer));
  if (bytes.length === 0 || bytes.length > 4 || (bytes[0] as number) & 0x80) {
    throw new DerError('expected a small non-negative integer');
  }
  return bytes.reduce((n, byte) => n * 256 + byte, 0);
}

/** The DER inside the first PEM block with one of `labels`, or undefined when there is none. */
export function pemBlock(text: string, labels: readonly string[]): Buffer | undefined {
  for (const label of labels) {
    const begin = `-----BEGIN ${label}-----`;
    const at = text.indexOf(begin);
    if (at < 0) continue;
    const stop = text.indexOf(`-----END ${label}-----`, at + begin.length);
    if (stop < 0) return undefined;
    const body = text.slice(at + begin.length, stop).replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return undefined;
    return Buffer.from(body, 'base64');
  }
  return undefined;
}
