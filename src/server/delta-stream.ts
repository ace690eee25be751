/**
 * A delta ADS stream (`DeltaAggregatedResources`): each response carries only what the
 * proxy does not have yet, and what it must remove. Resource entries are encoded once per
 * content (src/xds/wire-delta.ts); only the list differs per stream.
 */
import type { RequestOutcome } from '../protocol/sotw-session.js';
import { DeltaSession, type DeltaTypeState } from '../protocol/delta-session.js';
import type { TypeSnapshot } from '../snapshot/snapshot.js';
import { decodeDeltaRequest, encodeDeltaResponse } from '../xds/wire-delta.js';
import { AdsStream, type BuiltResponse } from './ads-stream.js';

export class DeltaStream extends AdsStream {
  readonly protocol = 'delta';
  readonly session = new DeltaSession();

  protected classify(bytes: Buffer): RequestOutcome {
    return this.session.onRequest(decodeDeltaRequest(bytes));
  }

  protected build(
    state: DeltaTypeState,
    snapshot: TypeSnapshot,
    reuseNonce: boolean,
  ): BuiltResponse | undefined {
    const next = this.session.next(state, snapshot, reuseNonce);
    if (!next) return undefined;
    const message = encodeDeltaResponse({
      systemVersion: snapshot.version,
      typeUrl: state.typeUrl,
      resources: next.resources,
      removed: next.removed,
      nonce: next.nonce,
      controlPlaneId: this.ctx.controlPlaneId,
    });
    return { message, version: snapshot.version, nonce: next.nonce, count: next.resources.length };
  }
}
