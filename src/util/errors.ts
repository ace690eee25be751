/**
 * The one error class of the package, with a closed set of codes (as connect-es has one
 * `ConnectError` with a `Code`). Every code is listed in `MOCK_ISTIOD_ERROR_CODES` and, with
 * what it means, in the table in docs/errors.md (a unit test checks that the two agree). User
 * mistakes (bad options, bad resources, a bad flag, a port in use) carry a message meant to be
 * printed as one line. It lives on the ground floor so that anything, `waitFor` included,
 * can throw it.
 */
import { formatProblems, type Problem } from './problems.js';

export const MOCK_ISTIOD_ERROR_CODES = [
  'INVALID_OPTIONS',
  'INVALID_RESOURCES',
  'LISTEN_FAILED',
  'NOT_STARTED',
  'CLOSED',
  'USAGE',
  'WAIT_TIMEOUT',
  'JOURNAL_FILE_FAILED',
  'CONTROL_API_FAILED',
  'CONTROL_REFUSED',
  'INVALID_REQUEST',
  'CA_REFUSED',
  'ENVOY_NOT_FOUND',
  'ENVOY_EXITED',
  'ENVOY_ADMIN_FAILED',
  'ENVOY_STATS_INVALID',
  'ISTIO_NOT_FOUND',
] as const;

export type MockIstiodErrorCode = (typeof MOCK_ISTIOD_ERROR_CODES)[number];

/**
 * What `details` carries, for the codes that carry any (the others have `undefined`). The
 * values are plain data, for a program to act on; the message already says it all in words.
 */
export interface MockIstiodErrorDetails {
  /** The last value the probe returned (or the error it threw) before the deadline. */
  WAIT_TIMEOUT: { lastValue: unknown };
  /** The journal file that could not be opened or written. */
  JOURNAL_FILE_FAILED: { path: string };
  /**
   * The control API refused a request (4xx): its HTTP status, the operation asked (when it
   * was one of the table's), and the answer's body (`{error, problems}`).
   */
  CONTROL_REFUSED: { status: number; operation: string | undefined; body: unknown };
  /** The HTTP status the control API answers with (400, 413). */
  INVALID_REQUEST: { status: number };
  /**
   * The gRPC status the CA answers with, the reason sent in `x-mock-istiod-reason`, and what
   * istiod's counters call the failure (`unauthenticated`, or its error type, `CSR_ERROR`, …).
   */
  CA_REFUSED: { grpcStatus: number; reason: string | undefined; outcome: string };
  /** Where Envoy was looked for. */
  ENVOY_NOT_FOUND: { path: string };
  /**
   * How Envoy ended (the shape of `EnvoyExit` in envoy/envoy-exit.ts, spelled out here
   * because this floor imports nothing) and its last log lines.
   */
  ENVOY_EXITED: {
    exit: { code: number | null; signal: NodeJS.Signals | null; error?: Error };
    logTail: string;
  };
  /** The first of pilot-agent, istioctl and Istio's bootstrap template found missing. */
  ISTIO_NOT_FOUND: { path: string };
  /** The HTTP status Envoy's admin API answered with, when it answered. */
  ENVOY_ADMIN_FAILED: { status: number | undefined };
}

/** The `details` of an error with code `C`. */
export type MockIstiodErrorDetailsOf<C extends MockIstiodErrorCode> =
  C extends keyof MockIstiodErrorDetails ? MockIstiodErrorDetails[C] : undefined;

interface ErrorInit {
  /** Every problem found, each with its path (validation codes). */
  problems?: readonly Problem[];
  cause?: unknown;
}

/** The constructor's last argument: `details` is required exactly for codes that carry them. */
type ErrorInitArgs<C extends MockIstiodErrorCode> =
  MockIstiodErrorDetailsOf<C> extends undefined
    ? [init?: ErrorInit]
    : [init: ErrorInit & { details: MockIstiodErrorDetailsOf<C> }];

/** A code that carries no `details` (so an error can be made from problems alone). */
type PlainCode = {
  [C in MockIstiodErrorCode]: MockIstiodErrorDetailsOf<C> extends undefined ? C : never;
}[MockIstiodErrorCode];

export class MockIstiodError<C extends MockIstiodErrorCode = MockIstiodErrorCode> extends Error {
  override readonly name = 'MockIstiodError';
  readonly problems: readonly Problem[];
  readonly details: MockIstiodErrorDetailsOf<C>;

  constructor(
    readonly code: C,
    message: string,
    ...[init]: ErrorInitArgs<C>
  ) {
    super(message, init && 'cause' in init ? { cause: init.cause } : undefined);
    this.problems = init?.problems ?? [];
    this.details = (init as { details?: unknown } | undefined)?.details as typeof this.details;
  }

  /** `<what>: <every problem, with its path>`, keeping the problems for a program to read. */
  static fromProblems(code: PlainCode, what: string, problems: readonly Problem[]) {
    return new MockIstiodError(code, `${what}: ${formatProblems(problems)}`, { problems });
  }
}

/**
 * True when `err` is a `MockIstiodError`, with code `code` if one is given; narrows `details`
 * to that code's.
 */
export function isMockIstiodError<C extends MockIstiodErrorCode = MockIstiodErrorCode>(
  err: unknown,
  code?: C,
): err is MockIstiodError<C> {
  return err instanceof MockIstiodError && (code === undefined || err.code === code);
}
