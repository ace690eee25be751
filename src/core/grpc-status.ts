/**
 * gRPC status codes by the names grpc-js gives them (`UNAVAILABLE`, `PERMISSION_DENIED`), for
 * input that names a status and for answers that show one. Kept here rather than read from
 * grpc-js so that what validates input (core/fields.ts) loads no gRPC code: the live page and
 * the control client share it.
 */
export const GRPC_STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/**
 * The codes by name, as grpc-js's `status` enum has them (the gRPC spec's numbers), without
 * loading grpc-js (util/grpc-js.ts).
 */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const satisfies Record<(typeof GRPC_STATUS_NAMES)[number], number>;

/** A status by name (any case) or number 0-16, or undefined. */
export function parseGrpcStatus(raw: unknown): number | undefined {
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= 16) return raw;
  if (typeof raw !== 'string') return undefined;
  const code = (GRPC_STATUS_NAMES as readonly string[]).indexOf(raw.toUpperCase());
  return code >= 0 ? code : undefined;
}

/** The name of a gRPC status code (`14` → `UNAVAILABLE`). */
export function grpcStatusName(code: number): string {
  return GRPC_STATUS_NAMES[code] ?? String(code);
}
