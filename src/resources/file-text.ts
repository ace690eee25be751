/**
 * Reading one resource file safely: what a watched directory holds is not always a text file
 * (a symlink to a directory, a FIFO, a device, a file being written, a file of another
 * encoding), and a YAML document can ask for more than it is worth (aliases expanded over and
 * over, nesting deeper than the parser's stack). Each of these is refused as a problem naming
 * the file; none throws, so that a reload from the watcher's timer never ends the process.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import type * as Yaml from 'yaml';
import type { Document } from 'yaml';
import { lazyRequire } from '../util/lazy-require.js';
import type { Problem } from '../util/problems.js';
import { nestingProblem } from './file-depth.js';

/** Loaded on first use: start-up does not pay for the YAML parser when no file is read. */
const yaml = lazyRequire<typeof Yaml>(import.meta.url, 'yaml');

/** The largest resource file read (64 MiB): past it, a file is refused unread. */
export const MAX_RESOURCE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Alias expansions allowed per document (the YAML library's `maxAliasCount`, whose default
 * this is): it counts each use of an alias times the aliases inside what it names, so a
 * "billion laughs" file is refused before its expansion is built.
 */
export const MAX_ALIAS_COUNT = 100;

/** At most this many parse errors are listed per file (a deep file yields one per level). */
const MAX_ERRORS_PER_FILE = 5;

/** A document of a file as plain values, with where it is for messages (`<file>:`). */
export interface FileDocument {
  value: unknown;
  where: string;
}

/** What one file holds: its documents, and the problems that kept the others out. */
export interface FileDocuments {
  docs: FileDocument[];
  problems: Problem[];
}

/**
 * Reads and parses one resource file: each of its YAML (or JSON) documents as plain values,
 * or the problems that refused them. Never throws. Run on a thread of its own by a reload
 * (file-thread.ts), so that a file that takes seconds to parse holds no stream.
 */
export function readDocuments(file: string): FileDocuments {
  const problems: Problem[] = [];
  const read = readResourceText(file);
  if ('problem' in read) return { docs: [], problems: [read.problem] };
  // Before the parser, which takes seconds over a deeply nested file before it reports it.
  const tooDeep = nestingProblem(read.text);
  if (tooDeep) return { docs: [], problems: [{ path: file, message: tooDeep }] };
  const docs = yaml().parseAllDocuments(read.text, { prettyErrors: true });
  const out: FileDocument[] = [];
  const many = Array.isArray(docs) && docs.length > 1;
  for (const [i, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    const where = many ? `${file} (document ${i + 1}):` : `${file}:`;
    if (doc.errors.length > 0) {
      problems.push(...parseProblems(file, doc));
      continue;
    }
    const converted = documentValue(file, doc);
    if ('problem' in converted) {
      problems.push(converted.problem);
      continue;
    }
    if (converted.value !== null && converted.value !== undefined)
      out.push({ value: converted.value, where });
  }
  return { docs: out, problems };
}

/**
 * The file's text, or a problem. Opened non-blocking, so that a FIFO named `x.yaml` cannot
 * hold the read (and the event loop) until someone writes to it; then checked on the open
 * descriptor, so a symlink swapped in between is seen for what it leads to.
 */
export function readResourceText(file: string): { text: string } | { problem: Problem } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return { problem: { path: file, message: `cannot read: ${codeOf(err)}` } };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      return {
        problem: {
          path: file,
          message: 'not a regular file (a directory, FIFO, socket or device)',
        },
      };
    if (stat.size > MAX_RESOURCE_FILE_BYTES)
      return { problem: { path: file, message: tooLarge(stat.size) } };
    const bytes = readFileSync(fd);
    if (bytes.length > MAX_RESOURCE_FILE_BYTES)
      return { problem: { path: file, message: tooLarge(bytes.length) } };
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch (err) {
    if (err instanceof TypeError)
      return { problem: { path: file, message: 'not UTF-8 text (resource files are UTF-8)' } };
    return { problem: { path: file, message: `cannot read: ${codeOf(err)}` } };
  } finally {
    closeSync(fd);
  }
}

function tooLarge(size: number): string {
  return `${size} bytes, more than the ${MAX_RESOURCE_FILE_BYTES} a resource file may have`;
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

/** A document's parse errors as problems: the first few, one line each, in plain words. */
export function parseProblems(file: string, doc: Document.Parsed): Problem[] {
  const lines = doc.errors.map((e) => plain(e.message.split('\n')[0] ?? '').replace(/:$/, ''));
  const shown = [...new Set(lines)].slice(0, MAX_ERRORS_PER_FILE);
  const more = doc.errors.length - shown.length;
  if (more > 0) shown.push(`(${more} more errors like these)`);
  return shown.map((message) => ({ path: file, message }));
}

/** The document as plain values, or a problem: too many aliases, or nested too deeply. */
export function documentValue(
  file: string,
  doc: Document.Parsed,
): { value: unknown } | { problem: Problem } {
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (err) {
    if (err instanceof ReferenceError && /alias/i.test(err.message)) {
      const message = `too many alias expansions (more than ${MAX_ALIAS_COUNT}, the YAML parser's maxAliasCount): write the repeated parts out, or use fewer aliases`;
      return { problem: { path: file, message } };
    }
    return { problem: { path: file, message: plain((err as Error).message ?? String(err)) } };
  }
}

/** The parser's words for running out of stack → the user's. */
function plain(message: string): string {
  return message.replace(
    /^Maximum call stack size exceeded/,
    'nested too deeply (the parser ran out of stack)',
  );
}
