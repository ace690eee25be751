/**
 * What a ramp allocates, per connection, from a `.heapprofile` that `connect-probe.ts --alloc`
 * recorded (V8's sampling heap profiler, collected objects included): the bytes allocated by
 * each function, its callees outside the mock counted with the innermost frame of the mock's
 * own code (as profile-buckets.ts does for CPU), then by the function that made them.
 * Garbage the GC collects costs scavenges: this says whose it is.
 *
 *   npx tsx bench/micro/alloc-top.ts ramp-mock.heapprofile [connections=1000] [rows=30]
 */
import { readFileSync } from 'node:fs';

interface AllocNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocNode[];
}

const [file, connections = '1000', rowsArg = '30'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: alloc-top.ts <file.heapprofile> [connections] [rows]\n');
  process.exit(2);
}
const perConn = Number(connections);
const rows = Number(rowsArg);
const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: AllocNode };

const ownFrame = (url: string) =>
  url.includes('/node_modules/') ? undefined : /\/(dist\/)?src\/(.*)\.[jt]s$/.exec(url)?.[2];
const name = (node: AllocNode, path: string) =>
  `${node.callFrame.functionName || '(anonymous)'} ${path}:${node.callFrame.lineNumber + 1}`;

const byOwner = new Map<string, number>();
const byMaker = new Map<string, number>();
let total = 0;
const add = (map: Map<string, number>, key: string, bytes: number) =>
  map.set(key, (map.get(key) ?? 0) + bytes);

function walk(node: AllocNode, owner: string): void {
  const own = ownFrame(node.callFrame.url);
  const here = own === undefined ? owner : name(node, own);
  if (node.selfSize > 0) {
    total += node.selfSize;
    add(byOwner, here, node.selfSize);
    const leaf = node.callFrame.url.split('/').slice(-2).join('/');
    add(byMaker, name(node, leaf || '(native)'), node.selfSize);
  }
  for (const child of node.children) walk(child, here);
}
walk(head, '(not the mock: Node, grpc-js)');

const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`${title}\n`);
  for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    process.stdout.write(`${(bytes / perConn).toFixed(0).padStart(8)} B  ${key}\n`);
  }
};
process.stdout.write(`${file}: ${(total / perConn).toFixed(0)} bytes allocated per connection\n`);
print('by the innermost function of the mock on the stack:', byOwner);
print('by the function that allocated:', byMaker);
