/**
 * `mock-istiod/testing`: the test-suite library. A mock istiod on free ports with awaitable
 * helpers and fault injection, real Envoy processes, and leak checks.
 *
 *   import { startMockIstiod, startEnvoy, sidecarBootstrap } from 'mock-istiod/testing';
 */
export { startMockIstiod, type TestMockIstiod } from './start.js';
export { connectMockIstiod, type ConnectOptions } from './remote.js';
export { localControl, type ControlFault, type MockIstiodControl } from './control.js';
export type { ResourcesChanged } from '../api/answers.js';
export {
  grpcBootstrap,
  startEnvoy,
  sidecarBootstrap,
  type TestEnvoy,
  type EnvoyState,
} from './envoy.js';
export { assertNoLeaks, closeAll, leaks } from './leaks.js';
export { RESOURCE_REQUEST_KINDS, type RequestFilter } from './fault-helpers.js';
export type { AckFilter, Acked, Nacked } from './waiters.js';
export { waitFor, type WaitOptions } from '../util/wait.js';
export {
  MockIstiodError,
  isMockIstiodError,
  type MockIstiodErrorCode,
  type MockIstiodErrorDetails,
} from '../util/errors.js';
export { freePort, freePorts } from '../util/ports.js';
export { AdsTestClient, AdsTestStream } from './ads-client.js';
export type { EnvoyExit, StartEnvoyOptions } from '../envoy/envoy-process.js';
export type { StatValue } from '../envoy/admin-client.js';
export type { FaultInfo, FaultSpec, TriggerSpec } from '../faults/model.js';
export { NACK_CATALOGUE } from '../faults/nack-catalogue.js';
export type { JournalEntry, JournalFilter, JournalKind } from '../journal/journal.js';
export { makeLabResources } from '../resources/lab.js';
export { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../xds/type-urls.js';
