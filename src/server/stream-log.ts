/**
 * The terminal line for each classified request, in istiod's wording where it has one
 * (`ADS:LDS: ACK ERROR <conId> <code>:<message>`).
 */
import { grpcStatusName } from '../core/grpc-status.js';
import type { Logger } from 'pino';
import type { RequestOutcome } from '../core/stream-state.js';
import type { Snapshot } from '../core/snapshot.js';
import { shortTypeName } from '../core/types/registry.js';

/**
 * A gRPC code as Go's `codes.Code` prints it (`Internal`, `InvalidArgument`), as istiod's
 * ACK ERROR line does (conformance case "Log lines"); a code Go has no name for, as Go does.
 */
export function goCodeName(code: number): string {
  const name = grpcStatusName(code);
  if (name === undefined) return `Code(${code})`;
  if (name === 'OK') return 'OK';
  if (name === 'CANCELLED') return 'Canceled';
  return name
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

export function logOutcome(
  log: Logger,
  conId: string,
  outcome: RequestOutcome,
  snapshot: Snapshot | undefined,
): void {
  if (outcome.kind === 'rejected') return;
  // Every request of every stream comes here: at warn (a fleet's level) only a NACK is
  // written, so nothing else builds its fields and message only for pino to drop them.
  if (outcome.kind !== 'nack' && !log.isLevelEnabled('info')) return;
  const type = shortTypeName(outcome.typeUrl);
  switch (outcome.kind) {
    case 'nack':
      log.warn(
        { conId, type, version: outcome.nack.version, code: outcome.nack.code },
        `ADS:${type}: ACK ERROR ${conId} ${goCodeName(outcome.nack.code)}:${outcome.nack.message.trimEnd()}`,
      );
      return;
    case 'stale':
      log.debug(
        { conId, type, nonce: outcome.nonce, expected: outcome.expected },
        `ADS:${type}: expired nonce`,
      );
      return;
    case 'ack':
      log.info(
        { conId, type, version: outcome.version },
        `ADS:${type}: ACK ${conId} ${outcome.version}`,
      );
      return;
    case 'reconnect':
      log.info(
        { conId, type, version: outcome.version },
        `ADS:${type}: RECONNECT ${conId} ${outcome.version}`,
      );
      return;
    case 'unsubscribe':
      // Nothing is sent: the proxy dropped these names (or, in SotW, the whole watch).
      log.debug(
        { conId, type, names: outcome.names },
        `ADS:${type}: UNSUBSCRIBE ${conId} ${outcome.names.join(',')}`,
      );
      return;
    default:
      if (snapshot && !snapshot.has(outcome.typeUrl)) {
        log.info(
          { conId, typeUrl: outcome.typeUrl },
          'ADS: no resources of this type; answering with an empty response',
        );
      }
      log.debug({ conId, type, kind: outcome.kind }, `ADS:${type}: REQ ${conId}`);
  }
}

/** A size as istiod's logs write it (pilot/pkg/networking/util ByteCount): `980B`, `3.2kB`. */
export function byteCount(bytes: number): string {
  if (bytes < 1000) return `${bytes}B`;
  let div = 1000;
  let exp = 0;
  for (let n = Math.floor(bytes / 1000); n >= 1000; n = Math.floor(n / 1000)) {
    div *= 1000;
    exp += 1;
  }
  return `${(bytes / div).toFixed(1)}${'kMGTPE'[exp]}B`;
}
