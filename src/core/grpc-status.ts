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
