/**
 * flap: the xDS port goes down and comes back up on a schedule — down for `down`, up for
 * `up`, `cycles` times (default: until removed). Envoy's `connected_state` follows it and
 * its `update_failure` counters grow with each outage; its configuration keeps serving.
 */
import { defineScenario } from '../model.js';

export const flap = defineScenario({
  name: 'flap',
  summary: 'take the xDS port down and up again on a schedule',
  params: {
    down: { type: 'duration', required: true, description: 'how long each outage lasts' },
    up: {
      type: 'duration',
      required: true,
      description: 'how long the port stays open between outages',
    },
    cycles: { type: 'integer', min: 1, description: 'how many outages (default: until removed)' },
  },
  scope: 'none',
  holds: false,
  create: (params, ctx) => {
    const { down: downMs, up: upMs, cycles } = params;
    let done = 0;
    const fail = (err: unknown) =>
      ctx.log.error({ err }, 'fault: flap could not change the xDS port');
    const goDown = (): void => {
      ctx.host.down().then(() => {
        ctx.count('downs');
        ctx.setTimeout(goUp, downMs);
      }, fail);
    };
    const goUp = (): void => {
      ctx.host.up().then(() => {
        done += 1;
        if (cycles !== undefined && done >= cycles)
          ctx.finish(`${done} outage${done === 1 ? '' : 's'}`);
        else ctx.setTimeout(goDown, upMs);
      }, fail);
    };
    return {
      activate: goDown,
      deactivate: () => ctx.host.up(),
    };
  },
});
