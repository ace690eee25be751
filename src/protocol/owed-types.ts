/**
 * The types a session owes a response: a bit for each type of ADS_ORDER, and a set for any
 * other type, made only when one is owed. It answers the next type to send, in ADS order.
 * An idle stream's `Set` of owed types kept an empty table of about 150 bytes; this is two
 * fields of the session (docs/BENCHMARKS.md).
 */
import { ADS_ORDER } from '../core/types/registry.js';

if (ADS_ORDER.length > 30) throw new Error('ADS_ORDER has more types than OwedTypes has bits');
const BIT = new Map(ADS_ORDER.map((typeUrl, i) => [typeUrl, 1 << i]));

export class OwedTypes {
  private bits = 0;
  private others: Set<string> | undefined;

  isEmpty(): boolean {
    return this.bits === 0 && !this.others?.size;
  }

  has(typeUrl: string): boolean {
    const bit = BIT.get(typeUrl);
    return bit === undefined ? this.others?.has(typeUrl) === true : (this.bits & bit) !== 0;
  }

  add(typeUrl: string): void {
    const bit = BIT.get(typeUrl);
    if (bit !== undefined) this.bits |= bit;
    else (this.others ??= new Set()).add(typeUrl);
  }

  delete(typeUrl: string): void {
    const bit = BIT.get(typeUrl);
    if (bit !== undefined) this.bits &= ~bit;
    else this.others?.delete(typeUrl);
  }

  /** The first owed type among `allowed`: in ADS order, then the others as they were owed. */
  first(allowed: (typeUrl: string) => boolean): string | undefined {
    // Plain loops: this runs for every response of every push.
    for (let i = 0; this.bits >>> i !== 0; i++) {
      const typeUrl = ADS_ORDER[i] as string;
      if ((this.bits & (1 << i)) !== 0 && allowed(typeUrl)) return typeUrl;
    }
    if (this.others) for (const typeUrl of this.others) if (allowed(typeUrl)) return typeUrl;
    return undefined;
  }
}
