/**
 * The house rules of src/, checked from the code's own imports: which folder may import
 * which (the floors of docs/architecture.md), no import circle between files, and no two
 * folders that import each other.
 *
 *   npm run floors            # prints the figures and every breach; exits 1 on any breach
 *   npm run floors -- --table # prints the floor table as docs/architecture.md shows it
 *
 * A folder is the first path segment under src/ (`src/faults/scenarios/nack.ts` is in
 * `faults`); a file directly under src/ is its own folder (`index`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * What each folder may import, from the ground up; `*` is any folder on a lower floor.
 * Same-folder imports are always allowed.
 */
export const FLOORS: readonly { folder: string; floor: number; may: readonly string[] }[] = [
  { folder: 'util', floor: 0, may: [] },
  { folder: 'xds', floor: 1, may: ['util'] },
  { folder: 'core', floor: 2, may: ['xds', 'util'] },
  { folder: 'snapshot', floor: 3, may: ['core', 'xds', 'util'] },
  { folder: 'protocol', floor: 3, may: ['core', 'xds', 'util'] },
  { folder: 'journal', floor: 3, may: ['core', 'xds', 'util'] },
  { folder: 'metrics', floor: 3, may: ['core', 'xds', 'util'] },
  { folder: 'tls', floor: 3, may: ['core', 'xds', 'util'] },
  { folder: 'bootstrap', floor: 3, may: ['core', 'xds', 'util'] },
  { folder: 'resources', floor: 4, may: ['snapshot', 'core', 'xds', 'util'] },
  { folder: 'import', floor: 4, may: ['snapshot', 'core', 'xds', 'util'] },
  { folder: 'explain', floor: 4, may: ['core', 'xds', 'util'] },
  { folder: 'envoy', floor: 4, may: ['bootstrap', 'core', 'xds', 'util'] },
  { folder: 'ca', floor: 4, may: ['tls', 'core', 'xds', 'util'] },
  { folder: 'debug', floor: 4, may: ['journal', 'core', 'xds', 'util'] },
  { folder: 'server', floor: 4, may: ['protocol', 'snapshot', 'core', 'xds', 'util'] },
  { folder: 'generate', floor: 5, may: ['import', 'envoy', 'snapshot', 'core', 'xds', 'util'] },
  { folder: 'faults', floor: 5, may: ['resources', 'snapshot', 'protocol', 'core', 'xds', 'util'] },
  { folder: 'inject', floor: 5, may: ['explain', 'envoy', 'util'] },
  { folder: 'live', floor: 6, may: ['faults', 'debug', 'envoy', 'journal', 'core', 'util'] },
  { folder: 'api', floor: 6, may: ['faults', 'resources', 'journal', 'core', 'util'] },
  {
    folder: 'control',
    floor: 7,
    may: ['api', 'live', 'faults', 'debug', 'journal', 'metrics', 'core', 'xds', 'util'],
  },
  { folder: 'timelines', floor: 7, may: ['api', 'faults', 'core', 'util'] },
  { folder: 'status', floor: 7, may: ['api', 'debug', 'envoy', 'core', 'xds', 'util'] },
  {
    folder: 'target',
    floor: 7,
    may: [
      'api',
      'live',
      'faults',
      'ca',
      'debug',
      'envoy',
      'explain',
      'inject',
      'server',
      'snapshot',
      'resources',
      'journal',
      'core',
      'util',
    ],
  },
  { folder: 'app', floor: 8, may: ['*'] },
  { folder: 'testing', floor: 9, may: ['*'] },
  { folder: 'cli', floor: 9, may: ['*'] },
  { folder: 'index', floor: 10, may: ['*'] },
];

export interface Breach {
  from: string;
  to: string;
  rule: string;
}

export interface FloorReport {
  files: number;
  imports: number;
  circles: string[][];
  mutualFolders: [string, string][];
  breaches: Breach[];
}

function folderOf(srcRoot: string, file: string): string {
  const rel = relative(srcRoot, file).split('/');
  return rel.length === 1 ? (rel[0] ?? '').replace(/\.ts$/, '') : (rel[0] ?? '');
}

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listSources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The project files a file imports (static, type-only, re-exports and literal `import()`). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((i) => i.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')));
}

/** Strongly connected groups of more than one file (Tarjan), each sorted. */
function findCircles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) circles.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

export function measureFloors(srcRoot: string): FloorReport {
  const files = listSources(srcRoot);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  let imports = 0;
  for (const file of files) {
    const targets = importsOf(file).filter((t) => known.has(t));
    graph.set(file, targets);
    imports += targets.length;
  }
  const rules = new Map(FLOORS.map((f) => [f.folder, f.may]));
  const floorOf = new Map(FLOORS.map((f) => [f.folder, f.floor]));
  /** `*`: any folder on a lower floor. */
  const allowed = (from: string, to: string, may: readonly string[]) =>
    may.includes(to) ||
    (may.includes('*') && (floorOf.get(to) ?? Infinity) < (floorOf.get(from) ?? -Infinity));
  const breaches: Breach[] = [];
  const folderEdges = new Set<string>();
  const name = (file: string) => relative(dirname(srcRoot), file);
  for (const [file, targets] of graph) {
    const from = folderOf(srcRoot, file);
    const may = rules.get(from);
    for (const target of targets) {
      const to = folderOf(srcRoot, target);
      if (to === from) continue;
      folderEdges.add(`${from}>${to}`);
      if (!may)
        breaches.push({ from: name(file), to: name(target), rule: `${from}/ has no floor` });
      else if (!allowed(from, to, may)) {
        breaches.push({
          from: name(file),
          to: name(target),
          rule: `${from}/ may not import ${to}/`,
        });
      }
    }
  }
  const mutualFolders: [string, string][] = [];
  for (const edge of folderEdges) {
    const [a = '', b = ''] = edge.split('>');
    if (a < b && folderEdges.has(`${b}>${a}`)) mutualFolders.push([a, b]);
  }
  const circles = findCircles(graph).map((group) => group.map(name));
  return { files: files.length, imports, circles, mutualFolders, breaches };
}

function printTable(): void {
  console.log('| floor | folder | may import |');
  console.log('|---|---|---|');
  for (const { floor, folder, may } of FLOORS) {
    const list = may.includes('*') ? 'any folder below' : may.map((m) => `${m}/`).join(' ');
    console.log(
      `| ${floor} | ${folder === 'index' ? 'index.ts' : `${folder}/`} | ${list || '—'} |`,
    );
  }
}

function main(): void {
  // `npm run floors | head` closes the pipe early: stop quietly, as other commands do.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  if (process.argv.includes('--table')) return printTable();
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');
  const report = measureFloors(root);
  console.log(
    `src/: ${report.files} files, ${report.imports} imports; ` +
      `${report.circles.length} import circle(s), ` +
      `${report.mutualFolders.length} folder pair(s) importing each other, ` +
      `${report.breaches.length} import(s) against the floors`,
  );
  for (const circle of report.circles) console.log(`  circle: ${circle.join(' → ')}`);
  for (const [a, b] of report.mutualFolders)
    console.log(`  folders importing each other: ${a}/ ↔ ${b}/`);
  for (const b of report.breaches) console.log(`  ${b.rule}: ${b.from} → ${b.to}`);
  const bad = report.circles.length + report.mutualFolders.length + report.breaches.length;
  process.exitCode = bad > 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
