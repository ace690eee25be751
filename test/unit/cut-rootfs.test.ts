/**
 * scripts/lib/cut-rootfs.py, which cuts the images' root filesystems out of a Debian one
 * (scripts/build-image.sh, scripts/build-cluster-images.sh), run on a small made-up Debian
 * tar: the packages' files through their Depends (the first installed alternative), dpkg's
 * /lib paths found under a merged /usr, the patterns, excludes, made entries, time stamps, and
 * one clear line for a mistake. Needs python3, as the image scripts do.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const CUTTER = join(packageRoot(), 'scripts', 'lib', 'cut-rootfs.py');
const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-cut-rootfs-'));
const source = join(dir, 'debian.tar');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A merged-/usr Debian with four installed packages; `app` needs `libfoo` and one of
// `missing | libbar`; `other` is installed but nobody needs it.
const MAKE_SOURCE = `
import io, sys, tarfile
status = """Package: app
Status: install ok installed
Depends: libfoo (>= 1), missing | libbar

Package: libfoo
Status: install ok installed

Package: libbar
Status: install ok installed
Pre-Depends: libfoo

Package: other
Status: install ok installed
"""
lists = {
    "app": ["/.", "/usr", "/usr/bin", "/usr/bin/app", "/usr/share/doc/app/README"],
    "libfoo": ["/lib", "/lib/x86_64-linux-gnu/libfoo.so.1"],
    "libbar:amd64": ["/usr/lib/x86_64-linux-gnu/libbar.so.2"],
    "other": ["/usr/bin/other"],
}
with tarfile.open(sys.argv[1], "w") as t:
    def add(name, data=b"x", mode=0o755, link=None, mtime=1700000000):
        info = tarfile.TarInfo("./" + name)
        info.mtime, info.mode = mtime, mode
        if link is not None:
            info.type, info.linkname = tarfile.SYMTYPE, link
            t.addfile(info)
        else:
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    add("lib", link="usr/lib")
    add("var/lib/dpkg/status", status.encode(), 0o644)
    for name, paths in lists.items():
        add(f"var/lib/dpkg/info/{name}.list", "\\n".join(paths).encode() + b"\\n", 0o644)
    for path in ["usr/bin/app", "usr/lib/x86_64-linux-gnu/libfoo.so.1",
                 "usr/lib/x86_64-linux-gnu/libbar.so.2", "usr/bin/other",
                 "usr/share/doc/app/README", "etc/alternatives/app"]:
        add(path)
`;

const LIST_OUTPUT = `
import json, sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    print(json.dumps([[m.name, m.type.decode(), oct(m.mode), m.uid, m.gid, m.mtime, m.linkname]
                      for m in t.getmembers()]))
`;

execFileSync('python3', ['-c', MAKE_SOURCE, source]);

function cut(spec: unknown) {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}.tar`);
  const result = spawnSync('python3', [CUTTER, source, out], {
    input: JSON.stringify(spec),
    encoding: 'utf8',
  });
  if (result.status !== 0) return { error: result.stderr.trim(), entries: [] };
  const listed = execFileSync('python3', ['-c', LIST_OUTPUT, out], { encoding: 'utf8' });
  const entries = JSON.parse(listed) as [string, string, string, number, number, number, string][];
  return { error: '', stderr: result.stderr.trim(), entries };
}

describe('cut-rootfs.py', () => {
  it('takes the packages through their dependencies, finds /lib under /usr, drops excludes', () => {
    const { entries, stderr } = cut({ packages: ['app'], exclude: ['usr/share/*'] });
    expect(stderr).toBe('cut-rootfs: took 3 packages: app libbar libfoo');
    const names = entries.map(([name]) => name);
    expect(names).toEqual([
      'lib',
      'usr',
      'usr/bin',
      'usr/bin/app',
      'usr/lib',
      'usr/lib/x86_64-linux-gnu',
      'usr/lib/x86_64-linux-gnu/libbar.so.2',
      'usr/lib/x86_64-linux-gnu/libfoo.so.1',
    ]);
    expect(names).not.toContain('usr/bin/other');
  });

  it('adds patterns, made directories, files and links, and sets every time stamp', () => {
    const { entries } = cut({
      mtime: 0,
      patterns: ['etc/alternatives/*'],
      dirs: [{ path: 'var/lib/istio/data', mode: '750', uid: 1337 }],
      files: [{ path: 'etc/passwd', text: 'istio-proxy:x:1337:1337::/:/sbin/nologin\n' }],
      symlinks: [{ path: 'usr/local/bin/tool', target: '/usr/bin/app' }],
    });
    const byName = new Map(entries.map((entry) => [entry[0], entry]));
    expect(byName.get('etc/alternatives/app')?.[1]).toBe('0');
    expect(byName.get('var/lib/istio/data')).toEqual([
      'var/lib/istio/data',
      '5',
      '0o750',
      1337,
      1337,
      0,
      '',
    ]);
    expect(byName.get('var/lib/istio')?.slice(1, 4)).toEqual(['5', '0o755', 0]);
    expect(byName.get('etc/passwd')?.slice(1, 3)).toEqual(['0', '0o644']);
    expect(byName.get('usr/local/bin/tool')?.[6]).toBe('/usr/bin/app');
    expect(new Set(entries.map((entry) => entry[5]))).toEqual(new Set([0]));
    // Every directory comes before what it holds.
    const names = entries.map(([name]) => name);
    expect(names).toEqual([...names].sort());
  });

  it('fails with one line for an unknown package or a pattern matching nothing', () => {
    expect(cut({ packages: ['nope'] }).error).toBe(
      "cut-rootfs: package 'nope' is not installed in the source tar",
    );
    expect(cut({ patterns: ['usr/bin/none*'] }).error).toBe(
      `cut-rootfs: nothing matches usr/bin/none* in ${source}`,
    );
  });
});
