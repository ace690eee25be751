/**
 * `serve`'s fault flags: `--fault <spec>` (repeatable) applies faults at start, and
 * `--scenario <file.yaml>` replays a timeline. Both are validated before the server starts,
 * so a mistake is one line naming the flag and the field, and nothing listens.
 */
import { readFileSync } from 'node:fs';
import { parseFaultFlag } from '../../faults/flag-spec.js';
import { resolveFault, type ResolvedFault } from '../../faults/spec.js';
import { parseTimeline, type Timeline } from '../../timelines/timeline.js';
import { formatProblems } from '../../util/problems.js';
import { MockIstiodError } from '../../util/errors.js';

export const FAULT_USAGE = `  --fault <spec>           apply a fault at start (repeatable): JSON, or
                           scenario[:key=value,…], e.g. delay:ms=2s,jitter=500ms or
                           withhold:types=LDS (see docs/faults.md)
  --scenario <file.yaml>   replay a timeline of timed fault steps (see docs/faults.md)
`;

export interface FaultFlags {
  /** Each `--fault` as written (for messages) and resolved, ready for the engine. */
  faults: { text: string; fault: ResolvedFault }[];
  timeline: Timeline | undefined;
}

export function parseFaultFlags(
  faults: readonly string[] | undefined,
  scenarioFile: string | undefined,
): FaultFlags {
  const parsed = (faults ?? []).map((text) => {
    const spec = parseFaultFlag(text);
    const resolved = spec.ok ? resolveFault(spec.value, '', { fromText: true }) : spec;
    if (!resolved.ok)
      throw new MockIstiodError('USAGE', `--fault "${text}": ${formatProblems(resolved.problems)}`);
    return { text, fault: resolved.value };
  });
  return { faults: parsed, timeline: scenarioFile ? readTimeline(scenarioFile) : undefined };
}

function readTimeline(file: string): Timeline {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new MockIstiodError('USAGE', `--scenario: cannot read ${file} (${code})`);
  }
  const timeline = parseTimeline(text);
  if (!timeline.ok)
    throw new MockIstiodError('USAGE', `--scenario ${file}: ${formatProblems(timeline.problems)}`);
  return timeline.value;
}
