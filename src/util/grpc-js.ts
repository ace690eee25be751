/**
 * grpc-js, loaded the first time something needs it (util/lazy-require.ts). The default
 * plaintext port is served on `node:http2` (server/h2-transport.ts), so a mock on it never
 * needs grpc-js: its modules took about 40 ms of the library's import (docs/BENCHMARKS.md,
 * start-up). TLS ports, the relay's and the CA's clients, and the test clients load it when
 * they are made. Every value from grpc-js comes through here; other modules import its types
 * only (test/unit/grpc-js-lazy.test.ts checks both).
 */
import type * as GrpcJs from '@grpc/grpc-js';
import { lazyRequire } from './lazy-require.js';

const load = lazyRequire<typeof GrpcJs>(import.meta.url, '@grpc/grpc-js');
let quiet = false;

export function grpcJs(): typeof GrpcJs {
  const grpc = load();
  if (quiet) {
    quiet = false;
    grpc.setLogVerbosity(grpc.logVerbosity.NONE);
  }
  return grpc;
}

/**
 * Silences grpc-js's own logging (the CLI's: what it has to say reaches the user through the
 * mock's log), when it loads, so that asking does not load it.
 */
export function quietGrpcJs(): void {
  quiet = true;
}
