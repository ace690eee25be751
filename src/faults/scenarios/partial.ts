/**
 * partial: answer only the listed types and hold every other one, as a control plane that
 * serves clusters but never listeners would. Envoy gets its CDS response, requests LDS, and
 * waits there (INITIALIZING).
 */
import type { ResponseDecision } from '../../core/policy.js';
import { defineScenario } from '../model.js';

const HOLD: ResponseDecision = Object.freeze({ kind: 'hold' });

export const partial = defineScenario({
  name: 'partial',
  summary: 'answer only the types in params.answer; hold every other type until released',
  params: {
    answer: {
      type: 'types',
      required: true,
      description: 'the types still answered, e.g. ["CDS"]',
    },
  },
  scope: 'node-and-type',
  holds: true,
  create: (params, ctx) => {
    const answered = params.answer;
    return {
      decide(query) {
        if (answered.includes(query.typeUrl)) return undefined;
        ctx.count('held');
        return HOLD;
      },
    };
  },
});
