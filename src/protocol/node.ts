/**
 * Who is on the other end of a stream: the proxy's identity parsed from `node.id` the way
 * istiod parses it (`type~ip~pod.namespace~namespace.svc.cluster.local`), with istiod's
 * error texts, which end the stream with INVALID_ARGUMENT.
 */
import { isIP } from 'node:net';
import { NODE_TYPES, type ProxyIdentity } from '../core/identity.js';
import type { DecodedNode } from '../xds/wire.js';
import { metadataTypeProblem } from './node-metadata.js';

/** `code`: the gRPC status istiod ends the stream with, when not INVALID_ARGUMENT. */
export type ParsedNode =
  { ok: true; proxy: ProxyIdentity } | { ok: false; message: string; code?: number };

/** Go's `%q` for the ASCII strings node ids are. */
function quote(value: string): string {
  return JSON.stringify(value);
}

function instanceIps(metadata: Record<string, unknown>): string[] {
  const raw = metadata.INSTANCE_IPS;
  if (typeof raw !== 'string' || raw === '') return [];
  const ips = raw.split(',').map((ip) => ip.trim());
  return ips.every((ip) => isIP(ip) !== 0) ? ips : [];
}

function metadataString(metadata: Record<string, unknown>, key: string): string {
  const value = metadata[key];
  return typeof value === 'string' ? value : '';
}

export function parseNode(node: DecodedNode | undefined): ParsedNode {
  if (!node || node.id === '') return { ok: false, message: 'missing node information' };
  // istiod reads the metadata before the id (its initProxyMetadata).
  const metadataProblem = metadataTypeProblem(node.metadata);
  if (metadataProblem) return { ok: false, message: metadataProblem };
  const parts = node.id.split('~');
  if (parts.length !== 4) {
    return { ok: false, message: `missing parts in the service node ${quote(node.id)}` };
  }
  const [type, ip, id, dnsDomain] = parts as [string, string, string, string];
  // The constant, not the id's copy of it: every stream keeps its proxy's type.
  const nodeType = NODE_TYPES.find((t) => t === type);
  if (!nodeType) {
    return {
      ok: false,
      message: `invalid node type (valid types: [${NODE_TYPES.join(' ')}]) in the service node ${quote(node.id)}`,
    };
  }
  let ipAddresses = instanceIps(node.metadata);
  if (ipAddresses.length === 0 && isIP(ip) !== 0) ipAddresses = [ip];
  if (ipAddresses.length === 0) {
    return { ok: false, message: 'no valid IP address in the service node id or metadata' };
  }
  return {
    ok: true,
    proxy: {
      nodeId: node.id,
      type: nodeType,
      ipAddresses,
      id,
      dnsDomain,
      cluster: node.cluster,
      metadata: node.metadata,
      clusterId: metadataString(node.metadata, 'CLUSTER_ID') || 'Kubernetes',
      istioVersion: metadataString(node.metadata, 'ISTIO_VERSION'),
    },
  };
}
