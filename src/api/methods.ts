/**
 * The operations as methods, one per operation with its name (`control.push({ types: ['LDS'] })`):
 * a method's argument is the operation's input, as its HTTP request carries it, and it resolves
 * with the operation's answer. `connectMockIstiod` and `localControl` (src/testing/) both build
 * theirs here, over HTTP and in process, so that the two have the same methods.
 */
import { validateFields } from '../core/fields.js';
import type { MockIstiodError } from '../util/errors.js';
import type { InputArgs } from './client.js';
import { invalid, Refusal, type Operation, type OutputOf } from './operation.js';
import { refusalError } from './refusal.js';
import { OPERATIONS, type OperationName, type OperationNamed } from './table.js';
import type { OperationTarget } from './target.js';

export type OperationMethods = {
  readonly [N in OperationName]: (...input: InputArgs<N>) => Promise<OutputOf<OperationNamed<N>>>;
};

/**
 * The error a refusal becomes for a caller: the same in process as over HTTP (client.ts). A
 * wait that timed out (408) is `WAIT_TIMEOUT`, as every wait's is; any other refusal
 * `CONTROL_REFUSED`.
 */
export function refusedError(
  refusal: Refusal,
  operation: string,
): MockIstiodError<'CONTROL_REFUSED' | 'WAIT_TIMEOUT'> {
  const body = { error: refusal.error, problems: refusal.problems, ...refusal.extra };
  return refusalError(refusal.status, refusal.error, refusal.problems, operation, body);
}

/** Methods that run each operation through `call`. */
export function operationMethods(
  call: (op: Operation, input: Record<string, unknown> | undefined) => Promise<unknown>,
): OperationMethods {
  const methods = OPERATIONS.map((op: Operation) => [
    op.name,
    (input?: Record<string, unknown>) => call(op, input),
  ]);
  return Object.fromEntries(methods) as OperationMethods;
}

/**
 * Runs an operation in this process against `target`: its input validated as the HTTP route
 * validates it, a refusal thrown as the remote client throws it.
 */
export async function runInProcess(
  op: Operation,
  target: OperationTarget,
  input: Record<string, unknown> | undefined,
): Promise<unknown> {
  const checked = validateFields(op.input, input, { keepUnknown: op.keepUnknown === true });
  if (!checked.ok) {
    throw refusedError(invalid(op.invalid ?? `invalid ${op.name}`, checked.problems), op.name);
  }
  const output = await op.run(target, checked.value);
  if (output instanceof Refusal) throw refusedError(output, op.name);
  return output;
}
