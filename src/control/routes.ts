/**
 * Every route of the control API, in one list. A concern adds its routes file here.
 */
import { controlRoutes } from './control-routes.js';
import { debugRoutes } from './debug-routes.js';
import { faultRoutes } from './fault-routes.js';
import { resourceRoutes } from './resource-routes.js';
import { resourceFileRoutes } from './resource-file-routes.js';
import { metricsRoutes } from './metrics-routes.js';
import type { Route } from './router.js';
import { caRoutes } from './ca-routes.js';
import type { ControlTarget } from './target.js';
import { openApiDocument } from './openapi.js';
import { uiRoutes } from './ui-routes.js';

export function allRoutes(server: ControlTarget): Route[] {
  const routes: Route[] = [
    ...controlRoutes(server),
    ...debugRoutes(server),
    ...metricsRoutes(server),
    ...faultRoutes(server),
    ...resourceRoutes(server),
    ...resourceFileRoutes(server),
    ...caRoutes(server),
    ...uiRoutes(server),
  ];
  routes.push({
    method: 'GET',
    path: '/control/openapi.json',
    summary: 'this API as an OpenAPI 3.1 document, built from the route table',
    answer: { type: 'object', required: ['openapi', 'paths'] },
    handle: () => ({ status: 200, body: document }),
  });
  const document = openApiDocument(routes);
  return routes;
}
