/** Every conformance case, rule by rule (docs/conformance.md). */
import type { ConformanceCase } from '../support/case.js';
import acks from './acks.js';
import firstRequest from './first-request.js';
import sotwAcks from './sotw-acks.js';
import sotwNacks from './sotw-nacks.js';
import sotwNames from './sotw-names.js';
import sotwWarming from './sotw-warming.js';

export const CASES: readonly ConformanceCase[] = [
  ...firstRequest,
  ...acks,
  ...sotwNacks,
  ...sotwAcks,
  ...sotwNames,
  ...sotwWarming,
];
