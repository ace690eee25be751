/** What one benchmark run produced: the machine, how it was run, and each scenario's results. */
import type { EnvoyLiveResult } from '../scenarios/envoy-live.js';
import type { FleetResults } from '../scenarios/fleet.js';
import type { SetSizeRun } from '../scenarios/set-size.js';
import type { SlowConsumerRun } from '../scenarios/slow-consumer.js';
import type { StartUpResult } from '../scenarios/start-up.js';
import type { StormResults } from '../scenarios/storm.js';
import type { MachineInfo } from './proc.js';
import type { Profile } from './profile.js';

export interface BenchReport {
  profile: Profile['name'];
  startedAt: string;
  finishedAt: string;
  command: string;
  machine: MachineInfo;
  pinning: string;
  results: {
    fleet?: FleetResults | { error: string };
    slow?: SlowConsumerRun[] | { error: string };
    sizes?: SetSizeRun[] | { error: string };
    envoy?: EnvoyLiveResult | { error: string };
    start?: StartUpResult | { error: string };
    storm?: StormResults | { error: string };
  };
}
