/**
 * Requests no well-behaved encoder would write, built byte by byte: node metadata whose
 * `Struct` nests `depth` levels deep (a `Value` holding a `Struct` holding a `Value`…).
 * Each level is only a prefix of tags and lengths, so the message is one concatenation.
 */
import { sidecarNode } from '../../support/fixtures/nodes.js';
import { varint } from '../../support/wire-bytes.js';
import { CDS } from './attack.js';

/** A length-delimited field's tag and length, for field `field`. */
const head = (field: number, length: number) => [(field << 3) | 2, ...varint(length)];

/** The `Struct` `{DEEP: {k: {k: … "x"}}}`, `depth` values deep. */
function deepStruct(depth: number): Buffer {
  const prefixes: number[][] = [];
  let length = 3; // the innermost Value: string_value "x"
  for (let i = 0; i < depth; i++) {
    // entry {key: "k", value: <inner>} inside a Struct inside a Value.
    const entry = [...head(1, 1), 0x6b, ...head(2, length)];
    const entryLength = entry.length + length;
    const struct = head(1, entryLength);
    const structLength = struct.length + entryLength;
    const value = head(5, structLength);
    prefixes.push([...value, ...struct, ...entry]);
    length = value.length + structLength;
  }
  const top = head(1, 7 + varint(length).length + length);
  const topEntry = [...head(1, 4), ...Buffer.from('DEEP'), ...head(2, length)];
  const parts = [Buffer.from([...top, ...topEntry])];
  for (let i = prefixes.length - 1; i >= 0; i--) parts.push(Buffer.from(prefixes[i] as number[]));
  parts.push(Buffer.from([...head(3, 1), 0x78]));
  return Buffer.concat(parts);
}

/** A first request whose node's metadata nests `depth` deep, for SotW or delta. */
export function deepMetadataRequest(depth: number, mode: 'sotw' | 'delta'): Buffer {
  const id = Buffer.from(sidecarNode(`deep-${depth}`, 'adversarial', '127.0.0.1').id);
  const metadata = deepStruct(depth);
  const nodeBytes = Buffer.concat([
    Buffer.from(head(1, id.length)),
    id,
    Buffer.from(head(3, metadata.length)),
    metadata,
  ]);
  const typeUrl = Buffer.from(CDS);
  const [nodeField, typeField] = mode === 'sotw' ? [2, 4] : [1, 2];
  return Buffer.concat([
    Buffer.from(head(nodeField, nodeBytes.length)),
    nodeBytes,
    Buffer.from(head(typeField, typeUrl.length)),
    typeUrl,
  ]);
}
