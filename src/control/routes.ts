/**
 * Every route of the control API, in one list: the control operations (derived from the
 * table in src/api/table.ts), istiod's debug views, `/metrics`, the live page, the debug list
 * and the OpenAPI document. A route file that is not an operation adds its routes here.
 */
import { describeScenarios } from '../faults/registry.js';
import { fieldsJsonSchema, type JsonSchema } from '../core/fields.js';
import { applyFault } from '../api/ops/apply-fault.js';
import { debugRoutes } from './debug-routes.js';
import { metricsRoutes } from './metrics-routes.js';
import { openApiDocument } from './openapi.js';
import { operationRoutes } from './operation-routes.js';
import type { Route } from './router.js';
import type { RouteTargets } from './target.js';
import { uiRoutes } from './ui-routes.js';

/** The body of `POST /control/faults`: one alternative per scenario, with its parameters. */
function faultRequest(): JsonSchema {
  const fields = fieldsJsonSchema(applyFault.input) as { properties: Record<string, JsonSchema> };
  return {
    oneOf: describeScenarios().map((s) => ({
      ...fields,
      properties: { ...fields.properties, scenario: { const: s.name }, params: s.params },
      required: ['scenario'],
    })),
  };
}

export function allRoutes(targets: RouteTargets): Route[] {
  const routes: Route[] = [
    ...operationRoutes(targets.operations, { applyFault: faultRequest() }),
    ...debugRoutes(targets.debug),
    ...metricsRoutes(targets.metrics),
    ...uiRoutes(targets.ui),
  ];
  const debugNames = routes
    .filter((r) => r.method === 'GET' && r.path.startsWith('/debug/'))
    .map((r) => r.path.slice('/debug/'.length))
    .sort();
  routes.push(
    {
      method: 'GET',
      path: '/debug/list',
      summary: 'List all supported debug commands in json',
      handle: () => ({ status: 200, body: debugNames }),
    },
    {
      method: 'GET',
      path: '/control/openapi.json',
      summary: 'this API as an OpenAPI 3.1 document, built from the route table',
      answer: { type: 'object', required: ['openapi', 'paths'] },
      handle: () => ({ status: 200, body: document }),
    },
  );
  const document = openApiDocument(routes);
  return routes;
}
