/**
 * A proxy that connects after the attack: one SotW CDS request from a well-formed sidecar
 * node, and the names of the clusters it is sent. The names are read from the bytes on the
 * wire (a `Cluster`'s `name` is its field 1), not from the mock's own views.
 */
import { AdsTestClient } from '../../../src/testing/ads-client.js';
import { sidecarNode } from '../../support/fixtures/nodes.js';

const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';

export async function freshProxyClusters(xdsAddress: string, pod: string): Promise<string[]> {
  const client = new AdsTestClient(xdsAddress);
  try {
    const stream = client.sotw();
    stream.send({ node: sidecarNode(`fresh-${pod}`), type_url: CDS });
    const response = await stream.next(15_000);
    stream.send({
      type_url: CDS,
      response_nonce: response.nonce,
      version_info: response.version_info,
    });
    return response.resources.map((any) => firstStringField(any.value));
  } finally {
    client.close();
  }
}

/** Field 1 of a message when it is length-delimited (tag 0x0a), as UTF-8. */
function firstStringField(bytes: Buffer): string {
  if (bytes[0] !== 0x0a) return '';
  let length = 0;
  let shift = 0;
  let at = 1;
  for (;;) {
    const byte = bytes[at++] ?? 0;
    length |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
    shift += 7;
  }
  return bytes.subarray(at, at + length).toString('utf8');
}
