/**
 * The label values istiod's metrics use: a resource type as `cds`, `lds`, … (istiod's
 * `GetMetricType`), and a gRPC status code by its Go name (`codes.Code.String()`), which is
 * what istiod writes into the `err` label of `pilot_xds_*_reject`.
 */
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  EXTENSION_CONFIG_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
  SECRET_TYPE,
} from '../xds/type-urls.js';

const METRIC_TYPES: Record<string, string> = {
  [CLUSTER_TYPE]: 'cds',
  [LISTENER_TYPE]: 'lds',
  [ROUTE_TYPE]: 'rds',
  [ENDPOINT_TYPE]: 'eds',
  [SECRET_TYPE]: 'sds',
  [EXTENSION_CONFIG_TYPE]: 'ecds',
};

/** `cds`, `lds`, `rds`, `eds`, `sds`, `ecds`; any other type URL as it is (as istiod does). */
export function metricType(typeUrl: string): string {
  return METRIC_TYPES[typeUrl] ?? typeUrl;
}

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
