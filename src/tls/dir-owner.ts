/**
 * Whether a TLS directory is safely the user's own before its keys are used: the CA key signs
 * every workload certificate and the token key every token, so a directory another local user
 * could have filled (a fixed path under /tmp made first by someone else) must not be read.
 *
 * Refused: a directory or key file owned by another user (root excepted: root can change any
 * file anyway), and one that group or others may write. A directory others may write is
 * accepted only with the sticky bit (as a Kubernetes Secret volume is mounted): then no one but
 * a file's owner can replace it, and the files themselves are checked.
 */
import { existsSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { MockIstiodError } from '../util/errors.js';
import type { Problem } from '../util/problems.js';

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

/** The user's own uid, or undefined where there are none (Windows: nothing to check). */
function ownUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

function ownerProblem(
  path: string,
  stats: Stats,
  uid: number,
  planted: string,
): Problem | undefined {
  if (stats.uid === uid || stats.uid === 0) return undefined;
  return {
    path,
    message: `is owned by uid ${stats.uid}, not by you (uid ${uid}): another user could have planted ${planted}; use a directory of your own (--tls-dir)`,
  };
}

function writableProblem(path: string, stats: Stats, risk: string): Problem {
  const mode = (stats.mode & 0o7777).toString(8).padStart(4, '0');
  return {
    path,
    message: `is writable by group or others (mode ${mode}): another user could ${risk}; chmod go-w it, or use a directory of your own (--tls-dir)`,
  };
}

/** The problems of an existing directory and of the files (by name) present in it. */
export function foreignTlsDirProblems(dir: string, files: readonly string[]): Problem[] {
  const uid = ownUid();
  if (uid === undefined) return [];
  const stats = statSync(dir);
  const owner = ownerProblem(dir, stats, uid, 'its keys');
  if (owner) return [owner];
  if (stats.mode & GROUP_OR_OTHER_WRITE && !(stats.mode & STICKY)) {
    return [writableProblem(dir, stats, 'plant keys in it')];
  }
  const problems: Problem[] = [];
  for (const name of files) {
    const path = join(dir, name);
    let file: Stats;
    try {
      file = statSync(path);
    } catch {
      continue; // Not there: the mock makes it.
    }
    const problem =
      ownerProblem(path, file, uid, 'it') ??
      (file.mode & GROUP_OR_OTHER_WRITE ? writableProblem(path, file, 'replace it') : undefined);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** Throws (one line, `INVALID_OPTIONS`) when an existing directory fails the checks above. */
export function assertOwnTlsDir(dir: string, files: readonly string[]): void {
  if (!existsSync(dir)) return;
  const problems = foreignTlsDirProblems(dir, files);
  if (problems.length > 0) {
    throw MockIstiodError.fromProblems('INVALID_OPTIONS', 'invalid TLS directory', problems);
  }
}
