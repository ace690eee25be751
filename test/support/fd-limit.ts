/**
 * Many connections need many file descriptors: a process is spawned through `sh` with its
 * soft open-file limit raised to the hard limit (`ulimit -n "$(ulimit -Hn)"`), which any user
 * may do; above the hard limit only root can go, so that one is reported, not changed.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';

export function spawnWithRaisedFdLimit(
  command: string,
  args: readonly string[],
  options: SpawnOptions,
): ChildProcess {
  const script = 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"';
  return spawn('/bin/sh', ['-c', script, 'sh', command, ...args], options);
}

/** A process's open-file limits, from /proc (Linux); undefined elsewhere. */
export function openFileLimit(pid: number): { soft: string; hard: string } | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const [soft, hard] = line?.slice('Max open files'.length).trim().split(/\s+/) ?? [];
    return soft && hard ? { soft, hard } : undefined;
  } catch {
    return undefined;
  }
}
