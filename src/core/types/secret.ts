/** SDS: `envoy.extensions.transport_sockets.tls.v3.Secret`. */
import { SECRET_TYPE } from '../../xds/type-urls.js';
import type { ResourceJson, ResourceType } from './resource-type.js';

/** Secrets keep their shape but never their private keys (as istiod redacts them). */
function redactSecret(secret: ResourceJson): ResourceJson {
  const cert = secret.tls_certificate as ResourceJson | undefined;
  if (!cert?.private_key) return secret;
  const redacted = Buffer.from('[redacted]').toString('base64');
  return { ...secret, tls_certificate: { ...cert, private_key: { inline_bytes: redacted } } };
}

export const secretType: ResourceType = {
  typeUrl: SECRET_TYPE,
  shortName: 'SDS',
  metricLabel: 'sds',
  nameField: 'name',
  wildcard: false,
  configDump: {
    rank: 60,
    section: 'SecretsConfigDump',
    list: 'dynamic_active_secrets',
    entry: 'secret',
    staticList: 'static_secrets',
    warmingList: 'dynamic_warming_secrets',
    named: true,
    redact: redactSecret,
  },
};
