/** Every conformance case, rule by rule (docs/conformance.md). */
import type { ConformanceCase } from '../support/case.js';
import acks from './acks.js';
import firstRequest from './first-request.js';
import deltaSubscriptions from './delta-subscriptions.js';
import deltaRemovals from './delta-removals.js';
import deltaAcks from './delta-acks.js';
import deltaReconnect from './delta-reconnect.js';
import versionsPushes from './versions-pushes.js';
import versionsShared from './versions-shared.js';
import sotwAcks from './sotw-acks.js';
import sotwNacks from './sotw-nacks.js';
import sotwNames from './sotw-names.js';
import sotwWarming from './sotw-warming.js';
import identityTls from './identity-tls.js';
import streamDebug from './stream-debug.js';
import debugNamespace from './debug-namespace.js';
import streamLog from './stream-log.js';
import streamNode from './stream-node.js';
import streamTypes from './stream-types.js';
import proxyless from './proxyless.js';

export const CASES: readonly ConformanceCase[] = [
  ...firstRequest,
  ...acks,
  ...deltaSubscriptions,
  ...deltaRemovals,
  ...deltaAcks,
  ...deltaReconnect,
  ...versionsShared,
  ...versionsPushes,
  ...sotwNacks,
  ...sotwAcks,
  ...sotwNames,
  ...sotwWarming,
  ...streamNode,
  ...streamTypes,
  ...proxyless,
  ...streamDebug,
  ...identityTls,
  ...debugNamespace,
  ...streamLog,
];
