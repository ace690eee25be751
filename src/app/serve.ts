/**
 * `mock-istiod serve`'s one entry point. The CLI turns its flags into a plan; this makes the
 * resources the plan names (the lab, a captured config_dump imported, or what istiod itself
 * generates for a pod, each reported in the log), the mock, its journal file, and the faults
 * and timeline applied at start; `stop()` undoes them in reverse. Messages name the flags a
 * user wrote, since a plan only comes from them.
 */
import { reenact } from './reenact.js';
import { firstStates, lastStates, readRecording, type ReplayedNode } from './replay.js';
import type { Logger } from 'pino';
import { generateForPod, type GenerateOptions } from '../generate/generate.js';
import { generatedLines } from '../generate/generated-lines.js';
import type { ImportOptions } from '../import/import-dump.js';
import { importDumpFile } from '../import/import-file.js';
import { formatReport } from '../import/report.js';
import { openJournalFile, type JournalFile } from '../journal/file-sink.js';
import type { ResolvedFault } from '../faults/spec.js';
import { makeLabResources, type LabOptions } from '../resources/lab.js';
import { targetOf } from '../target/operation-target.js';
import type { Timeline } from '../timelines/timeline.js';
import { runTimeline } from '../timelines/timeline-runner.js';
import { isMockIstiodError, MockIstiodError } from '../util/errors.js';
import { formatProblems } from '../util/problems.js';
import { createMockIstiod } from './mock-istiod.js';
import type { MockIstiod, StartedAddresses } from './mock-istiod-api.js';
import type { MockIstiodOptions } from './options.js';

/** Where the resources come from. */
export type ServeSource =
  | { kind: 'lab'; lab: Partial<LabOptions> }
  | { kind: 'config-dump'; file: string; rewrites: Partial<ImportOptions> }
  | { kind: 'istio'; generate: GenerateOptions }
  | { kind: 'replay'; file: string; timeline?: boolean };

export interface ServePlan {
  /** The mock's options but its resources; `logger` is where everything here is logged. */
  options: Partial<MockIstiodOptions> & { logger: Logger };
  source: ServeSource;
  /** `--journal`: every request and response to this file as JSON lines. */
  journalFile?: string;
  /** `--fault`: each as written (for messages) and resolved. */
  faults: readonly { text: string; fault: ResolvedFault }[];
  /** `--scenario`. */
  timeline?: Timeline;
}

export interface Serving {
  readonly mock: MockIstiod;
  readonly started: StartedAddresses;
  /** Stops the timeline, closes the mock, then flushes the journal file. */
  readonly stop: () => Promise<void>;
}

export async function serveMockIstiod(plan: ServePlan): Promise<Serving> {
  const log = plan.options.logger;
  const { source } = plan;
  const recording = source.kind === 'replay' ? readRecording(source.file) : undefined;
  const timeline = source.kind === 'replay' && source.timeline === true;
  const resources =
    source.kind === 'replay'
      ? replayResources(recording ?? [], source.file, timeline, log)
      : await resourcesOf(source, log);
  const mock = createMockIstiod({ ...plan.options, resources });
  const journal = await attachJournalFile(plan.journalFile, mock, log);
  const started = await mock.start();
  const stopTimeline = await startFaults(mock, plan, log);
  const replay = recording && timeline ? reenact(mock, recording, log) : undefined;
  return {
    mock,
    started,
    stop: async () => {
      replay?.stop();
      stopTimeline();
      await mock.close();
      await closeJournalFile(journal, log);
    },
  };
}

async function resourcesOf(source: Exclude<ServeSource, { kind: 'replay' }>, log: Logger) {
  switch (source.kind) {
    case 'lab':
      return makeLabResources(source.lab);
    case 'config-dump': {
      const imported = importDumpFile(source.file, source.rewrites);
      log.info(`importing ${source.file}`);
      for (const line of formatReport(imported.report)) log.info(`import: ${line.trim()}`);
      return [imported.spec];
    }
    case 'istio': {
      const generated = await generateForPod(source.generate);
      for (const line of generatedLines(generated)) log.info(`generate: ${line.trim()}`);
      return [generated.imported.spec];
    }
  }
}

/** A recording's first states (re-enacted) or its last ones. */
function replayResources(
  recording: readonly ReplayedNode[],
  file: string,
  timeline: boolean,
  log: Logger,
) {
  const nodes = recording.map((n) => n.node);
  if (timeline) {
    const steps = recording.reduce((sum, n) => sum + n.steps.length, 0);
    log.info({ nodes, steps }, `replaying ${file} on its timeline`);
    return firstStates(recording);
  }
  log.info({ nodes }, `replaying ${file}: the last state`);
  return lastStates(recording);
}

/** Opens the journal file (if asked) and feeds it from the mock's journal. */
async function attachJournalFile(
  path: string | undefined,
  mock: MockIstiod,
  log: Logger,
): Promise<JournalFile | undefined> {
  if (path === undefined || path === '') return undefined;
  let file: JournalFile;
  try {
    file = await openJournalFile(path, {
      onError: (err) =>
        log.error(
          { err: err.message, path },
          'journal file: writing stopped, xDS keeps serving (GET /debug/journal/sinks)',
        ),
    });
  } catch (err) {
    if (isMockIstiodError(err, 'JOURNAL_FILE_FAILED')) {
      throw new MockIstiodError('USAGE', `--journal: ${err.message}`);
    }
    throw err;
  }
  mock.journal.addSink(file.sink, () => file.status());
  log.info({ path }, 'journal: writing every request and response');
  return file;
}

/** Flushes the file and says if lines were lost. */
async function closeJournalFile(file: JournalFile | undefined, log: Logger): Promise<void> {
  if (!file) return;
  await file.close();
  if (file.dropped > 0) {
    log.warn({ path: file.path, dropped: file.dropped }, 'journal: some lines were not written');
  }
}

/** Applies the faults and starts the timeline; returns what stops the timeline. */
async function startFaults(mock: MockIstiod, plan: ServePlan, log: Logger): Promise<() => void> {
  const target = targetOf(mock);
  for (const { text, fault } of plan.faults) {
    const applied = await target.faults.applyResolved(fault);
    if (!applied.ok)
      throw new MockIstiodError('USAGE', `--fault "${text}": ${formatProblems(applied.problems)}`);
    log.warn(
      { fault: applied.value.id, scenario: applied.value.scenario },
      `fault applied: ${text}`,
    );
  }
  if (!plan.timeline) return () => undefined;
  const run = runTimeline(target, plan.timeline, log);
  return () => run.stop();
}
