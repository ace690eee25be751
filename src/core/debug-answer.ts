/**
 * The seam between the ADS streams and whoever answers istiod's debug types over ADS
 * (`istio.io/debug/syncz`, `istio.io/debug/config_dump`, `istio.io/debug`): the stream asks,
 * the answerer (wired in by the assembly) says what resources to send or how to refuse.
 */
import type { ProxyIdentity } from './identity.js';
import type { VerifiedIdentity } from './stream-auth.js';

export interface DebugRequest {
  typeUrl: string;
  /** The request's resource names (SotW `resource_names`, delta `resource_names_subscribe`). */
  names: readonly string[];
  /** Who asks: the node of the debug client's stream. */
  caller: ProxyIdentity;
  /**
   * The identity the stream proved and that matched its node (istiod's `VerifiedIdentity`):
   * what the caller may read, and of which namespace, follows from it. Undefined on a stream
   * nothing authenticated.
   */
  identity: VerifiedIdentity | undefined;
}

/** One resource of a debug response: packed message bytes and the type URL of its `Any`. */
export interface DebugResource {
  name: string;
  typeUrl: string;
  value: Uint8Array;
}

export type DebugAnswer =
  | { ok: true; resources: DebugResource[] }
  /** The stream ends with this gRPC status, as istiod ends it when a debug generator fails. */
  | { ok: false; code: number; message: string };

export type DebugAnswerer = (request: DebugRequest) => Promise<DebugAnswer>;

/**
 * The `control_plane.identifier` of a debug response as istioctl reads it: istiod's JSON
 * (`{"Component":"istiod","ID":…,"Info":{…}}`); istioctl prints `ID` in its ISTIOD column and
 * `INVALID` for anything that is not JSON. An identifier that already is JSON is kept.
 */
export function istiodIdentifier(controlPlaneId: string): string {
  if (controlPlaneId.startsWith('{')) return controlPlaneId;
  const id = controlPlaneId === '' ? 'mock-istiod' : controlPlaneId;
  return JSON.stringify({ Component: 'istiod', ID: id, Info: { version: 'mock' } });
}
