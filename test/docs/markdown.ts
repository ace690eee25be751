/**
 * Reads the fenced code blocks of a Markdown file, with where each starts, and splits a
 * ```sh block into the commands a user would type (docs/docs-tests.md has the convention).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Block {
  /** The file as given (relative to the repository root). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The first word of the info string (`ts`, `sh`, `text`, …), '' when there is none. */
  lang: string;
  /** The other words of the info string (`no-run`). */
  flags: string[];
  /** The content, with the fence's indentation removed. */
  code: string;
  /** The paragraph of prose right before the block (its lines joined), '' when none. */
  before: string;
  /** The block that starts right after this one, with only blank lines between. */
  next?: Block;
}

/** The languages a block may have: the ones run, and the ones shown only. */
export const RUN_LANGS = ['ts', 'sh'] as const;
export const SHOWN_LANGS = ['text', 'json', 'yaml'] as const;

const FENCE = /^( *)(`{3,}|~{3,})\s*([^`]*)$/;

export function extractBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let lastEnd = -2;
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', info = ''] = open;
    const [lang = '', ...flags] = info.trim().split(/\s+/).filter(Boolean);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      const trimmed = line.trim();
      if (trimmed.startsWith(fence[0]!.repeat(fence.length)) && /^[`~]+$/.test(trimmed)) break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    if (j >= lines.length) throw new Error(`${file}:${i + 1}: code block is never closed`);
    const block: Block = {
      file,
      line: i + 1,
      lang,
      flags,
      code: body.join('\n'),
      before: paragraphBefore(lines, i, lastEnd),
    };
    const previous = blocks.at(-1);
    const between = lines.slice(lastEnd + 1, i);
    if (previous && between.every((l) => l.trim() === '')) previous.next = block;
    blocks.push(block);
    lastEnd = j;
    i = j;
  }
  return blocks;
}

/** The prose lines right above line `index` (down to a blank line or the last block). */
function paragraphBefore(lines: string[], index: number, lastEnd: number): string {
  let k = index - 1;
  while (k > lastEnd && (lines[k] ?? '').trim() === '') k--;
  const paragraph: string[] = [];
  for (; k > lastEnd && (lines[k] ?? '').trim() !== ''; k--) paragraph.unshift(lines[k]!.trim());
  return paragraph.join(' ');
}

export function isNoRun(block: Block): boolean {
  return block.flags.includes('no-run');
}

/**
 * A block the e2e project runs (test/e2e/docs-real.test.ts), against the real Envoy,
 * pilot-agent and istioctl: ```sh e2e. The docs project checks it is well formed only.
 */
export function isE2e(block: Block): boolean {
  return block.flags.includes('e2e');
}

/** The files whose blocks are run: README.md, examples/README.md and docs/*.md. */
export function docFiles(repo: string): string[] {
  return [
    'README.md',
    'examples/README.md',
    ...readdirSync(join(repo, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

/** Every block of those files. */
export function docBlocks(repo: string): Block[] {
  return docFiles(repo).flatMap((file) =>
    extractBlocks(file, readFileSync(join(repo, file), 'utf8')),
  );
}

/** One command of a ```sh block, with what the doc says it prints. */
export interface Command {
  /** 1-based line in the Markdown file. */
  line: number;
  /** The command as typed (continuation lines joined). */
  text: string;
  /**
   * The comment lines right below it (`# …`, no blank line between), without the `# `:
   * what the doc says the command prints.
   */
  output: string[];
}

/** Whether a quote opened in `text` is still open at its end (as bash reads it). */
function openQuote(text: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      i = end;
    }
  }
  return quote !== undefined;
}

/**
 * The commands of a ```sh block. Comment lines that follow a command directly are its
 * documented output; a comment after a blank line (or at the top) only explains.
 */
export function splitCommands(block: Block): Command[] {
  const lines = block.code.split('\n');
  const commands: Command[] = [];
  let current: Command | undefined;
  let continuing = false;
  lines.forEach((raw, index) => {
    const line = block.line + 1 + index;
    const trimmed = raw.trim();
    if (continuing && current) {
      current.text += `\n${raw}`;
      continuing = trimmed.endsWith('\\') || openQuote(current.text);
      return;
    }
    if (trimmed === '') {
      current = undefined;
      return;
    }
    if (trimmed.startsWith('#')) {
      current?.output.push(trimmed.replace(/^#\s?/, ''));
      return;
    }
    current = { line, text: raw, output: [] };
    commands.push(current);
    continuing = trimmed.endsWith('\\') || openQuote(raw);
  });
  return commands;
}
