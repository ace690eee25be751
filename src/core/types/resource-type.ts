/**
 * What a resource type is, in one place: the contract every type descriptor fills in (one
 * file per type beside this one, listed in registry.ts). grpc-js-xds keeps the client half
 * of this knowledge per type (`xds-resource-type/`); istiod keeps the server half in
 * `pkg/model/xds.go` (`GetShortType`, `GetMetricType`, `GetResourceType`). Every table the
 * mock shows or parses (short names, metric labels, `/debug/syncz` fields, istioctl's
 * columns, config_dump sections, ADS order, reference checks) is derived from these
 * descriptors, so adding a type is one file plus one line (docs/architecture.md).
 */

/** A resource in canonical proto3 JSON with the .proto field names, as Envoy prints it. */
export type ResourceJson = Record<string, unknown>;

/** Another resource that a resource names, and what Envoy does when it is not served. */
export interface Reference {
  /** The type of the resource named. */
  typeUrl: string;
  name: string;
  /** The field path inside the naming resource; empty: the resource as a whole. */
  path: string;
  /**
   * `nack`: Envoy rejects the whole response; `warm`: Envoy waits for it for ever, unless the
   * type sends an empty resource for a missing name (`emptyResource`: EDS, RDS over SotW).
   */
  missing: 'nack' | 'warm';
  /** The problem's text when the named resource is not in the set. */
  message: string;
}

/** Where a type's resources go in Envoy's admin `config_dump` (`envoy.admin.v3.*ConfigDump`). */
export interface ConfigDumpSection {
  /** The section's position among the sections (Envoy's and istiod's order). */
  rank: number;
  /** `ClustersConfigDump`, … */
  section: string;
  /** The field of the section that lists the resources (`dynamic_active_clusters`). */
  list: string;
  /** The field of a list entry that holds the resource (`cluster`). */
  entry: string;
  /** The field that lists the bootstrap's static entries, each under `entry` (`static_clusters`). */
  staticList?: string;
  /** The field that lists entries still warming, beside the active ones (`dynamic_warming_clusters`). */
  warmingList?: string;
  /**
   * `list` holds groups, each listing its resources under `entry` (scoped routes, grouped by
   * the connection manager's `scoped_routes.name`, which a resource does not carry, so the
   * mock shows the section empty).
   */
  grouped?: boolean;
  /** Resources a dump shows inline, inside the one that carries them: the field, and what they are. */
  inline?: { list: string; note: string };
  /** Envoy records a rejected update in the entry's `error_state` (the other sections leave it unset). */
  errorState?: boolean;
  /** The entry also carries the resource's name (listeners, secrets). */
  named?: boolean;
  /** The entry wraps version, time and resource in `active_state` (listeners). */
  activeState?: boolean;
  /** The section carries the type's version at its top (clusters, listeners). */
  versioned?: boolean;
  /** Only shown when asked for (`?include_eds`), as istiod does for endpoints. */
  optIn?: boolean;
  /** What must not leave the mock (a secret's private key), replaced before it is shown. */
  redact?: (resource: ResourceJson) => ResourceJson;
}

export interface ResourceType {
  /** `type.googleapis.com/envoy.config.cluster.v3.Cluster`. */
  readonly typeUrl: string;
  /** istiod's short name (`CDS`): in its logs, in istioctl's columns, in fault scopes. */
  readonly shortName: string;
  /** istiod's metric label (`cds`, istiod's `GetMetricType`). */
  readonly metricLabel: string;
  /** The field that names a resource: `name`, or `cluster_name` for endpoints. */
  readonly nameField: string;
  /** A SotW request with no `resource_names` asks for every resource (Envoy's CDS and LDS). */
  readonly wildcard: boolean;
  /**
   * What istiod answers for a name of this type it has no resource of: a resource of that
   * name with nothing in it (EDS: a ClusterLoadAssignment without endpoints; RDS: a route
   * configuration without virtual hosts), so that what named it does not wait for ever.
   * Without it, a missing name is left out of the response.
   */
  readonly emptyResource?: (name: string) => ResourceJson;
  /**
   * Types whose next ACK istiod answers anyway once a watch of this type starts (CDS: EDS,
   * istiod's `WarmingDependencies`): clusters Envoy warms again get their endpoints.
   */
  readonly warmingDependents?: readonly string[];
  /** The rank in ADS push order (CDS 10 → EDS 20 → LDS 30 → RDS 50); others follow as they come. */
  readonly adsOrder?: number;
  /** istiod's flat `/debug/syncz` fields `<prefix>_sent` / `<prefix>_acked`, in its order. */
  readonly syncz?: { prefix: string; rank: number };
  /** A column of `istioctl proxy-status`'s table, at this position. */
  readonly proxyStatusColumn?: number;
  /**
   * The prefix of Envoy's own stats for this type's subscription (`cluster_manager.cds`:
   * `update_success`, `update_rejected`, `version_text`, …); EDS and RDS have per-resource
   * stats instead, so they have none.
   */
  readonly envoyStats?: string;
  /** The per-type NACK gauge istiod keeps "for backwards compatibility". */
  readonly rejectGauge?: { name: string; help: string };
  readonly configDump?: ConfigDumpSection;
  /** The other resources this one names (read from its canonical JSON). */
  readonly references?: (resource: ResourceJson) => Reference[];
}
