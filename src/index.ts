/**
 * mock-istiod's public API. Anything not exported here is internal.
 */
import type { Logger } from 'pino';
import type { MockIstiod } from './app/mock-istiod-api.js';
import { targetOf } from './target/operation-target.js';
import type { Timeline } from './timelines/timeline.js';
import { runTimeline as runTimelineOn, type TimelineRun } from './timelines/timeline-runner.js';

export { createMockIstiod } from './app/mock-istiod.js';
export { type MockIstiod, type StartedAddresses } from './app/mock-istiod-api.js';
export type { MockIstiodOptions } from './app/options.js';
export type { Profile } from './core/profile.js';
export type { Endpoint } from './core/endpoint.js';
export {
  MockIstiodError,
  isMockIstiodError,
  type MockIstiodErrorCode,
  type MockIstiodErrorDetails,
} from './util/errors.js';
export type { ServerEvents, StreamView, ResponseEvent } from './core/events.js';
export {
  makeLabResources,
  LAB_DEFAULTS,
  LAB_VARIANTS,
  inboundClusterName,
  type LabOptions,
  type LabVariant,
} from './resources/lab.js';
export {
  makeIstioInboundTls,
  makeSdsConfig,
  SDS_CLUSTER,
  WORKLOAD_CERT_SECRET,
  ROOT_CA_SECRET,
} from './resources/istio-mtls.js';
export type { AuthRefusal } from './core/stream-auth.js';
export { makeStaticCluster, makeSocketAddress } from './resources/cluster.js';
export {
  makeHttpListener,
  makeRouteToCluster,
  makeRouteConfiguration,
} from './resources/listener.js';
export {
  makeEdsCluster,
  makeClusterLoadAssignment,
  makeAdsConfigSource,
} from './resources/endpoint.js';
export type { EnvoyResource } from './resources/types.js';
export { makeProxylessService, type ProxylessServiceOptions } from './resources/proxyless.js';
export * from './xds/type-urls.js';
export {
  RESOURCE_TYPES,
  resourceType,
  parseTypeName,
  shortTypeName,
  displayTypeName,
  metricLabel,
} from './core/types/registry.js';
export type { ResourceType, Reference, ConfigDumpSection } from './core/types/resource-type.js';
export type { Problem, Result, ResultWithWarnings } from './util/problems.js';
export { startMockIstiod, type TestMockIstiod } from './testing/start.js';
export {
  Journal,
  type JournalEntry,
  type JournalFilter,
  type JournalKind,
} from './journal/journal.js';
export { waitFor } from './util/wait.js';
export { AdsTestClient, AdsTestStream } from './testing/ads-client.js';
export {
  FaultEngine,
  describeScenarios,
  scenarioNames,
  NACK_CATALOGUE,
  RESET_PRESETS,
  type FaultEvents,
  type FaultInfo,
  type FaultSpec,
  type FaultState,
  type NackConfig,
  type StreamSelector,
  type ResolvedFault,
  type TriggerSpec,
} from './faults/index.js';
export {
  parseTimeline,
  type Timeline,
  type TimelineAction,
  type TimelineStep,
} from './timelines/timeline.js';
export type { ResourceSetSpec, ValidatedSet } from './snapshot/validated-set.js';
export {
  importConfigDump,
  readDumpFile,
  DEFAULT_IMPORT_OPTIONS,
  type ImportOptions,
  type ImportedDump,
} from './import/import-dump.js';
export { formatReport, type ImportReport } from './import/report.js';
export {
  generateForPod,
  OUTBOUND_TRAFFIC_POLICIES,
  type GenerateOptions,
  type Generated,
  type OutboundTrafficPolicy,
} from './generate/generate.js';
export { readDumpFacts, type DumpFacts, type ListenerFact } from './explain/dump-facts.js';
export {
  compare as compareExplained,
  explainDump,
  formatExplained,
  type Explained,
  type ExplainRow,
} from './explain/explain.js';
export { SEED_INJECTION_VALUES, type InjectionValues } from './explain/injection-values.js';
export type { EndpointRewrite } from './import/rewrite-endpoints.js';
export type { ListenerRewrite } from './import/rewrite-listeners.js';
export type { SdsRewrite, CaFiles } from './import/rewrite-sds.js';
export type { HostPort } from './import/json-walk.js';
export type { TimelineRun };

/** Replays a timeline (`parseTimeline`) against a running mock: `serve --timeline` in process. */
export function runTimeline(mock: MockIstiod, timeline: Timeline, logger?: Logger): TimelineRun {
  return runTimelineOn(targetOf(mock), timeline, logger);
}
export {
  startEnvoy,
  sidecarBootstrap,
  assertNoLeaks,
  closeAll,
  leaks,
  type TestEnvoy,
  type EnvoyState,
  type RequestFilter,
} from './testing/index.js';
export {
  makeSidecarBootstrap,
  SIDECAR_PORTS,
  type SidecarBootstrapOptions,
} from './bootstrap/sidecar.js';
export { renderBootstrap, type BootstrapFormat } from './bootstrap/render.js';
export {
  makeGrpcBootstrap,
  GRPC_SERVER_LISTENER_TEMPLATE,
  type GrpcBootstrap,
  type GrpcBootstrapOptions,
} from './bootstrap/grpc.js';
export { startAgent, type Agent, type AgentOptions, type AgentPorts } from './envoy/agent.js';
export type { PodView } from './envoy/agent-pod-view.js';
export {
  startPilotAgent,
  type PilotAgent,
  type PilotAgentOptions,
  type PilotAgentPorts,
} from './envoy/pilot-agent.js';
export { findIstio, type IstioBinaries } from './envoy/find-istio.js';
export { ReadinessProbe, type ReadinessResult } from './envoy/readiness-probe.js';
export type { XdsMetrics } from './metrics/metrics.js';
export { openJournalFile, type JournalFile } from './journal/file-sink.js';
export { syncState, type SyncState } from './core/sync-status.js';
export type { SentResources, SentType } from './journal/sent-resources.js';
export { collectStatus, type StatusReport, type ProxyReport } from './status/status-report.js';
export {
  createControlClient,
  DEFAULT_TIMEOUT_MS,
  type ControlClient,
  type ControlClientOptions,
} from './api/client.js';
export { OPERATIONS, type OperationName, type Operations } from './api/table.js';
export type { Operation, InputOf, OutputOf, RequestOf } from './api/operation.js';
export type { OperationTarget } from './api/target.js';
export type { ControlFault, MockIstiodControl } from './api/control.js';
export type { MockSecurity } from './ca/security.js';
export { TLS_FILES } from './tls/tls-files.js';
export {
  ISTIOD_SERVICE_NAME,
  DEFAULT_CA_OPTIONS,
  type TlsOptions,
  type CaOptions,
} from './ca/security-options.js';
export {
  createCaClient,
  CREATE_CERTIFICATE_PATH,
  type CaClient,
  type IstioCertificateRequest,
  type IstioCertificateResponse,
} from './ca/ca-proto.js';
export { AUTHENTICATE_FAILURE, REASON_TRAILER, spiffeId } from './ca/ca-service.js';
export {
  DEFAULT_TOKEN_AUDIENCE,
  type TokenRequest,
  type MintedToken,
} from './ca/service-account-token.js';
