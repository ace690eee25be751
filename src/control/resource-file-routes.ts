/**
 * Where the resources come from and how the last load went (`GET /debug/resources`), and a
 * manual reload of resource files (`POST /control/resources/reload`), for when a file
 * watcher cannot see a change (some network file systems) or a test wants no debounce.
 */
import type { MockIstiod } from '../server/mock-istiod.js';
import { shortTypeName } from '../xds/type-urls.js';
import type { Route } from './router.js';

type Target = Pick<MockIstiod, 'resourceStatus' | 'reloadResources'>;

export function resourceFileRoutes(target: Target): Route[] {
  return [
    {
      method: 'GET',
      path: '/debug/resources',
      summary: 'where resources come from, their warnings, and the last failed reload',
      handle: () => ({ status: 200, body: target.resourceStatus() }),
    },
    {
      method: 'POST',
      path: '/control/resources/reload',
      summary:
        'reload the resource files now (400 with every problem; the last good set keeps serving)',
      handle: () => {
        const result = target.reloadResources();
        if (!result.ok) {
          return {
            status: 400,
            body: {
              error: 'reload failed; the last good set keeps serving',
              problems: result.problems,
            },
          };
        }
        const changed = result.value.map((c) => ({
          set: c.set,
          changed: c.changed.map(shortTypeName),
        }));
        return { status: 200, body: { changed } };
      },
    },
  ];
}
