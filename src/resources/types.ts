/**
 * An Envoy resource in canonical proto3 JSON: its `@type` names the message; every other
 * field is the message's, as Envoy's docs spell them.
 */
export interface EnvoyResource {
  '@type': string;
  name?: string;
  cluster_name?: string;
  [field: string]: unknown;
}
