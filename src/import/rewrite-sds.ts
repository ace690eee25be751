/**
 * SDS references: in a pod, TLS contexts name secrets (`default`, `ROOTCA`) that pilot-agent
 * serves over the `sds-grpc` cluster of its bootstrap. Here there is no pilot-agent, so a
 * reference is either pointed at the mock's CA material, served by the mock over ADS as
 * `Secret` resources (`ca`), or its TLS is stripped (`plaintext`). Kept as it is, it is named:
 * what references it would wait for ever.
 */
import { objectsIn } from '../util/guards.js';
import { SECRET_TYPE } from '../xds/type-urls.js';
import { child, eachObject, type Json } from './json-walk.js';
import type { ImportReport } from './report.js';

/** The mock's CA material, as files an Envoy on this machine can read. */
export interface CaFiles {
  rootCert: string;
  certChain: string;
  key: string;
}

export type SdsRewrite = { mode: 'keep' } | { mode: 'plaintext' } | { mode: 'ca'; files: CaFiles };

const ADS_SOURCE = { ads: {}, resource_api_version: 'V3' };

/** Secrets the `ca` rewrite made references to, by kind. */
export interface SecretNames {
  certificates: Set<string>;
  validations: Set<string>;
}

export function newSecretNames(): SecretNames {
  return { certificates: new Set(), validations: new Set() };
}

export function rewriteSds(
  resource: Json,
  path: string,
  sds: SdsRewrite,
  names: SecretNames,
  report: ImportReport,
): void {
  eachObject(resource, path, (obj, at) => {
    if (sds.mode === 'plaintext') stripTls(obj, at, report);
    const common = child(obj, 'common_tls_context');
    if (common && sds.mode !== 'plaintext')
      rewriteContext(common, `${at}.common_tls_context`, sds, names, report);
  });
}

/** Removes transport sockets (and socket matches) whose TLS context names SDS secrets. */
function stripTls(obj: Json, at: string, report: ImportReport): void {
  const socket = child(obj, 'transport_socket');
  if (socket && usesSds(socket)) {
    delete obj.transport_socket;
    report.rewrites.push({
      path: `${at}.transport_socket`,
      message: 'TLS with SDS secrets → plaintext',
    });
    const match = child(obj, 'filter_chain_match');
    if (match?.transport_protocol === 'tls')
      report.cannotWork.push({
        path: `${at}.filter_chain_match.transport_protocol`,
        message:
          'this chain matches TLS connections only, and now cannot decode them: plaintext goes to the other chains',
      });
  }
  if (Array.isArray(obj.transport_socket_matches)) {
    const kept = objectsIn(obj.transport_socket_matches).filter(
      (m) => !usesSds(child(m, 'transport_socket') ?? {}),
    );
    if (kept.length < obj.transport_socket_matches.length) {
      report.rewrites.push({
        path: `${at}.transport_socket_matches`,
        message: 'matches with SDS secrets removed (plaintext)',
      });
      if (kept.length > 0) obj.transport_socket_matches = kept;
      else delete obj.transport_socket_matches;
    }
  }
}

function usesSds(value: Json): boolean {
  let found = false;
  eachObject(value, '', (obj) => {
    if ('sds_config' in obj) found = true;
  });
  return found;
}

function rewriteContext(
  common: Json,
  at: string,
  sds: SdsRewrite,
  names: SecretNames,
  report: ImportReport,
): void {
  objectsIn(common.tls_certificate_sds_secret_configs).forEach((config, i) =>
    rewriteReference(
      config,
      `${at}.tls_certificate_sds_secret_configs[${i}]`,
      'certificates',
      sds,
      names,
      report,
    ),
  );
  const direct = child(common, 'validation_context_sds_secret_config');
  if (direct)
    rewriteReference(
      direct,
      `${at}.validation_context_sds_secret_config`,
      'validations',
      sds,
      names,
      report,
    );
  const combined = child(common, 'combined_validation_context');
  const inner = combined && child(combined, 'validation_context_sds_secret_config');
  if (!combined || !inner) return;
  rewriteReference(
    inner,
    `${at}.combined_validation_context.validation_context_sds_secret_config`,
    'validations',
    sds,
    names,
    report,
  );
  const defaults = child(combined, 'default_validation_context');
  if (sds.mode !== 'ca' || !defaults) return;
  for (const key of ['match_subject_alt_names', 'match_typed_subject_alt_names']) {
    if (!(key in defaults)) continue;
    delete defaults[key];
    report.rewrites.push({
      path: `${at}.combined_validation_context.default_validation_context.${key}`,
      message: "removed: the mock's certificate carries no workload (SPIFFE) identity to match",
    });
  }
}

function rewriteReference(
  config: Json,
  at: string,
  kind: keyof SecretNames,
  sds: SdsRewrite,
  names: SecretNames,
  report: ImportReport,
): void {
  const name = String(config.name);
  const source = child(config, 'sds_config');
  if (!source) return;
  if (sds.mode === 'ca') {
    config.sds_config = ADS_SOURCE;
    names[kind].add(name);
    report.rewrites.push({
      path: `${at}.sds_config`,
      message: `secret ${name} → the mock's CA material, over ADS`,
    });
    return;
  }
  const cluster = grpcCluster(source);
  report.cannotWork.push({
    path: `${at}.sds_config`,
    message:
      cluster !== undefined
        ? `secret ${name} comes from ${cluster} (pilot-agent's SDS), which this Envoy does not have: what uses it waits for ever (--sds ca or --sds plaintext)`
        : `secret ${name} is asked for over ADS, and is not in the import: what uses it waits for ever (--sds ca or --sds plaintext)`,
  });
}

function grpcCluster(source: Json): string | undefined {
  const services = objectsIn(child(source, 'api_config_source')?.grpc_services);
  const name = child(services[0] ?? {}, 'envoy_grpc')?.cluster_name;
  return typeof name === 'string' ? name : undefined;
}

/** The `Secret` resources the references now name, made of the mock's CA files. */
export function makeSecrets(names: SecretNames, files: CaFiles): Json[] {
  const certificates = [...names.certificates].map((name) => ({
    '@type': SECRET_TYPE,
    name,
    tls_certificate: {
      certificate_chain: { filename: files.certChain },
      private_key: { filename: files.key },
    },
  }));
  const validations = [...names.validations].map((name) => ({
    '@type': SECRET_TYPE,
    name,
    validation_context: { trusted_ca: { filename: files.rootCert } },
  }));
  return [...certificates, ...validations];
}
