/**
 * `/debug/config_dump?proxyID=`: what a proxy was sent, in the shape of Envoy's admin
 * `config_dump` (the sections and order istiod uses: bootstrap, clusters, [endpoints],
 * listeners, scoped routes, routes, secrets, ECDS). Resources are rendered as canonical
 * proto3 JSON with the .proto field names, as Envoy prints them, so the two dumps can be
 * compared side by side. istiod prints the same structure with lowerCamelCase names.
 */
import type { NamedResource } from '../core/snapshot.js';
import { toJson } from '../xds/json.js';
import { findMessageType } from '../xds/protos.js';
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  EXTENSION_CONFIG_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
  SECRET_TYPE,
  TYPE_PREFIX,
  messageNameOf,
} from '../xds/type-urls.js';
import type { SentType } from './sent-resources.js';

const ADMIN = `${TYPE_PREFIX}envoy.admin.v3.`;
type Json = Record<string, unknown>;

/** One resource as `{ "@type": …, …fields }`; bytes of an unknown type stay base64. */
export function resourceJson(resource: NamedResource): Json {
  const type = findMessageType(messageNameOf(resource.typeUrl) ?? '');
  if (!type) {
    return { '@type': resource.typeUrl, value: Buffer.from(resource.value).toString('base64') };
  }
  const json = toJson(type, type.decode(resource.value)) as Json;
  return { '@type': resource.typeUrl, ...json };
}

/** The resources a response carried, in the order sent. */
export function sentResources(sent: SentType | undefined): NamedResource[] {
  if (!sent) return [];
  const { resources } = sent.snapshot;
  if (!sent.names) return [...resources.values()];
  return sent.names.flatMap((name) => resources.get(name) ?? []);
}

function entries(
  sent: SentType | undefined,
  entry: (resource: Json, resourceName: string, common: Json) => Json,
): Json[] | undefined {
  const list = sentResources(sent).map((resource) =>
    entry(resourceJson(resource), resource.name, {
      version_info: sent?.version,
      last_updated: sent?.at.toISOString(),
    }),
  );
  return list.length > 0 ? list : undefined;
}

function section(name: string, fields: Json): Json {
  const out: Json = { '@type': `${ADMIN}${name}` };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

/** Secrets keep their shape but never their private keys (as istiod redacts them). */
function redactSecret(secret: Json): Json {
  const cert = secret.tls_certificate as Json | undefined;
  if (!cert?.private_key) return secret;
  const redacted = Buffer.from('[redacted]').toString('base64');
  return { ...secret, tls_certificate: { ...cert, private_key: { inline_bytes: redacted } } };
}

export interface ConfigDumpOptions {
  /** `?include_eds`: add the endpoints section (istiod leaves it out by default). */
  includeEds?: boolean;
}

type Sent = (typeUrl: string) => SentType | undefined;

function clustersSection(of: Sent): Json {
  return section('ClustersConfigDump', {
    version_info: of(CLUSTER_TYPE)?.version,
    dynamic_active_clusters: entries(of(CLUSTER_TYPE), (cluster, _n, common) => ({
      ...common,
      cluster,
    })),
  });
}

function endpointsSection(of: Sent): Json {
  return section('EndpointsConfigDump', {
    dynamic_endpoint_configs: entries(of(ENDPOINT_TYPE), (endpoint_config, _n, common) => ({
      ...common,
      endpoint_config,
    })),
  });
}

function listenersSection(of: Sent): Json {
  return section('ListenersConfigDump', {
    version_info: of(LISTENER_TYPE)?.version,
    dynamic_listeners: entries(of(LISTENER_TYPE), (listener, name, common) => ({
      name,
      active_state: { ...common, listener },
    })),
  });
}

function routesSection(of: Sent): Json {
  return section('RoutesConfigDump', {
    dynamic_route_configs: entries(of(ROUTE_TYPE), (route_config, _n, common) => ({
      ...common,
      route_config,
    })),
  });
}

function secretsSection(of: Sent): Json {
  return section('SecretsConfigDump', {
    dynamic_active_secrets: entries(of(SECRET_TYPE), (secret, name, common) => ({
      name,
      ...common,
      secret: redactSecret(secret),
    })),
  });
}

function ecdsSection(of: Sent): Json {
  return section('EcdsConfigDump', {
    ecds_filters: entries(of(EXTENSION_CONFIG_TYPE), (ecds_filter, _n, common) => ({
      ...common,
      ecds_filter,
    })),
  });
}

/** The full dump for one stream. */
export function buildConfigDump(
  sent: ReadonlyMap<string, SentType>,
  options: ConfigDumpOptions = {},
): { configs: Json[] } {
  const of: Sent = (typeUrl) => sent.get(typeUrl);
  return {
    configs: [
      section('BootstrapConfigDump', {}),
      clustersSection(of),
      ...(options.includeEds ? [endpointsSection(of)] : []),
      listenersSection(of),
      section('ScopedRoutesConfigDump', {}),
      routesSection(of),
      secretsSection(of),
      ecdsSection(of),
    ],
  };
}

/** `?types=cds,lds`: the bare resources of the listed types, in that order. */
export function buildTypedDump(
  sent: ReadonlyMap<string, SentType>,
  typeUrls: readonly string[],
): { configs: Json[] } {
  const configs = typeUrls.flatMap((typeUrl) =>
    sentResources(sent.get(typeUrl)).map((resource) =>
      typeUrl === SECRET_TYPE ? redactSecret(resourceJson(resource)) : resourceJson(resource),
    ),
  );
  return { configs };
}
