/**
 * A control operation, defined once as data: its name, its HTTP method and path, the fields it
 * takes (which validate input with every problem's path and document it as JSON Schema), the
 * shape of its answer, what it runs against the mock, and optionally its CLI verb, whether a
 * timeline step may use it, and its button on the live page. From the table of operations
 * (table.ts) come the HTTP routes and the OpenAPI document (src/control/), the CLI verbs
 * (src/cli/), the remote and in-process clients (client.ts, src/testing/), timeline steps
 * (src/faults/timeline.ts) and the page's calls (ui/src/api.ts).
 *
 * This floor knows no HTTP server and loads no server code: the page's bundle includes it.
 */
import type { FieldSchemas, FieldValue, FieldValues, JsonSchema } from '../core/fields.js';
import type { Refusal } from './refusal.js';
import type { OperationTarget } from './target.js';

export { invalid, Refusal, type RefusalStatus } from './refusal.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The JSON Schema of an answer, carrying the answer's TypeScript type. */
export interface Answer<T> {
  readonly schema: JsonSchema;
  /** Never set: it only carries `T`. */
  readonly type?: T;
}

export function answer<T>(schema: JsonSchema): Answer<T> {
  return { schema };
}

/** What a CLI verb adds to an operation: its help, and how its answer reads as a line. */
export interface VerbSpec<O> {
  /** The command's name, when it is not the operation's (`resources get`). */
  verb?: readonly string[];
  /** One line for `mock-istiod --help`. */
  summary: string;
  /** What the command does, for its `--help`. */
  help: string;
  /** The answer as text (`-o json` prints the answer itself). */
  text(answer: O): string;
  /** An answer that means the command failed (a NACK waited for): it exits 1. */
  fails?(answer: O): boolean;
  /** The field the command reads from a resource file (`-f file`) instead of a flag. */
  file?: { field: string; help: string };
}

/** A button on the live page: its look. The label is the page's message `controls.<name>`. */
export interface ButtonSpec {
  variant?: 'brand' | 'danger' | 'success';
}

export interface Operation<
  N extends string = string,
  I extends FieldSchemas = FieldSchemas,
  O = unknown,
> {
  readonly name: N;
  readonly method: Method;
  /** `/control/faults/:id`: a `:name` segment is the input field of that name. */
  readonly path: string;
  /** One line: the OpenAPI summary and `GET /`'s endpoint list. */
  readonly summary: string;
  /** The fields it takes: from the query of a GET, the JSON body otherwise, and the path. */
  readonly input: I;
  readonly output: Answer<O>;
  /** The status of its success answer, when not 200. */
  readonly success?: 201;
  /** The content type of its answer when it is text, not JSON (a PEM certificate). */
  readonly produces?: string;
  /** What a refusal of bad input calls the request (`invalid push`; default `invalid <name>`). */
  readonly invalid?: string;
  /**
   * Fields it does not name are passed on to `run`, whose target checks the whole input and
   * reports them with every other problem (a fault: the engine lists every problem at once).
   */
  readonly keepUnknown?: boolean;
  /** A JSON body that is not an object of fields: the whole body is this field's value. */
  readonly bodyField?: string;
  /**
   * It answers without the control token (`/healthz`, `/ready`: what a Kubernetes probe asks,
   * which cannot send one). Only for answers that reveal and change nothing.
   */
  readonly public?: true;
  /**
   * The duration field that says how long it may wait before answering (`waitForAck`'s
   * `timeout`), and its default: a client gives the request that long and its own timeout
   * besides.
   */
  readonly waits?: { field: string; defaultMs: number };
  /** Refusals it may answer beyond bad input (400), for the OpenAPI document: why each. */
  readonly refusals?: Readonly<Partial<Record<'408' | '409' | '503', string>>>;
  /** The CLI verb that runs it against a running mock (`mock-istiod push`). */
  readonly cli?: VerbSpec<O>;
  /** A timeline step may run it (`- at: 5s` / `push: {types: [LDS]}`): its key is the name. */
  readonly timeline?: boolean;
  /** A button on the live page runs it. */
  readonly button?: ButtonSpec;
  run(
    target: OperationTarget,
    input: FieldValues<I>,
    context?: RunContext,
  ): O | Refusal | Promise<O | Refusal>;
}

/** What a run may know of its caller. */
export interface RunContext {
  /** Aborted when the caller went away (an HTTP client that disconnected): a wait ends. */
  signal?: AbortSignal;
}

/** The longest a single wait may take: a client's retry loop can wait longer. */
export const MAX_WAIT_MS = 300_000;

/**
 * What an operation that waits declares: its `timeout` field, default `defaultMs` and capped
 * at {@link MAX_WAIT_MS}, and that it may answer 408 (`timedOut` says why) or 503 (the mock
 * closed). `waitMs(timeout)` is the time its run waits.
 */
export function waiting(defaultMs: number, timedOut: string) {
  return {
    timeout: {
      type: 'duration',
      description: `how long to wait (default ${defaultMs / 1000}s, at most ${MAX_WAIT_MS / 1000}s)`,
    },
    waits: { field: 'timeout', defaultMs },
    refusals: { '408': timedOut, '503': 'the mock closed while waiting' },
    waitMs: (timeout: number | undefined) => Math.min(timeout ?? defaultMs, MAX_WAIT_MS),
  } as const;
}

/** Declares an operation, its input's type inferred from its fields. */
export function defineOperation<const N extends string, const I extends FieldSchemas, O>(
  operation: Operation<N, I, O>,
): Operation<N, I, O> {
  return operation;
}

export type InputOf<Op> = Op extends Operation<string, infer I, unknown> ? FieldValues<I> : never;
/** What a caller may pass: the fields as written (a duration as `5s`, a type as `LDS`). */
export type RequestOf<Op> =
  Op extends Operation<string, infer I, unknown> ? RequestFields<I> : never;
export type OutputOf<Op> = Op extends Operation<string, FieldSchemas, infer O> ? O : never;

type IsRequired<S> = S extends { required: true } ? true : false;
type Flatten<T> = { [K in keyof T]: T[K] };

/** A field as a caller writes it: what the field accepts before validation. */
type RequestValue<S> = S extends { type: 'duration' }
  ? number | string
  : S extends { type: 'status' }
    ? number | string
    : S extends { type: 'types' | 'strings' | 'enums' }
      ? string | readonly string[]
      : FieldValue<S>;

export type RequestFields<S extends FieldSchemas> = Flatten<
  { readonly [K in keyof S as IsRequired<S[K]> extends true ? K : never]: RequestValue<S[K]> } & {
    readonly [K in keyof S as IsRequired<S[K]> extends true ? never : K]?: RequestValue<S[K]>;
  }
>;
