/**
 * The opening of a state-of-the-world ADS stream, as a sidecar makes it, for tests that play
 * the proxy with the library's `AdsTestClient`. Each step is its own function, so that a test
 * about one step (the ACK, a NACK, a stale nonce) can still write that step out itself.
 */
import {
  AdsTestClient,
  type AdsTestStream,
  type ClientRequest,
  type ClientResponse,
} from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { sidecarNode } from './nodes.js';

export interface HandshakeOptions {
  /** The node of the first request (default: `sidecarNode()`). */
  node?: ClientRequest['node'];
  /** How long to wait for each response (default: the client's 5 s). */
  timeoutMs?: number;
}

/** The first request of a stream, a wildcard CDS request with the node; returns the answer. */
export function requestClusters(
  stream: AdsTestStream,
  options: HandshakeOptions = {},
): Promise<ClientResponse> {
  stream.send({ type_url: CLUSTER_TYPE, node: options.node ?? sidecarNode() });
  return stream.next(options.timeoutMs);
}

/**
 * ACKs `response` as Envoy does: the same type URL, with its version and its nonce sent back.
 * https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol#ack-nack-and-resource-type-instance-version
 */
export function ack(stream: AdsTestStream, response: ClientResponse): void {
  stream.send({
    type_url: response.type_url,
    version_info: response.version_info,
    response_nonce: response.nonce,
  });
}

/**
 * CDS requested and ACKed, then LDS requested and its response read but not answered: the
 * order Envoy follows (clusters before the listeners that route to them), and the point after
 * which the tests diverge. Until the test ACKs or NACKs `lds`, istiod counts LDS as STALE.
 */
export async function handshake(
  stream: AdsTestStream,
  options: HandshakeOptions = {},
): Promise<{ cds: ClientResponse; lds: ClientResponse }> {
  const cds = await requestClusters(stream, options);
  ack(stream, cds);
  stream.send({ type_url: LISTENER_TYPE });
  const lds = await stream.next(options.timeoutMs);
  return { cds, lds };
}

/**
 * Asks a server for its clusters on a fresh client, as a new sidecar would, and closes that
 * client again: how a test shows the server still serves after something went wrong.
 */
export async function requestClustersOnce(address: string): Promise<ClientResponse> {
  const client = new AdsTestClient(address);
  try {
    return await requestClusters(client.sotw());
  } finally {
    client.close();
  }
}
