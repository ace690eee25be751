/**
 * down: close the xDS port, as when istiod's pod goes away. Open streams end with
 * UNAVAILABLE and new connections are refused; Envoy's `control_plane.connected_state` drops
 * to 0 and it keeps serving its last configuration. Removing the fault (or `for` running out)
 * opens the port again; versions are kept, so a reconnecting Envoy is told nothing changed.
 */
import { defineScenario } from '../model.js';

export const down = defineScenario({
  name: 'down',
  summary: 'close the xDS port (connections refused) until removed, or for a while',
  params: {
    for: { type: 'duration', description: 'come back up after this long (default: when removed)' },
  },
  scope: 'none',
  holds: false,
  create: (params, ctx) => {
    const forMs = params.for;
    return {
      async activate() {
        await ctx.host.down();
        ctx.count('downs');
        if (forMs === undefined) return;
        ctx.setTimeout(() => {
          ctx.host.up().then(
            () => ctx.finish(`back up after ${forMs} ms`),
            (err: unknown) => ctx.log.error({ err }, 'fault: cannot open the xDS port again'),
          );
        }, forMs);
      },
      deactivate: () => ctx.host.up(),
    };
  },
});
