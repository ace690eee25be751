/**
 * istiod-style version strings: the push time in RFC 3339 (seconds) and a push counter,
 * e.g. `2026-08-22T20:00:00Z/7`. Each change of the resource set is one push.
 */
export type Clock = () => Date;

/**
 * How versions are given out.
 * - `push` (istiod's, the default): one version per push, shared by every type of every set.
 *   A change of any resource is a full push: every type a stream watches is sent again at
 *   the new version, changed or not, and in delta every resource it watches (istiod's
 *   resources carry no version of their own). Conformance: "Pushes" and "Versions and
 *   nonces" (test/conformance/cases/versions-*.ts).
 * - `per-type` (the mock's former scheme): each type keeps its version until its own
 *   resources change; only changed types are sent again, delta sends only changed resources
 *   and gives each a content version. Conformance: test/conformance/per-type-versions.test.ts.
 */
export { VERSIONINGS, type Versioning } from '../core/snapshot.js';

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
