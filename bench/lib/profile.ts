/**
 * How much each scenario does: `full` is the published run (`npm run bench`); `quick`
 * (`npm run bench:quick`) checks that everything works in a couple of minutes.
 */
export interface Profile {
  name: 'quick' | 'full';
  /** Stream counts of the connect ramp, per protocol (a fresh server for each). */
  fleet: { sotw: readonly number[]; delta: readonly number[] };
  /** Ramps per server and count, each on a fresh server; the report shows their medians. */
  rampRounds: number;
  /** Of those fleets, how many (the first) are pushed to at the fan-out counts. */
  pushRounds: number;
  /** The stream counts at which pushes are timed (a subset of `fleet`). */
  fanout: readonly number[];
  /** Pushes timed at each of those counts. */
  pushes: number;
  slow: { streams: number; clusters: number; pushesBefore: number; pushesAfter: number };
  sizes: { clusters: readonly number[]; streams: number; pushes: number };
  envoyRuns: number;
  /** The reconnect storm: fleets per protocol taken down and up, and the real-Envoy fleet. */
  storm: {
    sotw: readonly number[];
    delta: readonly number[];
    envoys: number;
    /** Outages per fleet (the median is reported). */
    rounds: number;
  };
}

export const PROFILES: Record<Profile['name'], Profile> = {
  quick: {
    name: 'quick',
    fleet: { sotw: [100, 500], delta: [500] },
    rampRounds: 1,
    pushRounds: 1,
    fanout: [500],
    pushes: 5,
    slow: { streams: 50, clusters: 1_000, pushesBefore: 3, pushesAfter: 8 },
    sizes: { clusters: [10, 1_000, 10_000], streams: 10, pushes: 2 },
    envoyRuns: 3,
    storm: { sotw: [1_000], delta: [1_000], envoys: 20, rounds: 3 },
  },
  full: {
    name: 'full',
    fleet: { sotw: [100, 1_000, 5_000], delta: [1_000, 5_000] },
    rampRounds: 5,
    pushRounds: 3,
    fanout: [1_000, 5_000],
    pushes: 10,
    slow: { streams: 200, clusters: 1_000, pushesBefore: 5, pushesAfter: 20 },
    sizes: { clusters: [10, 1_000, 10_000], streams: 100, pushes: 3 },
    envoyRuns: 7,
    storm: { sotw: [1_000, 5_000], delta: [1_000, 5_000], envoys: 20, rounds: 5 },
  },
};
