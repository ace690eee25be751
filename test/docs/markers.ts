/**
 * The blocks the docs tests cannot run but can still hold to their word (docs/docs-tests.md):
 *
 * - ```sh long: a run of minutes (the benchmarks, the reliability runs, the demo). Each
 *   command must be an npm script of package.json, a file run by `npx tsx`, or `npx vitest`
 *   with a project of vitest.config.ts; every `--flag` it passes must be an option the file
 *   it runs declares (its `parseArgs` options).
 * - ```sh cluster: commands against a Kubernetes cluster. `kubectl apply -k <dir>` must render
 *   offline (`kubectl kustomize <dir>`), a file given with `-f` or `--from-file` must exist
 *   (or be written by an earlier command of the page), a `-p` patch must be JSON,
 *   `mock-istiod <command>` must be one of the CLI's commands, `npm run <name>` one of
 *   package.json's scripts, and `bash scripts/<file>.sh <verb>` a file with that verb.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli/commands.js';
import { segments } from './commands.js';
import { splitCommands, type Block } from './markdown.js';

export const MARKERS = ['long', 'cluster'] as const;
export type Marker = (typeof MARKERS)[number];

/** The marker of a block checked for shape only, if it has one. */
export function markerOf(block: Block): Marker | undefined {
  return MARKERS.find((m) => block.flags.includes(m));
}

/** The commands of a block, each split at `&&`, `|`, `;`, comments and a trailing `&` gone. */
function commandSegments(block: Block): { line: number; segment: string }[] {
  return splitCommands(block).flatMap((c) =>
    segments(c.text.replace(/\s#.*$/gm, '').replace(/\s*&\s*$/, '')).map((segment) => ({
      line: c.line,
      segment: segment.replace(/^([A-Z_][A-Z0-9_]*=\S*\s+)+/, ''),
    })),
  );
}

