/**
 * Resource files a user (or anything that can write the watched directory) puts next to the
 * good set: YAML that expands without end, nests without end, is too big, is not UTF-8, is
 * not a regular file, or is a symbolic link to one that never ends. Each is met through the
 * real file watcher and through `POST /control/resources/reload`; each must be refused with
 * a problem naming the file, while the last good set keeps serving. Then the five checks.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESOURCE_FILE_BYTES } from '../../src/resources/file-text.js';
import { request, until } from './support/attack.js';
import { freshProxyClusters } from './support/fresh-proxy.js';
import { GOOD_CLUSTER, useTarget, type Target } from './support/target.js';
import { verifyTarget } from './support/verify.js';

const attacked = useTarget();
let target: Target;
beforeAll(() => {
  target = attacked();
});

interface Status {
  loadedAt: string;
  lastError?: { at: string; problems: { path: string; message: string }[] };
}

const status = async (): Promise<Status> =>
  JSON.parse((await request(`${target.controlUrl}/debug/resources`)).body) as Status;

/** Aliases that double at each of `levels` levels: 2^levels strings from a few lines. */
function laughs(levels: number): string {
  const lines = ['a0: &a0 [lol, lol]'];
  for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [*a${i - 1}, *a${i - 1}]`);
  return `${lines.join('\n')}\nresources: *a${levels}\n`;
}

const cluster = (name: string) =>
  `  - '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster\n    name: ${name}\n    connect_timeout: &t 1s\n`;

/** A legitimate-looking file that uses one anchor `uses` times. */
function anchored(uses: number): string {
  const lines = [
    'resources:',
    "  - '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster",
    '    name: anchored-0',
    '    connect_timeout: &t 1s',
  ];
  for (let i = 1; i <= uses; i++) {
    lines.push("  - '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster");
    lines.push(`    name: anchored-${i}`, '    connect_timeout: *t');
  }
  return `${lines.join('\n')}\n`;
}

const BAD_FILES: { name: string; make: (path: string) => Promise<void> }[] = [
  { name: 'billion laughs (30 levels of doubling aliases)', make: (p) => writeFile(p, laughs(30)) },
  { name: '200 uses of one anchor', make: (p) => writeFile(p, anchored(200)) },
  {
    name: 'flow sequences nested 100,000 deep',
    make: (p) => writeFile(p, `resources: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`),
  },
  {
    name: 'block mappings nested 5,000 deep',
    make: (p) =>
      writeFile(
        p,
        Array.from({ length: 5_000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' x\n',
      ),
  },
  {
    name: 'JSON nested 100,000 deep',
    make: (p) =>
      writeFile(
        p.replace(/\.yaml$/, '.json'),
        `{"resources":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      ),
  },
  {
    // Over the size limit: refused from its size, before a byte is read. A file under it is
    // read and parsed on the loading thread (src/resources/file-thread.ts).
    name: 'a sparse file one byte over the 64 MiB limit',
    make: async (p) => {
      await writeFile(p, 'resources: []\n');
      await truncate(p, MAX_RESOURCE_FILE_BYTES + 1);
    },
  },
  {
    name: 'invalid UTF-8',
    make: (p) =>
      writeFile(
        p,
        Buffer.concat([
          Buffer.from('resources:\n  - name: '),
          Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
          Buffer.from('\n'),
        ]),
      ),
  },
  { name: 'a NUL byte and a BOM', make: (p) => writeFile(p, `\ufeffresources: [\u0000]\n`) },
  { name: 'a symbolic link to /dev/zero', make: (p) => symlink('/dev/zero', p) },
  { name: 'a symbolic link to /dev/urandom', make: (p) => symlink('/dev/urandom', p) },
  {
    name: 'a named pipe no one writes',
    make: (p) => Promise.resolve(void execFileSync('mkfifo', [p])),
  },
  {
    name: 'a symbolic link to a named pipe',
    make: async (p) => {
      execFileSync('mkfifo', [`${p}.fifo`]);
      await symlink(`${p}.fifo`, p);
    },
  },
  { name: 'a dangling symbolic link', make: (p) => symlink(join(p, 'nowhere'), p) },
  { name: 'a symbolic link to itself', make: (p) => symlink(p, p) },
  { name: 'a directory named like a file', make: (p) => mkdir(p) },
  {
    name: 'a cluster set with one bad field',
    make: (p) => writeFile(p, `resources:\n${cluster('bad')}    type: NOT_A_TYPE\n`),
  },
];

describe('resource files that must be refused while the good set keeps serving', () => {
  for (const [index, bad] of BAD_FILES.entries()) {
    it(
      bad.name,
      async () => {
        target.inputs += 1;
        const path = join(target.resourcesDir, `50-bad-${index}.yaml`);
        const before = await status();
        await bad.make(path);
        try {
          // The watcher sees it: a failed load is reported, or the file is skipped with a warning.
          const reload = await request(`${target.controlUrl}/control/resources/reload`, {
            method: 'POST',
          });
          expect(reload.status, reload.body.slice(0, 300)).toBeLessThan(500);
          expect(reload.body).not.toMatch(/\n\s+at .+:\d+:\d+/);
          if (reload.status >= 400) expect(reload.body).toContain('50-bad-');
          const after = await until('the watcher to have looked at the file', async () => {
            const now = await status();
            const changed =
              now.lastError?.at !== before.lastError?.at || now.loadedAt !== before.loadedAt;
            return changed || reload.status >= 400 ? now : undefined;
          });
          void after;
          expect(await freshProxyClusters(target.xdsAddress, `files-${index}`)).toContain(
            GOOD_CLUSTER,
          );
        } finally {
          await rm(path, { recursive: true, force: true });
          await rm(`${path}.fifo`, { force: true });
          await rm(path.replace(/\.yaml$/, '.json'), { force: true });
        }
      },
      30_000,
    );
  }

  it('the good set still loads after them all', async () => {
    const reload = await request(`${target.controlUrl}/control/resources/reload`, {
      method: 'POST',
    });
    expect(reload.status, reload.body).toBe(200);
    expect((await status()).lastError).toBeUndefined();
  });

  it('lives, never stalls, stays small, serves the last good set, loses no journal line', async () => {
    await verifyTarget('resource-files', target);
  });
});
