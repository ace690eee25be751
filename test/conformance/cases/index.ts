/** Every conformance case, rule by rule (docs/conformance.md). */
import type { ConformanceCase } from '../support/case.js';
import acks from './acks.js';
import firstRequest from './first-request.js';
import identityTls from './identity-tls.js';
import streamDebug from './stream-debug.js';
import streamLog from './stream-log.js';
import streamNode from './stream-node.js';
import streamTypes from './stream-types.js';

export const CASES: readonly ConformanceCase[] = [
  ...firstRequest,
  ...acks,
  ...streamNode,
  ...streamTypes,
  ...streamDebug,
  ...identityTls,
  ...streamLog,
];
