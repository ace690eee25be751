/**
 * A proxy that connects after the attack: one SotW CDS request from a well-formed sidecar
 * node, and the names of the clusters it is sent. The names are read from the bytes on the
 * wire (a `Cluster`'s `name` is its field 1), not from the mock's own views.
 */
import { AdsTestClient } from '../../../src/testing/ads-client.js';
import { sidecarNode } from '../../support/fixtures/nodes.js';
import { clusterName } from '../../support/harness/file-churn.js';

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
    return response.resources.map((any) => clusterName(any.value));
  } finally {
    client.close();
  }
}
