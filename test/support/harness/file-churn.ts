/**
 * Resource files changing under the watcher while proxies stream: a file rewritten in place
 * in pieces, truncated, replaced by a rename, deleted and recreated, and a directory gaining
 * and losing files. Every complete set written is remembered (its cluster names); every CDS
 * response any proxy receives must be one of them, and each step must be picked up (a
 * complete set served, or a broken one refused and reported) before the next.
 */
import {
  openSync,
  closeSync,
  renameSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { startMockIstiod, type TestMockIstiod } from '../../../src/testing/start.js';
import type { ClientResponse } from '../../../src/testing/ads-client.js';
import { waitFor } from '../../../src/util/wait.js';
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import { VersionRecorder } from '../fixtures/version-recorder.js';

/** A set of clusters as YAML, one block-sequence item per cluster (any line-boundary prefix parses). */
export function clustersYaml(names: readonly string[]): string {
  return names
    .map(
      (name) =>
        `- '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster\n  name: ${name}\n  type: STATIC\n  connect_timeout: 1s\n`,
    )
    .join('');
}

/** The name of an encoded Cluster: field 1, a length-delimited string, comes first. */
export function clusterName(value: Buffer): string {
  if (value[0] !== 0x0a) return '?';
  let length = 0;
  let shift = 0;
  let at = 1;
  for (;;) {
    const byte = value[at++] ?? 0;
    length |= (byte & 0x7f) << shift;
    shift += 7;
    if (byte < 0x80) break;
  }
  return value.subarray(at, at + length).toString('utf8');
}

const key = (names: readonly string[]) => [...names].sort().join(',');

export interface FileChurnOptions {
  /** A file (`<dir>/resources.yaml`) or the directory itself. */
  mode: 'file' | 'dir';
  dir: string;
  steps: number;
  proxies: number;
  random: () => number;
  /** Clusters per set (file mode) or per file (directory mode). */
  clusters: number;
}

export interface FileChurnReport {
  steps: Record<string, number>;
  completeSets: number;
  responses: number;
  /** CDS responses that were not a complete set (must be empty). */
  halfServed: string[];
  /**
   * Those sent while a file was written in pieces and this process paused between two of them
   * longer than the watcher's quiet period: a writer that pauses so long is served what it
   * wrote so far (docs/resources.md), so they are not the watcher's fault.
   */
  excused: string[];
  /** Reloads refused (and reported in `resourceStatus().lastError`). */
  refused: number;
  seconds: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The watcher's quiet period when the server is given none (src/resources/file-source.ts). */
const WATCHER_QUIET_MS = 200;

export class FileChurn {
  private readonly complete = new Set<string>();
  /** Each response that was not a complete set, and the names it carried. */
  private readonly halfServed: { what: string; names: string[] }[] = [];
  /** The sets of the steps whose writer paused past the quiet period (see `excused`). */
  private readonly paused: string[][] = [];
  private generation = 0;
  /** Directory mode: the files there now, each with its clusters. */
  private readonly files = new Map<string, string[]>();
  private refused = 0;

  constructor(private readonly options: FileChurnOptions) {}

  /** Where the server reads from. */
  get path(): string {
    return this.options.mode === 'file'
      ? join(this.options.dir, 'resources.yaml')
      : this.options.dir;
  }

  /** Writes the first complete set(s), before the server starts. */
  prepare(): void {
    if (this.options.mode === 'file') {
      const names = this.nextNames('f');
      writeFileSync(this.path, clustersYaml(names));
      this.remember(names);
      return;
    }
    for (let i = 0; i < 3; i++) this.writeDirFile(`part-${i}.yaml`, this.nextNames(`p${i}`));
    this.remember();
  }

  async run(server: TestMockIstiod): Promise<FileChurnReport> {
    const started = Date.now();
    server.events.on('resources-error', () => (this.refused += 1));
    const recorder = new VersionRecorder(server.xdsAddress, (proxy, response) =>
      this.check(proxy, response),
    );
    recorder.start(this.options.proxies);
    const steps: Record<string, number> = {};
    try {
      for (let step = 0; step < this.options.steps; step++) {
        const name =
          this.options.mode === 'file' ? await this.fileStep(server) : await this.dirStep(server);
        steps[name] = (steps[name] ?? 0) + 1;
      }
      return {
        steps,
        completeSets: this.complete.size,
        responses: recorder.responses,
        halfServed: this.halfServed.filter((h) => !this.partOfPaused(h.names)).map((h) => h.what),
        excused: this.halfServed.filter((h) => this.partOfPaused(h.names)).map((h) => h.what),
        refused: this.refused,
        seconds: (Date.now() - started) / 1000,
      };
    } finally {
      recorder.close();
    }
  }

  private check(proxy: number, response: ClientResponse): void {
    if (response.type_url !== CLUSTER_TYPE) return;
    const names = response.resources.map((r) => clusterName(r.value));
    if (!this.complete.has(key(names))) {
      const what = `proxy ${proxy} got ${response.version_info}: ${key(names)}`;
      this.halfServed.push({ what, names });
    }
  }

  /**
   * Whether `names` could be part of a paused step's file, written so far: each the beginning
   * of one of that step's names (the last may be cut short), all of one step. An empty set is
   * never excused: an empty file is refused, not served.
   */
  private partOfPaused(names: readonly string[]): boolean {
    return (
      names.length > 0 &&
      this.paused.some((set) => names.every((n) => n !== '' && set.some((s) => s.startsWith(n))))
    );
  }

  private nextNames(prefix: string): string[] {
    this.generation += 1;
    return Array.from(
      { length: this.options.clusters },
      (_, i) => `${prefix}-g${this.generation}-c${i}`,
    );
  }

  /** Remembers the set the files hold now as complete. */
  private remember(names?: string[]): string[] {
    const all = names ?? [...this.files.values()].flat();
    this.complete.add(key(all));
    return all;
  }

  /** Waits until the server serves exactly `names`. */
  private async served(
    server: TestMockIstiod,
    names: readonly string[],
    what: string,
  ): Promise<void> {
    const want = key(names);
    await waitFor(
      () =>
        key([...server.snapshot().get(CLUSTER_TYPE).resources.keys()].filter((n) => n !== '')) ===
        want,
      { timeoutMs: 10_000, description: `the watcher to serve the set after "${what}"` },
    );
  }

  /** Waits until the server has refused a reload since `before`. */
  private async refusedSince(before: number, what: string): Promise<void> {
    await waitFor(() => this.refused > before, {
      timeoutMs: 10_000,
      description: `the watcher to refuse and report the files after "${what}"`,
    });
  }

  private async fileStep(server: TestMockIstiod): Promise<string> {
    const kinds = ['pieces', 'rename', 'truncate', 'delete'] as const;
    const kind = kinds[Math.floor(this.options.random() * kinds.length)] ?? 'rename';
    const names = this.nextNames('f');
    const text = clustersYaml(names);
    this.remember(names);
    const before = this.refused;
    let pausedTooLong = false;
    switch (kind) {
      case 'pieces': {
        // In place, in pieces cut anywhere, each within the watcher's quiet period: 20 ms
        // apart, unless this process stalls (a loaded machine), which is then measured.
        const fd = openSync(this.path, 'w');
        let wrote = performance.now();
        const cuts = [
          0,
          ...Array.from({ length: 5 }, () => Math.floor(this.options.random() * text.length)).sort(
            (a, b) => a - b,
          ),
          text.length,
        ];
        for (let i = 1; i < cuts.length; i++) {
          if (performance.now() - wrote >= WATCHER_QUIET_MS) pausedTooLong = true;
          writeSync(fd, text.slice(cuts[i - 1], cuts[i]));
          wrote = performance.now();
          await sleep(20);
        }
        closeSync(fd);
        break;
      }
      case 'rename':
        writeFileSync(`${this.path}.tmp`, text);
        renameSync(`${this.path}.tmp`, this.path);
        break;
      case 'truncate':
        truncateSync(this.path, 0);
        await this.refusedSince(before, 'truncate');
        writeFileSync(this.path, text);
        break;
      case 'delete':
        unlinkSync(this.path);
        await this.refusedSince(before, 'delete');
        writeFileSync(this.path, text);
        break;
    }
    await this.served(server, names, kind);
    if (pausedTooLong) this.paused.push(names);
    return kind;
  }

  private writeDirFile(name: string, names: string[]): void {
    const tmp = join(this.options.dir, `.${name}.tmp`);
    writeFileSync(tmp, clustersYaml(names));
    renameSync(tmp, join(this.options.dir, name));
    this.files.set(name, names);
  }

  private async dirStep(server: TestMockIstiod): Promise<string> {
    const present = [...this.files.keys()];
    const roll = this.options.random();
    let kind: string;
    if (present.length > 1 && roll < 0.35) {
      kind = 'remove a file';
      const name = present[Math.floor(this.options.random() * present.length)] as string;
      unlinkSync(join(this.options.dir, name));
      this.files.delete(name);
    } else if (roll < 0.7) {
      kind = 'add a file';
      const name = `part-${this.generation}.yaml`;
      this.writeDirFile(name, this.nextNames(`p${this.generation}`));
    } else {
      kind = 'replace a file';
      const name = present[Math.floor(this.options.random() * present.length)] as string;
      this.writeDirFile(name, this.nextNames(name.replace('.yaml', '')));
    }
    await this.served(server, this.remember(), kind);
    return kind;
  }
}

export interface SlowWriterOptions {
  dir: string;
  rounds: number;
  /** The writer's pause between pieces. */
  gapMs: number;
  /** The server's `resourcesQuietMs`. */
  quietMs: number;
  random: () => number;
}

/**
 * A writer that writes each file in place in 4 pieces cut anywhere, pausing `gapMs` after
 * each: how many of its half-written files the server served (and how many it refused).
 */
export async function slowWriter(
  options: SlowWriterOptions,
): Promise<{ served: number; refused: number }> {
  const file = join(options.dir, 'resources.yaml');
  writeFileSync(file, clustersYaml(['start']));
  const server = await startMockIstiod({ resourcesPath: file, resourcesQuietMs: options.quietMs });
  let refused = 0;
  server.events.on('resources-error', () => (refused += 1));
  let served = 0;
  const clusters = () => server.snapshot().get(CLUSTER_TYPE).resources;
  try {
    for (let round = 0; round < options.rounds; round++) {
      const names = Array.from({ length: 20 }, (_, i) => `slow-${round}-c${i}`);
      const text = clustersYaml(names);
      const cuts = [1, 2, 3]
        .map(() => Math.floor(options.random() * text.length))
        .sort((a, b) => a - b);
      const fd = openSync(file, 'w');
      for (const [i, end] of [...cuts, text.length].entries()) {
        writeSync(fd, text.slice(cuts[i - 1] ?? 0, end));
        await sleep(options.gapMs);
        const now = clusters();
        if (end < text.length && now.has(names[0] as string) && now.size < names.length)
          served += 1;
      }
      closeSync(fd);
      await waitFor(
        () => clusters().size === names.length && clusters().has(names.at(-1) as string),
        {
          description: `the whole file of round ${round} to be served`,
        },
      );
    }
    return { served, refused };
  } finally {
    await server.close();
  }
}
