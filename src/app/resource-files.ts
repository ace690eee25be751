/**
 * Serving resource sets from files (`--resources path`): the first load must succeed; each
 * later change is reloaded (debounced) and, if valid, installed and pushed; if not, every
 * problem is logged, reported as an event and kept in `status()`, and the last good sets keep
 * serving.
 */
import type { Logger } from 'pino';
import { loadAndValidate, watchResources, type ValidatedFiles } from '../resources/file-source.js';
import { CLOSING_MESSAGE, type LoadingThread } from '../resources/file-thread.js';
import type { SnapshotStore } from '../snapshot/store.js';
import { pinWarnings } from '../snapshot/pin-warnings.js';
import type { SnapshotChange } from '../core/snapshot.js';
import { formatProblems, type Problem, type Result } from '../util/problems.js';
import { MockIstiodError } from '../util/errors.js';
import type { ServerEventEmitter } from '../core/events.js';
import type { ResourceStatus } from '../resources/status.js';

/** Loads the files once, for start-up: problems throw, one line each. */
export function loadInitialSets(path: string): ValidatedFiles {
  const loaded = loadAndValidate(path);
  if (!loaded.ok) {
    const list = loaded.problems.map((p) => `\n  ${p.path}: ${p.message}`).join('');
    throw new MockIstiodError('INVALID_RESOURCES', `invalid resource files:${list}`, {
      problems: loaded.problems,
    });
  }
  return loaded.value;
}

/** One log line per warning, naming where it is: the same for files and for the API. */
export function logResourceWarnings(log: Logger, warnings: readonly Problem[]): void {
  for (const w of warnings) log.warn({ path: w.path }, `resources: ${w.message}`);
}

type Reloaded = Result<SnapshotChange[]>;

export class ResourceFiles {
  private stopWatching: (() => void) | undefined;
  /** The load running now, and the one asked for while it runs (at most one waits). */
  private running: Promise<Reloaded> | undefined;
  private waiting: Promise<Reloaded> | undefined;
  private closed = false;
  status: ResourceStatus;

  constructor(
    private readonly path: string,
    initial: ValidatedFiles,
    private readonly store: SnapshotStore,
    private readonly events: ServerEventEmitter,
    private readonly log: Logger,
    /** The thread reloads load on (file-thread.ts): its owner closes it. */
    private readonly loader: LoadingThread,
  ) {
    this.status = {
      source: path,
      loadedAt: new Date().toISOString(),
      warnings: initial.warnings,
      lastError: undefined,
    };
    logResourceWarnings(log, initial.warnings);
  }

  watch(debounceMs?: number): void {
    this.stopWatching ??= watchResources(this.path, {
      debounceMs,
      onChange: () => this.reloadFromWatch(),
    });
  }

  /**
   * A reload from the watcher's timer: nothing may be thrown out of it (that would end the
   * process). A failure the load itself did not turn into problems is reported as one.
   */
  private reloadFromWatch(): void {
    this.reload().catch((err: unknown) => {
      const problems = [{ path: this.path, message: `reload failed: ${String(err)}` }];
      this.status = { ...this.status, lastError: { at: new Date().toISOString(), problems } };
      try {
        this.log.error(
          { path: this.path, err },
          'resources: reload failed, still serving the last good set',
        );
        this.events.emit('resources-error', this.path, problems);
      } catch {
        // A listener or a log write that fails has nowhere further to report to.
      }
    });
  }

  /**
   * Loads the files again; on success installs the sets (pushing what changed). One load runs
   * at a time: a reload asked for while one runs is done once after it (the files may have
   * changed since it read them), however many ask for it meanwhile.
   */
  reload(): Promise<Reloaded> {
    if (!this.running) {
      this.running = this.load().finally(() => (this.running = undefined));
      return this.running;
    }
    const next = () => {
      this.waiting = undefined;
      return this.reload();
    };
    this.waiting ??= this.running.then(next, next);
    return this.waiting;
  }

  private async load(): Promise<Reloaded> {
    const loaded = await this.loader.load(this.path);
    if (this.closed) {
      return {
        ok: false,
        problems: [{ path: this.path, message: CLOSING_MESSAGE }],
      };
    }
    if (!loaded.ok) {
      const { problems } = loaded;
      this.status = { ...this.status, lastError: { at: new Date().toISOString(), problems } };
      this.log.error(
        { path: this.path, problems },
        `resources: reload failed, still serving the last good set: ${formatProblems(problems)}`,
      );
      this.events.emit('resources-error', this.path, problems);
      return loaded;
    }
    const changes = this.store.install(loaded.value.sets);
    // A pinned version the files send again with other content is served, and said.
    const warnings = [...loaded.value.warnings, ...pinWarnings(changes)];
    this.status = {
      source: this.path,
      loadedAt: new Date().toISOString(),
      warnings,
      lastError: undefined,
    };
    const changed = changes.flatMap((c) => c.changed);
    this.log.info({ path: this.path, changed }, 'resources: reloaded');
    logResourceWarnings(this.log, warnings);
    this.events.emit('resources-reloaded', this.path, changes);
    return { ok: true, value: changes };
  }

  close(): void {
    this.closed = true;
    this.stopWatching?.();
    this.stopWatching = undefined;
  }
}
