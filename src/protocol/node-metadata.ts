/**
 * istiod's typed reading of node metadata (pkg/model/proxy.go `NodeMetadata`): it writes the
 * metadata Struct as JSON and unmarshals it into a Go struct, so a value of the wrong JSON type
 * for a field it knows ends the stream with INVALID_ARGUMENT and Go's error text (conformance
 * cases "The node: metadata of the wrong type …"). Only fields of plain Go types are checked
 * here; those with their own decoders (INSTANCE_IPS, the StringBool flags, POD_PORTS) are not.
 */

/** The Go type of each checked field, as Go's error message names it. */
const FIELD_TYPES: Readonly<Record<string, string>> = {
  PROXY_CONFIG: 'map[string]json.RawMessage',
  ISTIO_VERSION: 'string',
  ISTIO_REVISION: 'string',
  LABELS: 'map[string]string',
  STATIC_LABELS: 'map[string]string',
  ANNOTATIONS: 'map[string]string',
  PLATFORM_METADATA: 'map[string]string',
  NAMESPACE: 'string',
  NODE_NAME: 'string',
  WORKLOAD_NAME: 'string',
  INTERCEPTION_MODE: 'model.TrafficInterceptionMode',
  SERVICE_ACCOUNT: 'string',
  HTTP_PROXY_PORT: 'string',
  MESH_ID: 'string',
  CLUSTER_ID: 'cluster.ID',
  NETWORK: 'network.ID',
  GENERATOR: 'string',
  DNS_PROXY_ADDR: 'string',
  AUTO_REGISTER_GROUP: 'string',
  WORKLOAD_ENTRY: 'string',
  UNPRIVILEGED_POD: 'string',
  STS_PORT: 'string',
  ENVOY_STATUS_PORT: 'int',
  ENVOY_PROMETHEUS_PORT: 'int',
};

/** The checked fields in the order Go meets them in the JSON it reads (sorted). */
const CHECKED_FIELDS: readonly string[] = Object.keys(FIELD_TYPES).sort();

/** The struct istiod unmarshals into, as its error messages name it. */
const STRUCT_PATH = 'BootstrapNodeMetadata2.NodeMetadata';

/** JSON's name for a value's type, as Go's `UnmarshalTypeError` writes it. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Why Go would not unmarshal `value` into `goType`, as Go words it; undefined when it would. */
function typeError(value: unknown, goType: string): string | undefined {
  if (value === null) return undefined;
  if (goType === 'int') {
    if (typeof value === 'number' && Number.isInteger(value)) return undefined;
    const kind = typeof value === 'number' ? `number ${JSON.stringify(value)}` : jsonKind(value);
    return `${kind} into Go struct field %s of type int`;
  }
  if (goType.startsWith('map[')) {
    if (jsonKind(value) !== 'object')
      return `${jsonKind(value)} into Go struct field %s of type ${goType}`;
    if (goType !== 'map[string]string') return undefined;
    // The first value that is not a string, in the map's order; no list of its values is
    // made (every connection's labels and annotations pass here).
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const v = Object.hasOwn(record, key) ? record[key] : null;
      if (v !== null && typeof v !== 'string')
        return `${jsonKind(v)} into Go struct field %s of type string`;
    }
    return undefined;
  }
  return typeof value === 'string'
    ? undefined
    : `${jsonKind(value)} into Go struct field %s of type ${goType}`;
}

/** Go's `json.Marshal` of a decoded Struct: compact, keys sorted. */
function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${goJson(record[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * How much of the metadata's JSON the refusal quotes. istiod quotes all of it, but a gRPC
 * status travels in a trailer, and a trailer over HTTP/2's header limits breaks the client's
 * whole connection (every stream on it refused), not just this stream: past this, cut.
 */
const QUOTED_METADATA_MAX = 4096;

function quoted(json: string): string {
  return json.length <= QUOTED_METADATA_MAX ? json : `${json.slice(0, QUOTED_METADATA_MAX)}…`;
}

/** istiod's refusal of the metadata, or undefined when every checked field has its type. */
export function metadataTypeProblem(metadata: Record<string, unknown>): string | undefined {
  // Go reports the first field in the order the JSON has them: sorted, as written. Only the
  // checked fields are looked at, in that order, so that a node's metadata is not listed.
  for (const key of CHECKED_FIELDS) {
    if (!Object.hasOwn(metadata, key)) continue;
    const goType = FIELD_TYPES[key] as string;
    const error = typeError(metadata[key], goType);
    if (error) {
      const detail = error.replace('%s', `${STRUCT_PATH}.${key}`);
      const json = quoted(goJson(metadata));
      return `failed to unmarshal node metadata (${json}): json: cannot unmarshal ${detail}`;
    }
  }
  return undefined;
}
