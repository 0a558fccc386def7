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
