/**
 * The types istiod has a generator of its own for (pilot/pkg/bootstrap/discovery.go), and
 * what its `api` generator, which takes every other type URL (the empty one too), asks of the
 * caller: it serves cluster-wide config, so only a verified identity of the control plane's
 * root namespace may have it (pilot/pkg/networking/apigen).
 */
import { GrpcStatus } from '../core/grpc-status.js';
import { ROOT_NAMESPACE, type VerifiedIdentity } from '../core/stream-auth.js';
import { RESOURCE_TYPES } from '../core/types/registry.js';
import { TYPE_PREFIX } from '../xds/type-urls.js';

/** Generated types the mock has no resources of its own for: NDS, PCDS and ambient's. */
const OTHER_GENERATED_TYPES: readonly string[] = [
  `${TYPE_PREFIX}istio.networking.nds.v1.NameTable`,
  `${TYPE_PREFIX}istio.mesh.v1alpha1.ProxyConfig`,
  `${TYPE_PREFIX}istio.workload.Address`,
  `${TYPE_PREFIX}istio.workload.Workload`,
  `${TYPE_PREFIX}istio.security.Authorization`,
];

/**
 * Whether the type has a generator of its own. The mock's own types count as such, SRDS
 * among them (istiod has none for it): a user who serves scoped routes wants them served.
 */
const GENERATED = new Set([...RESOURCE_TYPES.map((t) => t.typeUrl), ...OTHER_GENERATED_TYPES]);

export function hasIstiodGenerator(typeUrl: string): boolean {
  return GENERATED.has(typeUrl);
}

/** Why the `api` generator refuses this caller, or undefined when it serves it. */
export function apiGeneratorRefusal(
  identity: VerifiedIdentity | undefined,
): { code: number; message: string } | undefined {
  if (!identity) {
    const message = 'the api generator requires an authenticated control-plane identity';
    return { code: GrpcStatus.UNAUTHENTICATED, message };
  }
  if (identity.namespace !== ROOT_NAMESPACE) {
    const message = 'the api generator is restricted to the control-plane (root) namespace';
    return { code: GrpcStatus.PERMISSION_DENIED, message };
  }
  return undefined;
}
