/**
 * Loads Envoy's API protos with protobufjs reflection.
 *
 * The .proto files come from the `@grpc/grpc-js-xds` package's `deps/` folders (Envoy API,
 * googleapis, protoc-gen-validate, cncf/xds) at install time; none are copied into this
 * repository. The project's own protos (`proto/`) are searched too.
 */
import { accessSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { packageRoot } from '../util/package-root.js';
import { loadPreparedTypes } from './prepared-types.js';

const require = createRequire(import.meta.url);

function includeDirs(): string[] {
  const xdsPackage = dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
  const deps = ['envoy-api', 'googleapis', 'protoc-gen-validate', 'xds'].map((d) =>
    join(xdsPackage, 'deps', d),
  );
  return [join(packageRoot(), 'proto'), ...deps];
}

/**
 * The Envoy messages loaded at start. Every type reachable from these files can be packed
 * into an `Any`; an `@type` outside them is reported as unknown rather than silently encoded
 * as an empty message.
 */
export const ENVOY_PROTO_FILES = [
  'envoy/service/discovery/v3/ads.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/config/bootstrap/v3/bootstrap.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/network/tcp_proxy/v3/tcp_proxy.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/extensions/filters/http/fault/v3/fault.proto',
  'envoy/extensions/filters/http/health_check/v3/health_check.proto',
  'envoy/extensions/filters/listener/original_dst/v3/original_dst.proto',
  'envoy/extensions/filters/listener/tls_inspector/v3/tls_inspector.proto',
  'envoy/extensions/filters/listener/http_inspector/v3/http_inspector.proto',
  'envoy/extensions/transport_sockets/tls/v3/tls.proto',
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
  'envoy/extensions/access_loggers/file/v3/file.proto',
  'envoy/extensions/access_loggers/stream/v3/stream.proto',
  // istiod's debug types over ADS answer with CSDS's ClientConfig and admin config dumps.
  'envoy/service/status/v3/csds.proto',
  'envoy/admin/v3/config_dump.proto',
  // The upstream extensions an Istio sidecar's configuration names, so that a captured
  // config_dump imports (docs/import.md); about 40 ms more to load.
  'envoy/extensions/filters/http/cors/v3/cors.proto',
  'envoy/extensions/filters/http/grpc_stats/v3/config.proto',
  'envoy/extensions/filters/http/grpc_web/v3/grpc_web.proto',
  'envoy/extensions/filters/http/rbac/v3/rbac.proto',
  'envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto',
  'envoy/extensions/filters/http/jwt_authn/v3/config.proto',
  'envoy/extensions/filters/http/ext_authz/v3/ext_authz.proto',
  'envoy/extensions/filters/http/compressor/v3/compressor.proto',
  'envoy/extensions/filters/http/lua/v3/lua.proto',
  'envoy/extensions/filters/http/wasm/v3/wasm.proto',
  'envoy/extensions/filters/network/wasm/v3/wasm.proto',
  'envoy/extensions/filters/network/rbac/v3/rbac.proto',
  'envoy/extensions/filters/network/connection_limit/v3/connection_limit.proto',
  'envoy/extensions/filters/network/set_filter_state/v3/set_filter_state.proto',
  'envoy/extensions/filters/listener/proxy_protocol/v3/proxy_protocol.proto',
  'envoy/extensions/transport_sockets/raw_buffer/v3/raw_buffer.proto',
  'envoy/extensions/transport_sockets/internal_upstream/v3/internal_upstream.proto',
  'envoy/extensions/request_id/uuid/v3/uuid.proto',
  'envoy/extensions/retry/host/previous_hosts/v3/previous_hosts.proto',
  'envoy/config/trace/v3/zipkin.proto',
  'udpa/type/v1/typed_struct.proto',
  'xds/type/v3/typed_struct.proto',
  // Istio's CA service (this project's proto/), served beside ADS (src/ca/ca-proto.ts).
  'istio-ca.proto',
];

let cached: protobuf.Root | undefined;

/**
 * The shared, fully resolved protobufjs root, loaded once per process: from the types prepared
 * at build time when they are there and fresh (src/xds/prepared-types.ts), else by parsing the
 * .proto files (about twice as long).
 */
export function envoyRoot(): protobuf.Root {
  cached ??= loadPreparedTypes(ENVOY_PROTO_FILES) ?? loadRoot(ENVOY_PROTO_FILES);
  return cached;
}

/** Loads the given files (paths relative to the include dirs) into a new resolved root. */
export function loadRoot(files: readonly string[]): protobuf.Root {
  registerDescriptorProtos();
  const dirs = includeDirs();
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const dir of dirs) {
      const candidate = join(dir, target);
      try {
        accessSync(candidate);
        return candidate;
      } catch {
        // Not in this include dir: try the next one.
      }
    }
    // protobufjs serves google/protobuf/*.proto itself (see registerDescriptorProtos).
    return target;
  };
  root.loadSync([...files], { keepCase: true });
  root.resolveAll();
  return root;
}

let descriptorsRegistered = false;

/** protobufjs knows `any.proto`, `duration.proto`, …; `descriptor.proto` must be added. */
function registerDescriptorProtos(): void {
  if (descriptorsRegistered) return;
  descriptorsRegistered = true;
  for (const name of ['descriptor', 'api', 'source_context', 'type']) {
    const json = require(`protobufjs/google/protobuf/${name}.json`) as {
      nested: { google: { nested: { protobuf: { nested: protobuf.INamespace['nested'] } } } };
    };
    protobuf.common(name, json.nested.google.nested.protobuf.nested ?? {});
  }
}

/** Looks up a message type by full name (`envoy.config.cluster.v3.Cluster`), or undefined. */
export function findMessageType(
  name: string,
  root: protobuf.Root = envoyRoot(),
): protobuf.Type | undefined {
  try {
    return root.lookupType(name);
  } catch {
    return undefined;
  }
}
