import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reapOrphans } from './sandbox.js';

const PREFIX = 'kiln-fuzz-';

/** The process's temporary roots not yet removed: the exit hook removes them (process-wide, as the exit is). */
const liveRoots = new Set<TempRoot>();

function disposeLiveRoots(): void {
  for (const r of [...liveRoots]) r.dispose();
}

/**
 * One private folder under the system temporary directory holding every compile and run folder of
 * a process. It is removed when the process exits for any reason Node can see (normal exit,
 * `process.exit` after a second Ctrl-C); folders left by a SIGKILLed process are swept by the next
 * campaign ({@link sweepStaleTempRoots}).
 */
export class TempRoot {
  private disposed = false;

  private constructor(readonly path: string) {
    liveRoots.add(this);
    // One exit hook for every root of the process: probes make dozens at once, and a listener per
    // root would pass Node's limit of ten and print MaxListenersExceededWarning.
    if (liveRoots.size === 1 && !process.listeners('exit').includes(disposeLiveRoots))
      process.on('exit', disposeLiveRoots);
  }

  /** Creates the root folder `<tmp>/kiln-fuzz-<pid>-XXXXXX`. */
  static create(base: string = tmpdir()): TempRoot {
    return new TempRoot(mkdtempSync(join(base, `${PREFIX}${process.pid}-`)));
  }

  /** A fresh folder for one compile or one run. */
  dir(kind: string): Promise<string> {
    return mkdtemp(join(this.path, `${kind}-`));
  }

  /** Removes one folder made by {@link dir} (never throws: cleanup must not hide a result). */
  async remove(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
  }

  /** Removes the root and everything in it; idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    liveRoots.delete(this);
    try {
      rmSync(this.path, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // Best effort at exit: a leftover folder is swept by the next campaign.
    }
  }
}

/**
 * Cleans up after Kiln processes that no longer exist (killed with SIGKILL): kills the processes
 * they left (compilers and binaries carry a tag naming their Kiln, see sandbox.ts; their `timeout`
 * wrapper already ended them at their limit unless they escaped its process group) and removes
 * their temporary roots. Returns the number of roots removed.
 */
export function sweepStaleTempRoots(base: string = tmpdir()): number {
  reapOrphans();
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = /^kiln-fuzz-(\d+)-/.exec(name);
    if (!m || processAlive(Number(m[1]))) continue;
    try {
      rmSync(join(base, name), { recursive: true, force: true });
      removed++;
    } catch {
      // Not ours to fight over.
    }
  }
  return removed;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
