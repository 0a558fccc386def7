import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KilnError } from '../diag/errors.js';
import { detectCompilers, resolveCompiler, type Compiler } from '../harness/compilers.js';
import { TempRoot } from '../harness/tempdir.js';
import { readFinding } from '../triage/finding.js';
import { minimiseFinding } from '../triage/minimise-command.js';
import { VERSIONS_FILE, versionLine, type VersionLabel } from '../triage/versions.js';
import { reduceFindingFolder, type FolderReduction, type ReduceFolderOptions } from './reduce-folder.js';

/** Which findings are reduced first: a bug trunk still has is the one worth filing. */
const PRIORITY: Readonly<Record<VersionLabel, number>> = { live: 0, regression: 0, untested: 1, fixed: 2 };

/**
 * The index of the folder to reduce next: the first of the best label (live and regression, then untested, then fixed);
 * -1 when none waits.
 */
export function nextToReduce(queue: readonly string[], labels: ReadonlyMap<string, VersionLabel>): number {
  const rank = (d: string): number => PRIORITY[labels.get(d) ?? 'untested'];
  let best = queue.length ? 0 : -1;
  for (let i = 1; i < queue.length; i++) if (rank(queue[i]!) < rank(queue[best]!)) best = i;
  return best;
}

/**
 * Reduces findings one at a time while a campaign runs (`kiln fuzz --reduce`). One job only, so
 * the campaign keeps its cores; a reduction still running when the campaign stops is cut short and
 * its best program so far (already verified to show the bug) is written as the bundle.
 * Each finding waiting is first placed on its version line (a few compiles, written to
 * `versions.json` in its folder), and the live ones are reduced first, the fixed ones last.
 */
export class BackgroundReducer {
  private readonly queue: string[] = [];
  private readonly labels = new Map<string, VersionLabel>();
  private installed: Promise<Compiler[]> | undefined;
  private running: Promise<void> | undefined;
  private readonly stop = new AbortController();
  /** Reductions finished (bundles written) and failed. */
  done = 0;
  failed = 0;

  constructor(
    private readonly onReduced: (dir: string, r: FolderReduction) => void,
    private readonly onFailed: (dir: string, message: string) => void,
    /** Aborting it (Ctrl-C) cuts the running reduction short, as `close(true)` does. */
    interrupt?: AbortSignal,
    /** Bounds of each reduction (default none: each runs to its fixpoint). */
    private readonly bounds: Pick<ReduceFolderOptions, 'maxTimeMs' | 'maxCandidates'> = {},
  ) {
    interrupt?.addEventListener('abort', () => this.stop.abort(), { once: true });
  }

  /** Queues a finding folder. */
  add(dir: string): void {
    this.queue.push(dir);
    this.running ??= this.drain();
  }

  /** Folders still waiting (not started). */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Finishes. With `abort`, cuts the reduction in progress short (its best program so far is
   * written) and returns the folders never started; without, waits until the queue is empty.
   */
  async close(abort: boolean): Promise<string[]> {
    if (!abort) {
      while (this.running) await this.running;
      return [];
    }
    const left = this.queue.splice(0);
    this.stop.abort();
    await this.running;
    return left;
  }

  /** Whether a reduction is running or waiting. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** The next folder to reduce: every waiting one labelled, the live ones first, in arrival order. */
  private async next(): Promise<string | undefined> {
    for (const dir of [...this.queue]) {
      if (this.stop.signal.aborted) return undefined;
      if (!this.labels.has(dir)) this.labels.set(dir, await this.label(dir));
    }
    const i = nextToReduce(this.queue, this.labels);
    return i < 0 ? undefined : this.queue.splice(i, 1)[0];
  }

  /** Places a finding on its version line and writes it into the folder; `untested` when it cannot. */
  private async label(dir: string): Promise<VersionLabel> {
    const temp = TempRoot.create();
    try {
      // The version line runs the smallest command line (src/triage/minimise-command.ts).
      await minimiseFinding(dir, { signal: this.stop.signal });
      const f = readFinding(dir);
      this.installed ??= detectCompilers();
      const line = await versionLine(f, await resolveCompiler(f.compilerPath), await this.installed, {
        temp,
        signal: this.stop.signal,
      });
      const path = join(dir, VERSIONS_FILE);
      await writeFile(`${path}.tmp`, `${JSON.stringify(line, null, 2)}\n`);
      await rename(`${path}.tmp`, path);
      return line.label;
    } catch {
      return 'untested'; // its compiler gone, or the campaign stopping: the reduction says the rest
    } finally {
      temp.dispose();
    }
  }

  private async drain(): Promise<void> {
    for (let dir = await this.next(); dir !== undefined && !this.stop.signal.aborted; dir = await this.next()) {
      try {
        // The same reduction, fallbacks included, as `kiln reduce FINDING_DIR`.
        const r = await reduceFindingFolder(dir, { ...this.bounds, jobs: 1, signal: this.stop.signal });
        this.done++;
        this.onReduced(dir, r);
      } catch (e) {
        this.failed++;
        this.onFailed(
          dir,
          e instanceof KilnError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e),
        );
      }
    }
    this.running = undefined;
  }
}
