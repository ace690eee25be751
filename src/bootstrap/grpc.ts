/**
 * The bootstrap file a proxyless gRPC application reads (`GRPC_XDS_BOOTSTRAP`), shaped as
 * pilot-agent writes it for a pod injected with Istio's `grpc-agent` template: one xDS
 * server with the `xds_v3` feature, the pod as the node with `GENERATOR: grpc` (istiod then
 * answers with its gRPC generator), the `file_watcher` certificate provider `default` over
 * the pod's certificate directory, and the name template of the listeners a gRPC server asks
 * for. pilot-agent points `server_uri` at its own socket and proxies to istiod; this file
 * points at the control plane itself (the mock), so no agent needs to run. Pure: the same
 * options always give the same object, its keys in the order pilot-agent writes them.
 */
import { MockIstiodError } from '../util/errors.js';
import type { Problem } from '../util/problems.js';
import type { JsonObject } from './proto-json.js';
import {
  FALSE_TEXTS,
  resolveSidecarBootstrapOptions,
  STRING_BOOLS,
  type SidecarBootstrapOptions,
} from './sidecar-options.js';
import { podMetadata, sidecarNodeId } from './sidecar.js';

import { GRPC_SERVER_LISTENER_PREFIX } from '../core/grpc-names.js';

export { GRPC_SERVER_LISTENER_PREFIX } from '../core/grpc-names.js';
/** The name template a gRPC server fills with its listening address. */
export const GRPC_SERVER_LISTENER_TEMPLATE = `${GRPC_SERVER_LISTENER_PREFIX}%s`;

/** The certificate files pilot-agent writes under `OUTPUT_CERTS`, and the provider reads. */
export const GRPC_CERT_FILES = Object.freeze({
  certificate: 'cert-chain.pem',
  privateKey: 'key.pem',
  caCertificate: 'root-cert.pem',
});

/** The pod, as for a sidecar, and where its certificates are. */
export type GrpcBootstrapOptions = Pick<
  SidecarBootstrapOptions,
  | 'podName'
  | 'namespace'
  | 'podIp'
  | 'workloadName'
  | 'serviceAccount'
  | 'dnsDomain'
  | 'clusterId'
  | 'meshId'
  | 'istioVersion'
  | 'metadata'
  | 'discoveryHost'
  | 'discoveryPort'
> & {
  /**
   * The directory of the pod's certificate, key and root (`OUTPUT_CERTS`; the grpc-agent
   * template's `/var/lib/istio/data`), or null for no certificate provider (plaintext only).
   */
  certDir: string | null;
};

/** The file, in the names gRPC reads (`certificate_providers` only with a `certDir`). */
export interface GrpcBootstrap extends JsonObject {
  xds_servers: JsonObject[];
  node: { id: string; metadata: JsonObject; locality: JsonObject };
  server_listener_resource_name_template: string;
}

/** Builds the file's object; bad options throw `INVALID_OPTIONS`, naming every bad field. */
export function makeGrpcBootstrap(input: Partial<GrpcBootstrapOptions> = {}): GrpcBootstrap {
  const { certDir = null, ...pod } = input;
  const resolved = resolveSidecarBootstrapOptions(pod);
  const problems: Problem[] = resolved.ok ? [] : [...resolved.problems];
  if (certDir !== null && (typeof certDir !== 'string' || certDir === '')) {
    problems.push({ path: 'certDir', message: 'must be a directory path or null' });
  }
  if (!resolved.ok || problems.length > 0) {
    throw MockIstiodError.fromProblems(
      'INVALID_OPTIONS',
      'invalid gRPC bootstrap options',
      problems,
    );
  }
  const o = resolved.value;
  const bootstrap: GrpcBootstrap = {
    xds_servers: [
      {
        server_uri: serverUri(o.discoveryHost, o.discoveryPort),
        channel_creds: [{ type: 'insecure' }],
        server_features: ['xds_v3'],
      },
    ],
    node: { id: sidecarNodeId(o), metadata: grpcNodeMetadata(o), locality: {} },
    server_listener_resource_name_template: GRPC_SERVER_LISTENER_TEMPLATE,
  };
  if (certDir !== null) {
    const file = (name: string) => `${certDir.replace(/\/+$/, '')}/${name}`;
    bootstrap['certificate_providers'] = {
      default: {
        plugin_name: 'file_watcher',
        config: {
          certificate_file: file(GRPC_CERT_FILES.certificate),
          private_key_file: file(GRPC_CERT_FILES.privateKey),
          ca_certificate_file: file(GRPC_CERT_FILES.caCertificate),
          refresh_interval: '900s',
        },
      },
    };
  }
  // pilot-agent writes the template last.
  const { server_listener_resource_name_template: template, ...rest } = bootstrap;
  return { ...rest, server_listener_resource_name_template: template };
}

/**
 * The metadata pilot-agent gives a gRPC node: the pod's identity as for a sidecar, its
 * `ISTIO_META_*`, and `GENERATOR: grpc`, which pilot-agent sets whatever the environment says.
 */
function grpcNodeMetadata(o: SidecarBootstrapOptions): JsonObject {
  const all: JsonObject = { ...podMetadata(o), ...typedOnly(o.metadata), GENERATOR: 'grpc' };
  // In key order, as pilot-agent's JSON (a Go map) has them.
  return Object.fromEntries(
    Object.keys(all)
      .sort()
      .map((key) => [key, all[key] ?? null]),
  );
}

/**
 * gRPC's node has pilot-agent's typed metadata alone, where Go leaves a false boolean out;
 * `METADATA_DISCOVERY` is kept as `"false"` (Istio holds a pointer to it).
 */
function typedOnly(metadata: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(metadata)) {
    const isFalse = STRING_BOOLS.has(key) && typeof value === 'string' && FALSE_TEXTS.has(value);
    if (!isFalse) out[key] = value;
    else if (key === 'METADATA_DISCOVERY') out[key] = 'false';
  }
  return out;
}

/** `host:port`, an IPv6 address in brackets, as gRPC's target syntax wants. */
function serverUri(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
