/**
 * Where the resources come from and how the last load went (`GET /debug/resources`). The
 * manual reload (`POST /control/resources/reload`) is in resource-routes.ts.
 */
import type { Route } from './router.js';
import type { ResourceTarget } from './target.js';

export function resourceFileRoutes(target: Pick<ResourceTarget, 'resourceStatus'>): Route[] {
  return [
    {
      method: 'GET',
      path: '/debug/resources',
      summary: 'where resources come from, their warnings, and the last failed reload',
      handle: () => ({ status: 200, body: target.resourceStatus() }),
    },
  ];
}