/** Words of a command line, quotes removed (no expansion: enough for flags and paths). */
function words(segment: string): string[] {
  return (segment.match(/'[^']*'|"(?:[^"\\]|\\.)*"|\S+/g) ?? []).map((w) =>
    /^['"]/.test(w) ? w.slice(1, -1) : w,
  );
}

/** Whether `file` declares `name` among its parseArgs options (`name: {` or `'name': {`). */
function declaresOption(file: string, name: string): boolean {
  const text = readFileSync(file, 'utf8');
  const escaped = name.replace(/[-]/g, '\\-');
  return new RegExp(`(^|[\\s{,])(['"]?)${escaped}\\2\\s*:\\s*\\{`, 'm').test(text);
}

function flagProblems(repo: string, entry: string, args: string[]): string[] {
  return args
    .filter((a) => /^--[a-z]/.test(a))
    .map((a) => a.slice(2).split('=')[0]!)
    .filter((name) => !declaresOption(join(repo, entry), name))
    .map((name) => `\`--${name}\` is not an option of ${entry}`);
}

/** The script file a package.json script runs (`tsx bench/run.ts …` → bench/run.ts). */
function scriptEntry(script: string): string | undefined {
  return words(script).find((w) => /\.(ts|mjs|js|sh)$/.test(w));
}

function vitestProjects(repo: string): string[] {
  const config = readFileSync(join(repo, 'vitest.config.ts'), 'utf8');
  return [...config.matchAll(/name:\s*'([^']+)'/g)].map((m) => m[1]!);
}

function vitestProblems(repo: string, args: string[]): string[] {
  const problems: string[] = [];
  const projects = vitestProjects(repo);
  args.forEach((arg, i) => {
    if (arg === '--project' && !projects.includes(args[i + 1] ?? '')) {
      problems.push(
        `vitest has no project \`${args[i + 1]}\` (vitest.config.ts: ${projects.join(', ')})`,
      );
    }
    const previous = args[i - 1] ?? '';
    if (
      !arg.startsWith('-') &&
      previous !== '--project' &&
      arg !== 'run' &&
      !existsSync(join(repo, arg))
    ) {
      problems.push(`vitest is given \`${arg}\`, which does not exist`);
    }
  });
  return problems;
}

/** Why a command of a `long` block would not run as written, or []. */
function longProblems(repo: string, segment: string): string[] {
  const scripts = (
    JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const w = words(segment);
  if (w[0] === 'npm' && w[1] === 'run') {
    const rest = w.slice(2).filter((x) => x !== '--silent');
    const name = rest[0] ?? '';
    const script = scripts[name];
    if (script === undefined) return [`package.json has no script \`${name}\``];
    const args = rest.slice(1)[0] === '--' ? rest.slice(2) : [];
    if (/^vitest\b/.test(script)) return vitestProblems(repo, [...words(script).slice(1), ...args]);
    const entry = scriptEntry(script);
    if (entry === undefined)
      return args.length > 0 ? [`\`${name}\` runs no file to check its flags`] : [];
    return existsSync(join(repo, entry))
      ? flagProblems(repo, entry, args)
      : [`the script \`${name}\` runs ${entry}, which does not exist`];
  }
  if (w[0] === 'npx' && w[1] === 'tsx') {
    const entry = w[2] ?? '';
    if (!existsSync(join(repo, entry))) return [`\`${entry}\` does not exist`];
    return flagProblems(repo, entry, w.slice(3));
  }
  if (w[0] === 'npx' && w[1] === 'vitest') return vitestProblems(repo, w.slice(2));
  return [
    `a \`long\` block holds npm scripts, \`npx tsx <file>\` and \`npx vitest\`; found \`${w.slice(0, 3).join(' ')}\``,
  ];
}

const KUBECTL_VERBS = [
  'apply',
  'create',
  'get',
  'patch',
  'rollout',
  'logs',
  'port-forward',
  'kustomize',
  'describe',
  'exec',
  'wait',
];
/** What a `cluster` block runs besides kubectl, the CLI, npm scripts and scripts/*.sh. */
const CLUSTER_OTHERS = [
  'mkdir',
  'base64',
  'export',
  'curl',
  'sed',
  'grep',
  'tail',
  'podman',
  'eval',
];

/** `bash scripts/<file>.sh <verb>`: the file exists, and a verb it has (its `case` arms). */
function scriptProblems(repo: string, w: string[]): string[] {
  const file = w[1] ?? '';
  if (!existsSync(join(repo, file))) return [`\`${file}\` does not exist`];
  const verb = w[2];
  if (verb === undefined || verb.startsWith('-')) return [];
  const arms = readFileSync(join(repo, file), 'utf8').match(/^\s+([a-z|-]+)\)/gm) ?? [];
  const verbs = arms.flatMap((a) =>
    a
      .trim()
      .slice(0, -1)
      .split('|')
      .map((v) => v.trim()),
  );
  return verbs.length === 0 || verbs.includes(verb) ? [] : [`\`${file}\` has no verb \`${verb}\``];
}

/** A package.json script's name, for `npm run <name>`. */
function isNpmScript(repo: string, name: string): boolean {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  return name !== 'cli' && Object.hasOwn(pkg.scripts ?? {}, name);
}

/** Why a command of a `cluster` block would not run as written, or []. */
function clusterProblems(repo: string, segment: string, earlier: string): string[] {
  const w = words(segment);
  const cli =
    w[0] === 'mock-istiod'
      ? w[1]
      : w[0] === 'npm' && w[1] === 'run' && !isNpmScript(repo, w[2] ?? '')
        ? w.slice(2).filter((x) => x !== '--silent' && x !== 'cli' && x !== '--')[0]
        : undefined;
  if (w[0] === 'npm' && w[1] === 'run' && isNpmScript(repo, w[2] ?? '')) return [];
  if (cli !== undefined) {
    return Object.hasOwn(COMMANDS, cli)
      ? []
      : [`\`mock-istiod ${cli}\` is not a command of the CLI`];
  }
  if (CLUSTER_OTHERS.includes(w[0] ?? '')) return [];
  if (w[0] === 'bash' && /^scripts\/[\w-]+\.sh$/.test(w[1] ?? '')) return scriptProblems(repo, w);
  if (w[0] !== 'kubectl') {
    return [`a \`cluster\` block runs kubectl and mock-istiod; found \`${w[0]}\``];
  }
  const problems: string[] = [];
  const args = w.slice(1);
  const verb = args.find(
    (a, i) => !a.startsWith('-') && !['-n', '--namespace'].includes(args[i - 1] ?? ''),
  );
  if (!KUBECTL_VERBS.includes(verb ?? ''))
    problems.push(`\`kubectl ${verb}\` is not a verb the docs use`);
  args.forEach((arg, i) => {
    const value = args[i + 1] ?? '';
    if (arg === '-k') {
      const rendered = spawnSync('kubectl', ['kustomize', value], { cwd: repo, encoding: 'utf8' });
      if (rendered.error)
        problems.push(`kubectl kustomize: ${rendered.error.message} (is kubectl installed?)`);
      else if (rendered.status !== 0 || !/^kind: /m.test(rendered.stdout)) {
        problems.push(`\`kubectl kustomize ${value}\` does not render: ${rendered.stderr.trim()}`);
      }
    }
    if (arg === '-f' && value !== '-' && !existsSync(join(repo, value))) {
      problems.push(`\`-f ${value}\` does not exist`);
    }
    const from = /^--from-file=(?:[^=]+=)?(.+)$/.exec(arg)?.[1];
    if (from !== undefined) {
      const bare = from.replace(/^\.\//, '');
      if (!existsSync(join(repo, bare)) && !earlier.includes(bare.split('/')[0]!)) {
        problems.push(`\`--from-file\` names ${from}, which neither exists nor is written before`);
      }
    }
    if (arg === '-p') {
      try {
        JSON.parse(value);
      } catch (err) {
        problems.push(`the patch after -p is not JSON: ${(err as Error).message}`);
      }
    }
  });
  return problems;
}

/**
 * The problems of a `long` or `cluster` block, each naming its line. `earlier` is what the
 * page's earlier blocks run (a file a `cluster` command reads may be written there).
 */
export function markerProblems(repo: string, block: Block, earlier: string): string[] {
  const marker = markerOf(block);
  if (block.lang !== 'sh')
    return [`${block.file}:${block.line}: \`${marker}\` marks a \`sh\` block`];
  const segs = commandSegments(block);
  if (segs.length === 0)
    return [`${block.file}:${block.line}: a \`sh ${marker}\` block with no command`];
  let seen = earlier;
  return segs.flatMap(({ line, segment }) => {
    const found =
      marker === 'long' ? longProblems(repo, segment) : clusterProblems(repo, segment, seen);
    seen += `\n${segment}`;
    return found.map((p) => `${block.file}:${line}: ${p}`);
  });
}
