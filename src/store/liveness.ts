import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * A process's start time as the kernel reports it (field 22 of `/proc/PID/stat`, clock ticks since
 * boot); with the pid it names one process, so a pid reused by another process is told apart.
 * Undefined where /proc is not available or the process is gone.
 */
export function processStart(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19];
}

/** This machine's name, recorded with each session (a pid means nothing on another host). */
export function thisHost(): string {
  return hostname();
}

/**
 * Whether the process that recorded (`pid`, `start`) still runs: the pid exists and, when its
 * start time was recorded and can be read, it is the same process.
 */
export function processAlive(pid: number, start?: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!start) return true;
  const now = processStart(pid);
  return now === undefined || now === start;
}
