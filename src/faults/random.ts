/**
 * A small seeded pseudo-random generator (mulberry32) for jittered delays: the same seed
 * gives the same sequence on every machine and every run, so a failing run can be replayed.
 * Not for anything security-related.
 */
export type Random = () => number;

/** A generator of numbers in [0, 1) from a 32-bit integer seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `ms` ± up to `jitterMs`, uniformly, never below zero (toxiproxy's latency ± jitter). */
export function jittered(random: Random, ms: number, jitterMs: number): number {
  if (jitterMs <= 0) return ms;
  return Math.max(0, Math.round(ms + (random() * 2 - 1) * jitterMs));
}
