/**
 * The seam between a stream's session and the wire: before each response the stream asks
 * the gate whether it may go out now. A held response is not queued; the type stays owed,
 * and when the gate opens the stream sends the version current at that moment.
 *
 * For now the only gate is "withhold" (hold everything until released); the fault layer
 * plugs in here.
 */
export interface GateQuery {
  connectionId: string;
  nodeId: string;
  typeUrl: string;
}

export interface ResponseGate {
  allows(query: GateQuery): boolean;
  /** Called by the gate's owner whenever held responses may now pass. */
  onOpen(listener: () => void): () => void;
}

export interface WithholdGate extends ResponseGate {
  readonly withheld: boolean;
  withhold(): void;
  /** Lets held responses go; returns whether anything was being withheld. */
  release(): boolean;
}

export function createWithholdGate(initiallyWithheld: boolean): WithholdGate {
  let withheld = initiallyWithheld;
  const listeners = new Set<() => void>();
  return {
    get withheld() {
      return withheld;
    },
    allows: () => !withheld,
    onOpen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    withhold() {
      withheld = true;
    },
    release() {
      const was = withheld;
      withheld = false;
      for (const listener of listeners) listener();
      return was;
    },
  };
}
