/**
 * A state-of-the-world ADS stream (`StreamAggregatedResources`): every response carries the
 * full set (or the requested names), assembled from the body encoded once per version plus
 * this response's nonce.
 */
import { SotwSession } from '../protocol/sotw-session.js';
import { nextNonce } from '../protocol/session.js';
import type { TypeState } from '../core/stream-state.js';
import type { TypeSnapshot } from '../core/snapshot.js';
import { decodeDiscoveryRequest, encodeResponseBody, type DiscoveryRequest } from '../xds/wire.js';
import type { DebugBody } from './ads-stream.js';
import { StreamWriter, withNonce, type BuiltResponse } from './stream-writer.js';

export class SotwStream extends StreamWriter<DiscoveryRequest, SotwSession> {
  readonly protocol = 'sotw';

  protected newSession(): SotwSession {
    return new SotwSession(undefined, this.ctx.nackTextMax, this.ctx.profile === 'xds-spec');
  }

  protected decode(bytes: Buffer): DiscoveryRequest {
    return decodeDiscoveryRequest(bytes);
  }

  protected encodeDebug(debug: DebugBody): Buffer {
    return encodeResponseBody(debug.version, debug.typeUrl, debug.resources, debug.identifier);
  }

  protected build(state: TypeState, snapshot: TypeSnapshot, reuseNonce: boolean): BuiltResponse {
    const names = this.session.responseNames(state, snapshot.resources);
    // istiod sends an empty resource for each name it has nothing of (EDS, RDS).
    const fillMissing = this.ctx.omitMissingResources !== true;
    const nonce = nextNonce(state, reuseNonce, snapshot.version);
    const { message, frame } = withNonce(snapshot.body(names, fillMissing), nonce);
    const count = snapshot.count(names, fillMissing);
    this.session.recordSent(state.typeUrl, snapshot.version, nonce, count, snapshot.resources);
    return { message, frame, version: snapshot.version, nonce, count };
  }
}
