/**
 * Every control operation, one line each. An operation is one file in ops/ and one line
 * here; its route, its OpenAPI entry, its client method, and (where it declares them) its
 * CLI verb, its timeline step and its button on the live page all come from this table.
 */
import type { Operation } from './operation.js';
import { addAdmin } from './ops/add-admin.js';
import { applyFault } from './ops/apply-fault.js';
import { clearFaults } from './ops/clear-faults.js';
import { disconnect } from './ops/disconnect.js';
import { down } from './ops/down.js';
import { explain } from './ops/explain.js';
import { getFault } from './ops/get-fault.js';
import { getResources } from './ops/get-resources.js';
import { getScenario } from './ops/get-scenario.js';
import { healthz } from './ops/healthz.js';
import { issueCertificate } from './ops/issue-certificate.js';
import { journal } from './ops/journal.js';
import { journalSinks } from './ops/journal-sinks.js';
import { listAdmins } from './ops/list-admins.js';
import { listFaults } from './ops/list-faults.js';
import { listScenarios } from './ops/list-scenarios.js';
import { mintToken } from './ops/mint-token.js';
import { push } from './ops/push.js';
import { ready } from './ops/ready.js';
import { release } from './ops/release.js';
import { reloadResources } from './ops/reload-resources.js';
import { removeAdmin } from './ops/remove-admin.js';
import { removeFault } from './ops/remove-fault.js';
import { reset } from './ops/reset.js';
import { resourceStatus } from './ops/resource-status.js';
import { rootCert } from './ops/root-cert.js';
import { setResources } from './ops/set-resources.js';
import { state } from './ops/state.js';
import { up } from './ops/up.js';
import { waitForAck } from './ops/wait-for-ack.js';
import { waitForFault } from './ops/wait-for-fault.js';
import { withhold } from './ops/withhold.js';

export const OPERATIONS = [
  healthz,
  ready,
  state,
  waitForAck,
  withhold,
  release,
  push,
  disconnect,
  down,
  up,
  reset,
  listScenarios,
  getScenario,
  listFaults,
  applyFault,
  clearFaults,
  getFault,
  waitForFault,
  removeFault,
  getResources,
  setResources,
  reloadResources,
  resourceStatus,
  journal,
  journalSinks,
  mintToken,
  issueCertificate,
  rootCert,
  listAdmins,
  addAdmin,
  removeAdmin,
  explain,
] as const;

export type Operations = (typeof OPERATIONS)[number];
export type OperationName = Operations['name'];
/** The operation named `N`. */
export type OperationNamed<N extends OperationName> = Extract<Operations, { name: N }>;

const BY_NAME = new Map<string, Operation>(OPERATIONS.map((op) => [op.name, op as Operation]));

export function findOperation(name: string): Operation | undefined {
  return BY_NAME.get(name);
}

export function operationNamed<N extends OperationName>(name: N): OperationNamed<N> {
  return BY_NAME.get(name) as OperationNamed<N>;
}
