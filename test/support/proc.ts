// Process liveness for tests that check Kiln kills what it starts.
import { readFileSync } from 'node:fs';

/**
 * Whether a process exists and is not a zombie. Children run under `timeout`, so a killed one is
 * Kiln's grandchild and stays a zombie until init reaps it: dead for every test's purpose.
 */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Whether a process that was just sent SIGKILL is dead within `withinMs`. The signal is delivered
 * at once, but the process dies only when it is next scheduled: right after the kill it can still
 * show as running.
 */
export async function dies(pid: number, withinMs = 2000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
