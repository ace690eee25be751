/** ECDS: `envoy.config.core.v3.TypedExtensionConfig`. */
import { EXTENSION_CONFIG_TYPE } from '../../xds/type-urls.js';
import type { ResourceType } from './resource-type.js';

export const extensionConfigType: ResourceType = {
  typeUrl: EXTENSION_CONFIG_TYPE,
  shortName: 'ECDS',
  metricLabel: 'ecds',
  nameField: 'name',
  wildcard: false,
  syncz: { prefix: 'extensionconfig', rank: 4 },
  proxyStatusColumn: 4,
  configDump: { rank: 70, section: 'EcdsConfigDump', list: 'ecds_filters', entry: 'ecds_filter' },
};
