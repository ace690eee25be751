/**
 * delay: send each response in scope after a fixed delay, or a jittered one (`ms` ± up to
 * `jitter`, uniform) drawn from a seeded generator: the same seed and the same sequence of
 * responses give the same delays, run after run.
 */
import { defineScenario } from '../model.js';
import { jittered, seededRandom } from '../random.js';

export const delay = defineScenario({
  name: 'delay',
  summary: 'send each response in scope late: ms, or ms ± jitter (seeded, reproducible)',
  params: {
    ms: { type: 'duration', required: true, description: 'how long to delay each response' },
    jitter: {
      type: 'duration',
      default: 0,
      description: 'up to this much more or less, at random',
    },
    seed: {
      type: 'integer',
      default: 1,
      min: 0,
      max: 2 ** 32 - 1,
      description: 'seed of the jitter: the same seed gives the same delays',
    },
  },
  scope: 'node-and-type',
  holds: false,
  create: (params, ctx) => {
    const random = seededRandom(params.seed);
    const { ms, jitter } = params;
    return {
      decide() {
        const wait = jittered(random, ms, jitter);
        ctx.count('delayed');
        ctx.count('delayedMs', wait);
        return { kind: 'delay', ms: wait };
      },
    };
  },
});
