/**
 * gRPC status codes by their Go names (`codes.Code.String()`), which is what istiod writes
 * into the `err` label of `pilot_xds_*_reject`.
 */
/** Go's names of the gRPC status codes (google.golang.org/grpc/codes). */
const GRPC_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
] as const;

/** `Internal` for 13, `Code(99)` for codes gRPC does not define (Go's formatting). */
export function grpcCodeName(code: number): string {
  return GRPC_CODE_NAMES[code] ?? `Code(${code})`;
}
