/**
 * The ```ts blocks as a user compiles and runs them: each block is a file of its own in a
 * temporary project, type-checked by `tsc` with this project's compiler options and run by
 * `tsx`. `mock-istiod` and `mock-istiod/testing` resolve to `src/index.ts` and
 * `src/testing/index.ts`, the sources of the package's two `exports` (built from them into
 * one library bundle behind `dist/src/index.bundle.js` and `dist/src/testing/index.bundle.js`,
 * typed by their `.d.ts`); test/e2e/installed-package.test.ts checks the packed package itself.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Block } from './markdown.js';
import { REPO } from './sh-session.js';

const RUN_TIMEOUT_MS = 60_000;

function fileName(block: Block): string {
  return `${block.file.replace(/[^a-zA-Z0-9]+/g, '_')}_L${block.line}.ts`;
}

function exec(
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, detached: true });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[docs test: did not exit within ${timeoutMs} ms (something left running?), killed]`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export class TsSnippets {
  readonly dir = mkdtempSync(join(tmpdir(), 'docs-ts-'));
  private readonly blocks = new Map<string, Block>();

  constructor(blocks: readonly Block[]) {
    const base = JSON.parse(readFileSync(join(REPO, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: Record<string, unknown>;
    };
    const { rootDir, outDir, declaration, sourceMap, ...options } = base.compilerOptions;
    void [rootDir, outDir, declaration, sourceMap];
    const tsconfig = {
      compilerOptions: {
        ...options,
        noEmit: true,
        paths: {
          'mock-istiod': [join(REPO, 'src', 'index.ts')],
          'mock-istiod/testing': [join(REPO, 'src', 'testing', 'index.ts')],
        },
      },
      include: ['*.ts'],
    };
    writeFileSync(join(this.dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    writeFileSync(join(this.dir, 'package.json'), '{ "type": "module" }\n');
    symlinkSync(join(REPO, 'node_modules'), join(this.dir, 'node_modules'));
    // The fixtures and examples the docs name by their checkout path (test/fixtures/…,
    // examples/…) resolve here too, as they do in the sh sessions.
    mkdirSync(join(this.dir, 'test'));
    symlinkSync(join(REPO, 'test', 'fixtures'), join(this.dir, 'test', 'fixtures'));
    symlinkSync(join(REPO, 'examples'), join(this.dir, 'examples'));
    for (const block of blocks) {
      const name = fileName(block);
      this.blocks.set(name, block);
      writeFileSync(join(this.dir, name), block.code);
    }
  }

  /** `X_L151.ts(3,7)` or `…/X_L151.ts:3:7` in a message → `README.md:154`. */
  locate(text: string): string {
    const at = (all: string, name: string, line: string) => {
      const block = this.blocks.get(name);
      return block ? `${block.file}:${block.line + Number(line)}` : all;
    };
    return text
      .replace(/(?:[^\s(]*\/)?([A-Za-z0-9_]+_L\d+\.ts)\((\d+),\d+\)/g, at)
      .replace(/(?:file:\/\/)?(?:[^\s(]*\/)?([A-Za-z0-9_]+_L\d+\.ts):(\d+)(?::\d+)?/g, at);
  }

  /** Type-checks every snippet at once: errors by snippet, already located in the Markdown. */
  async typecheck(): Promise<Map<Block, string[]>> {
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const { output } = await exec([tsc, '-p', '.', '--pretty', 'false'], this.dir, 120_000);
    const errors = new Map<Block, string[]>();
    let last: string[] | undefined;
    for (const line of output.split('\n')) {
      const match = /^([A-Za-z0-9_]+_L\d+\.ts)\(/.exec(line);
      const block = match ? this.blocks.get(match[1]!) : undefined;
      if (block) {
        last = errors.get(block) ?? [];
        errors.set(block, last);
        last.push(this.locate(line));
      } else if (line.startsWith(' ') && last) last.push(line);
      else if (line.trim() !== '') {
        last = undefined;
        if (/error TS/.test(line)) throw new Error(`tsc failed outside the snippets: ${line}`);
      }
    }
    return errors;
  }

  /** Runs one snippet with tsx; undefined when it ran and exited 0. */
  async run(block: Block): Promise<string | undefined> {
    const tsx = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const { code, output } = await exec([tsx, fileName(block)], this.dir, RUN_TIMEOUT_MS);
    if (code === 0) return undefined;
    const tail = output.trim().split('\n').slice(-15).join('\n');
    return `${block.file}:${block.line}: the snippet exited ${code}:\n${this.locate(tail)}`;
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
