/**
 * A transcript: what one server did in one scripted exchange, written as lines in which only
 * what istiod promises is kept. Version strings are relabelled in order of appearance (V1,
 * V2, …) with their format, so that "every type of one push shares a version" compares
 * across servers while the clock does not; a nonce is written as its format only.
 */
import type {
  ClientDeltaResponse,
  ClientResponse,
  StreamEnd,
} from '../../../src/testing/ads-client.js';
import { status } from '@grpc/grpc-js';

const ISTIOD_VERSION = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\/\d+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const SHORT_TYPES: Record<string, string> = {
  'type.googleapis.com/envoy.config.cluster.v3.Cluster': 'CDS',
  'type.googleapis.com/envoy.config.listener.v3.Listener': 'LDS',
  'type.googleapis.com/envoy.config.route.v3.RouteConfiguration': 'RDS',
  'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment': 'EDS',
  'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret': 'SDS',
  'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig': 'ECDS',
};

export function shortType(typeUrl: string): string {
  return SHORT_TYPES[typeUrl] ?? (typeUrl === '' ? '(empty type)' : typeUrl);
}

/** A version string's format: istiod's `<RFC 3339 second>Z/<push counter>`, or its shape. */
function versionFormat(version: string): string {
  if (version === '') return 'empty';
  if (ISTIOD_VERSION.test(version)) return 'push';
  return `other:${version.replace(/[0-9]/g, '9').replace(/[a-f]/g, 'x').slice(0, 40)}`;
}

export class Transcript {
  readonly lines: string[] = [];
  private readonly versions = new Map<string, string>();

  add(line: string): void {
    this.lines.push(line);
  }

  /** `V<n>(<format>)`: the same label for the same string within this transcript. */
  version(version: string): string {
    if (version === '') return 'empty';
    let label = this.versions.get(version);
    if (!label) {
      label = `V${this.versions.size + 1}`;
      this.versions.set(version, label);
    }
    return `${label}(${versionFormat(version)})`;
  }

  /** A version a request carries: its label when a response had it, else the string. */
  knownVersion(version: string): string {
    const label = this.versions.get(version);
    return label ? `${label}` : JSON.stringify(version);
  }

  /** A nonce's format: istiod's is the push version followed by a UUID. */
  nonce(nonce: string, version: string): string {
    if (nonce === '') return 'empty';
    if (version !== '' && nonce.startsWith(version) && UUID.test(nonce.slice(version.length)))
      return 'version+uuid';
    if (UUID.test(nonce)) return 'uuid';
    return `other:${nonce.replace(/[0-9]/g, '9').slice(0, 40)}`;
  }

  sotw(response: ClientResponse): void {
    const names = response.resources.map((r) => resourceName(r.value)).sort();
    const controlPlane = response.control_plane?.identifier ? 'set' : 'unset';
    this.add(
      `← ${shortType(response.type_url)} version ${this.version(response.version_info)} ` +
        `nonce ${this.nonce(response.nonce, response.version_info)} ` +
        `resources [${names.join(', ')}] control_plane ${controlPlane}`,
    );
  }

  /**
   * A debug answer (`istio.io/debug/*`). What it lists depends on which proxies are connected
   * at that moment, and cases run concurrently: only this case's own proxies are named
   * (`mine`, ids starting with the case's pod), and whether any other one was listed.
   */
  debug(response: ClientResponse, mine: string): void {
    if (response.type_url === ENDPOINT_DEBUG_TYPE) return this.debugEndpoint(response);
    const names = response.resources.map((r) => debugResourceName(r)).sort();
    // Proxy ids are `<pod>.<namespace>`: the dot keeps pod c5 from claiming c50's proxies.
    const own = names.filter((name) => name.startsWith(`${mine}.`));
    const others = names.length > own.length ? ' + others' : '';
    this.add(
      `← ${shortType(response.type_url)} version ${this.version(response.version_info)} ` +
        `nonce ${this.nonce(response.nonce, response.version_info)} ` +
        `resources [${own.join(', ')}]${others}`,
    );
  }

  /**
   * An `istio.io/debug` answer: the body of a `/debug/…` endpoint, written as its JSON shape
   * (an array, or an object's keys) or, for text such as istiod's "not connected", the text.
   */
  private debugEndpoint(response: ClientResponse): void {
    const bodies = response.resources.map((r) => describeBody(r.value));
    this.add(
      `← ${response.type_url} version ${this.version(response.version_info)} ` +
        `nonce ${this.nonce(response.nonce, response.version_info)} ` +
        `bodies [${bodies.join(', ')}]`,
    );
  }

  delta(response: ClientDeltaResponse): void {
    const names = response.resources.map((r) => r.name).sort();
    const versioned = response.resources.filter((r) => r.version !== '').length;
    const versions =
      response.resources.length === 0
        ? ''
        : versioned === 0
          ? ' unversioned'
          : versioned === response.resources.length
            ? ' versioned'
            : ` ${versioned}/${response.resources.length} versioned`;
    const removed = [...response.removed_resources].sort();
    this.add(
      `← Δ ${shortType(response.type_url)} system_version ${this.version(response.system_version_info)} ` +
        `nonce ${this.nonce(response.nonce, response.system_version_info)} ` +
        `resources [${names.join(', ')}]${versions} removed [${removed.join(', ')}]`,
    );
  }

  silent(): void {
    this.add('← (silent)');
  }

  end(end: StreamEnd | undefined): void {
    if (!end) this.add('✕ (stream still open)');
    else this.add(`✕ ${status[end.code] ?? String(end.code)} ${JSON.stringify(end.details)}`);
  }
}

const CLIENT_CONFIG = 'type.googleapis.com/envoy.service.status.v3.ClientConfig';
const ENDPOINT_DEBUG_TYPE = 'istio.io/debug';

/** A debug endpoint's body by its shape: `json [array]`, `json {keys}`, or the text itself. */
function describeBody(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return JSON.stringify(text);
  }
  if (Array.isArray(value)) return 'json [array]';
  if (value !== null && typeof value === 'object')
    return `json {${Object.keys(value).sort().join(', ')}}`;
  return `json ${typeof value}`;
}

/** A ClientConfig (syncz) is named by its node's id: field 1 of field 1. */
function debugResourceName(any: { type_url: string; value: Buffer }): string {
  if (any.type_url !== CLIENT_CONFIG) return resourceName(any.value);
  const node = firstField(any.value);
  return node ? resourceName(node) : '(unnamed)';
}

/**
 * The name of a resource from its bytes: field 1, a string, in every type ADS serves here
 * (Cluster.name, Listener.name, RouteConfiguration.name, ClusterLoadAssignment.cluster_name,
 * Secret.name, TypedExtensionConfig.name). Read from the wire so that no decoder of either
 * side's choosing comes between the server and the transcript.
 */
export function resourceName(bytes: Buffer): string {
  return firstField(bytes)?.toString('utf8') ?? '(unnamed)';
}

/** The bytes of field 1 when it is length-delimited (a string or a message). */
function firstField(bytes: Buffer): Buffer | undefined {
  let offset = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[offset++];
      if (byte === undefined) return -1;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  };
  while (offset < bytes.length) {
    const key = varint();
    if (key < 0) break;
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 2) {
      const length = varint();
      if (field === 1) return bytes.subarray(offset, offset + length);
      offset += length;
    } else if (wire === 0) varint();
    else if (wire === 1) offset += 8;
    else if (wire === 5) offset += 4;
    else break;
  }
  return undefined;
}
