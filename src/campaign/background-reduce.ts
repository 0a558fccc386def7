import { KilnError } from '../diag/errors.js';
import { reduceAndBundle, type ReducedFinding } from './reduce-finding.js';

/**
 * Reduces findings one at a time while a campaign runs (`kiln fuzz --reduce`). One job only, so
 * the campaign keeps its cores; a reduction still running when the campaign stops is cut short and
 * its best program so far (already verified to show the bug) is written as the bundle.
 */
export class BackgroundReducer {
  private readonly queue: string[] = [];
  private running: Promise<void> | undefined;
  private readonly stop = new AbortController();
  /** Reductions finished (bundles written) and failed. */
  done = 0;
  failed = 0;

  constructor(
    private readonly onReduced: (dir: string, r: ReducedFinding) => void,
    private readonly onFailed: (dir: string, message: string) => void,
    /** Aborting it (Ctrl-C) cuts the running reduction short, as `close(true)` does. */
    interrupt?: AbortSignal,
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

  private async drain(): Promise<void> {
    for (let dir = this.queue.shift(); dir !== undefined && !this.stop.signal.aborted; dir = this.queue.shift()) {
      try {
        const r = await reduceAndBundle(dir, { jobs: 1, signal: this.stop.signal });
        this.done++;
        this.onReduced(dir, r);
      } catch (e) {
        this.failed++;
        this.onFailed(dir, e instanceof KilnError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e));
      }
    }
    this.running = undefined;
  }
}
