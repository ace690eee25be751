/**
 * The OpenAPI 3.1 document of the control API, built from the route table itself (paths,
 * methods, summaries, and the bodies' and answers' JSON Schemas each route names), so it
 * cannot drift from what the server does. Served at `GET /control/openapi.json`.
 */
import { REFUSAL } from '../api/answers.js';
import type { JsonSchema as Schema } from '../core/fields.js';
import type { Route } from './router.js';

/** `/control/faults/:id` → `/control/faults/{id}`; `/ui/*path` → `/ui/{path}`. */
export function openApiPath(path: string): string {
  return path.replace(/[:*]([A-Za-z]+)/g, '{$1}');
}

const json = (schema: Schema) => ({ 'application/json': { schema } });

function operation(route: Route): Record<string, unknown> {
  const params = [
    ...[...route.path.matchAll(/[:*]([A-Za-z]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    })),
    ...(route.query ?? []),
  ];
  const success = String(route.success ?? 200);
  const refusal = (description: string) => ({ description, content: json(REFUSAL) });
  return {
    operationId: route.operation ?? `${route.method.toLowerCase()} ${route.path}`,
    summary: route.summary,
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(route.body ? { requestBody: { required: false, content: json(route.body) } } : {}),
    responses: {
      [success]: {
        description: route.summary,
        ...(route.answer ? { content: json(route.answer) } : {}),
        ...(route.produces
          ? { content: { [route.produces]: { schema: { type: 'string' } } } }
          : {}),
      },
      '400': refusal('bad input: every problem with its field path'),
      ...(route.access === 'public'
        ? {}
        : { '401': refusal('a token is required (Authorization: Bearer <token>)') }),
      '403': refusal(
        'a browser request from another origin or site, or a Host that is not a name of this port',
      ),
      '404': refusal('unknown, or not found'),
      ...Object.fromEntries(
        Object.entries(route.refusals ?? {}).map(([status, why]) => [status, refusal(why)]),
      ),
      '500': refusal('the mock failed (see its log)'),
    },
  };
}

export function openApiDocument(routes: readonly Route[]): Schema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mock-istiod control API',
      version: '1',
      description:
        'See docs/api.md. Every 4xx and 5xx answers {error, problems}: one line, and every problem with its field path.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Refusal: REFUSAL },
    },
    paths,
  };
}
