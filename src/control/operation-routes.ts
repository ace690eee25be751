/**
 * The control operations as HTTP routes, derived from the table (src/api/table.ts): each
 * route reads its input from the request (query, path, body), validates it with the
 * operation's fields, runs it against the one `OperationTarget`, and answers its output, or
 * its refusal as `{error, problems}`.
 */
import { fieldsJsonSchema, type JsonSchema } from '../core/fields.js';
import { requestInput } from '../api/http-shape.js';
import { invalid, Refusal, type Operation } from '../api/operation.js';
import { OPERATIONS, type OperationName } from '../api/table.js';
import type { OperationTarget } from '../api/target.js';
import { refusalResponse } from './responses.js';
import type { ControlRequest, ControlResponse, Route } from './router.js';

/** Runs one operation for one request. */
export async function runOperation(
  op: Operation,
  target: OperationTarget,
  request: Pick<ControlRequest, 'params' | 'query' | 'body' | 'signal'>,
): Promise<ControlResponse> {
  const input = requestInput(op, request);
  if (!input.ok) {
    return refusalResponse(invalid(op.invalid ?? `invalid ${op.name}`, input.problems));
  }
  const output = await op.run(
    target,
    input.value,
    request.signal ? { signal: request.signal } : undefined,
  );
  if (output instanceof Refusal) return refusalResponse(output);
  const status = op.success ?? 200;
  return op.produces
    ? { status, body: output, contentType: op.produces }
    : { status, body: output };
}

function hasFields(op: Operation): boolean {
  return Object.keys(op.input).length > 0;
}

/** The query parameters of a GET, for the OpenAPI document. */
function queryParameters(op: Operation): JsonSchema[] | undefined {
  if (op.method !== 'GET') return undefined;
  const schema = fieldsJsonSchema(op.input) as { properties: Record<string, JsonSchema> };
  const inPath = new Set([...op.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]));
  const params = Object.entries(schema.properties)
    .filter(([name]) => !inPath.has(name))
    .map(([name, field]) => ({ name, in: 'query', required: false, schema: field }));
  return params.length > 0 ? params : undefined;
}

/**
 * Every operation's route. `bodies` replaces the documented body of some (the fault request
 * as one alternative per scenario, which only the server can list).
 */
export function operationRoutes(
  target: OperationTarget,
  bodies: Partial<Record<OperationName, JsonSchema>> = {},
): Route[] {
  return OPERATIONS.map((op: Operation): Route => {
    const body =
      op.method === 'GET' || !hasFields(op)
        ? undefined
        : (bodies[op.name as OperationName] ?? fieldsJsonSchema(op.input));
    const query = queryParameters(op);
    return {
      method: op.method,
      path: op.path,
      summary: op.summary,
      operation: op.name,
      ...(body ? { body } : {}),
      ...(query ? { query } : {}),
      ...(op.produces ? { produces: op.produces } : { answer: op.output.schema }),
      ...(op.success ? { success: op.success } : {}),
      ...(op.public ? { access: 'public' as const } : {}),
      ...(op.refusals ? { refusals: op.refusals } : {}),
      handle: (request) => runOperation(op, target, request),
    };
  });
}
