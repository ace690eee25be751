/**
 * withhold: accept the stream, send nothing (in scope) until released. With every type held
 * a fresh Envoy stays PRE_INITIALIZING with `control_plane.connected_state` 1; with only LDS
 * held it gets its clusters and stays INITIALIZING.
 */
import type { ResponseDecision } from '../../core/policy.js';
import { defineScenario } from '../model.js';

const HOLD: ResponseDecision = Object.freeze({ kind: 'hold' });

export const withhold = defineScenario({
  name: 'withhold',
  summary: 'hold every response in scope until released (scope.types: hold only those types)',
  params: {},
  scope: 'node-and-type',
  holds: true,
  create: (_params, ctx) => ({
    decide() {
      ctx.count('held');
      return HOLD;
    },
  }),
});
