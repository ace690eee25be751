/**
 * istiod-style version strings: the push time in RFC 3339 (seconds) and a push counter,
 * e.g. `2026-08-22T20:00:00Z/7`. Each change of the resource set is one push.
 */
export type Clock = () => Date;

export interface Versioner {
  next(): string;
}

export function createVersioner(clock: Clock = () => new Date()): Versioner {
  let counter = 0;
  return {
    next() {
      counter += 1;
      const stamp = clock()
        .toISOString()
        .replace(/\.\d+Z$/, 'Z');
      return `${stamp}/${counter}`;
    },
  };
}
