/**
 * Fault injection: the model, the scenarios, the engine (timelines, which also run control
 * operations, are in src/timelines/timeline.ts). The public surface is
 * re-exported by the package barrel (src/index.ts).
 */
export type { FaultInfo, FaultSpec, FaultState, StreamSelector, TriggerSpec } from './model.js';
export { FaultEngine, type FaultEvents } from './engine.js';
export { describeScenarios, scenarioNames } from './registry.js';
export { NACK_CATALOGUE, type NackConfig } from './nack-catalogue.js';
export { RESET_PRESETS } from './scenarios/reset.js';
export { resolveFault, type ResolvedFault } from './spec.js';
export { parseDuration } from '../util/duration.js';
