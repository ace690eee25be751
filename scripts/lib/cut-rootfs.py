#!/usr/bin/env python3
"""Cuts a small image root filesystem out of a Debian one (a tar made by mmdebstrap).

The container image scripts (scripts/build-cluster-images.sh) build their images FROM scratch:
instead of a whole Debian, an image gets only what its programs load. This takes a spec (JSON
on stdin) and writes a new tar holding:

- "packages": every file dpkg installed for these packages and, through Depends and
  Pre-Depends, for the packages they need (read from the tar's own var/lib/dpkg), except the
  paths matching "exclude";
- "patterns": the paths matching these globs (each must match at least one), e.g. the
  update-alternatives links dpkg's file lists do not know;
- the top-level links of a merged /usr (bin, lib, lib64, sbin) and the parent directories of
  everything kept;
- "dirs" ({path, mode, uid, gid}), "files" ({path, text, mode}) and "symlinks" ({path,
  target}) made here, e.g. /etc/passwd and the directories a program writes to.

With "mtime" (seconds), every entry gets that time: the same packages then give the same tar,
byte for byte, whenever and wherever the Debian one was made (a stable inputs hash).

Usage: cut-rootfs.py <debian-rootfs.tar> <out.tar> < spec.json
Prints the packages it took (when it took any), one line, on stderr.
"""
import fnmatch
import io
import json
import posixpath
import re
import sys
import tarfile

TOP_LINKS = ("bin", "lib", "lib32", "lib64", "libx32", "sbin")


def fail(message):
    sys.exit(f"cut-rootfs: {message}")


def read_status(src, members):
    """The installed packages of the tar's dpkg database: name -> its fields."""
    status = members.get("var/lib/dpkg/status")
    if status is None:
        fail("no var/lib/dpkg/status in the source tar (not a Debian root filesystem?)")
    packages = {}
    for paragraph in src.extractfile(status).read().decode().split("\n\n"):
        fields = dict(re.findall(r"^([\w-]+): ?(.*)$", paragraph, re.M))
        if "Package" in fields and "installed" in fields.get("Status", ""):
            packages[fields["Package"]] = fields
    return packages


def closure(roots, installed):
    """The roots and every installed package they depend on (first installed alternative)."""
    wanted, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        if name not in installed:
            fail(f"package '{name}' is not installed in the source tar")
        wanted.add(name)
        fields = installed[name]
        for relation in ",".join(filter(None, [fields.get("Pre-Depends"), fields.get("Depends")])).split(","):
            if not relation.strip():
                continue
            choices = [re.sub(r"[\s(:].*$", "", alt.strip()) for alt in relation.split("|")]
            todo.append(next((c for c in choices if c in installed), choices[0]))
    return sorted(wanted)


def canonical(path, links):
    """A dpkg path (/lib/x.so) as the tar names it (usr/lib/x.so where /lib is a link)."""
    path = path.lstrip("/")
    head, _, rest = path.partition("/")
    target = links.get(head)
    return posixpath.join(target, rest) if target and rest else path


def package_files(src, members, names, links):
    files = set()
    for name in names:
        listing = members.get(f"var/lib/dpkg/info/{name}.list")
        listing = listing or next((m for p, m in members.items()
                                   if fnmatch.fnmatch(p, f"var/lib/dpkg/info/{name}:*.list")), None)
        if listing is None:
            fail(f"no dpkg file list for '{name}'")
        for line in src.extractfile(listing).read().decode().splitlines():
            if line.strip() and line != "/.":
                files.add(canonical(line, links))
    return files


def main():
    if len(sys.argv) != 3:
        fail("usage: cut-rootfs.py <debian-rootfs.tar> <out.tar> < spec.json")
    source, out = sys.argv[1:]
    spec = json.load(sys.stdin)
    with tarfile.open(source) as src:
        members = {m.name.removeprefix("./").rstrip("/"): m for m in src.getmembers()}
        links = {n: members[n].linkname.lstrip("/") for n in TOP_LINKS
                 if n in members and members[n].issym()}
        keep = set(links)
        names = closure(spec.get("packages", []), read_status(src, members)) if spec.get("packages") else []
        excluded = spec.get("exclude", [])
        for path in package_files(src, members, names, links):
            if path in members and not any(fnmatch.fnmatch(path, g) for g in excluded):
                keep.add(path)
        for pattern in spec.get("patterns", []):
            matched = {p for p in members if fnmatch.fnmatch(p, pattern)}
            if not matched:
                fail(f"nothing matches {pattern} in {source}")
            keep |= matched
        entries = {path: (members[path], None) for path in keep}
        for d in spec.get("dirs", []):
            info = tarfile.TarInfo(d["path"])
            info.type, info.mode = tarfile.DIRTYPE, int(str(d.get("mode", "755")), 8)
            info.uid, info.gid = d.get("uid", 0), d.get("gid", d.get("uid", 0))
            entries[d["path"]] = (info, None)
        for f in spec.get("files", []):
            data = f["text"].encode()
            info = tarfile.TarInfo(f["path"])
            info.size, info.mode = len(data), int(str(f.get("mode", "644")), 8)
            entries[f["path"]] = (info, data)
        for link in spec.get("symlinks", []):
            info = tarfile.TarInfo(link["path"])
            info.type, info.linkname = tarfile.SYMTYPE, link["target"]
            entries[link["path"]] = (info, None)
        for path in list(entries):
            parent = posixpath.dirname(path)
            while parent and parent not in entries:
                member = members.get(parent)
                info = tarfile.TarInfo(parent)
                info.type, info.mode = tarfile.DIRTYPE, member.mode if member else 0o755
                entries[parent] = (info, None)
                parent = posixpath.dirname(parent)
        # Sorted, so that every directory comes before what it holds.
        with tarfile.open(out, "w", format=tarfile.GNU_FORMAT) as dst:
            for path in sorted(entries):
                info, data = entries[path]
                info.name = path
                if "mtime" in spec:
                    info.mtime = spec["mtime"]
                if data is not None:
                    dst.addfile(info, io.BytesIO(data))
                elif info.isfile():
                    dst.addfile(info, src.extractfile(info))
                else:
                    dst.addfile(info)
    if names:
        print(f"cut-rootfs: took {len(names)} packages: {' '.join(names)}", file=sys.stderr)


if __name__ == "__main__":
    main()
