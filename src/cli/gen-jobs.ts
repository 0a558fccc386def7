// `kiln gen --count K -j N`: seeds in the generator pool (src/harness/genpool.ts), each process
// (gen-files-worker.ts) writing its own seeds' files, what they print printed in seed order.
import { availableParallelism } from 'node:os';
import { KilnError } from '../diag/errors.js';
import { GeneratorPool, scriptEntry } from '../harness/genpool.js';
import { tuneV8ForGeneration } from '../harness/v8-tuning.js';
import { genSeed, type GenBatch } from './gen-files.js';
import type { GenSink } from './gen-ub.js';

/** Messages to a generation process of `kiln gen -j`: the batch first, then one seed at a time. */
export type GenFilesRequest =
  | { readonly type: 'init'; readonly batch: GenBatch }
  | { readonly type: 'gen'; readonly id: number; readonly seed: string };

/** A generation process's answer for one seed: what it printed, or the error that stopped it. */
export type GenFilesReply =
  | { readonly id: number; readonly ok: boolean; readonly out: string; readonly err: string }
  | {
      readonly id: number;
      readonly error: { readonly code?: string; readonly message: string; readonly hint?: string };
    };

/**
 * V8 flags of generation processes that keep every core busy. By default V8 gives each process
 * helper threads (parallel scavenges, concurrent marking and optimising compiles); with one
 * generation process per core they only take turns with the other processes' main threads.
 * `kiln gen --count 150` on two cores (two processes), alternating runs: 5.8-6.4 s (mean 6.08,
 * 12 runs) with `--single-threaded`, 6.4-6.7 s (mean 6.58, 4 runs) without; `--single-threaded-gc`
 * alone gave 6.09. The flag changes when and where V8 works, never what the generator computes.
 * With fewer processes than cores, the helpers have idle cores to run on, and are left on.
 */
const SINGLE_THREADED = ['--single-threaded'];

/**
 * `kiln gen --count K -j N`: the seeds go, one at a time, to N generation processes
 * (src/cli/gen-files-worker.ts), each writing its programs' files itself; what each seed prints goes
 * to `sink` in seed order, so stdout and stderr are those of `-j 1`. Resolves to the number of
 * discarded seeds; rejects with the first seed's error (a user error such as an unwritable file,
 * or an internal one), after printing what the seeds before it printed.
 */
async function generateInProcesses(
  first: bigint,
  count: number,
  jobs: number,
  batch: GenBatch,
  sink: GenSink,
  progress?: (done: number) => void,
): Promise<number> {
  const entry = scriptEntry(import.meta.url, 'gen-files-worker');
  const pool = new GeneratorPool<GenFilesReply>(Math.min(jobs, count), {
    entry: {
      path: entry.path,
      execArgv: [...entry.execArgv, ...(jobs >= availableParallelism() ? SINGLE_THREADED : [])],
    },
    init: { batch },
    // A seed no process answered stops the run (the pool is closed only after an error).
    unanswered: (id, seed, _reason, error) => ({
      id,
      error: { message: `a ${error ?? 'generation process stopped'} while generating seed ${seed}` },
    }),
  });
  try {
    // Every seed is queued at once; idle processes take them in order.
    const replies = Array.from({ length: count }, (_, i) => pool.generate(first + BigInt(i)));
    let discarded = 0;
    for (let i = 0; i < count; i++) {
      const r = await replies[i]!;
      if ('error' in r) {
        const e = r.error;
        throw e.code ? new KilnError(e.code as KilnError['code'], e.message, e.hint) : new Error(e.message);
      }
      sink.out(r.out);
      sink.err(r.err);
      if (!r.ok) discarded++;
      progress?.(i + 1);
    }
    return discarded;
  } finally {
    pool.close();
  }
}

/**
 * `kiln gen --count K`: seeds `first` … `first + K - 1`, in this process or (with -j N, N > 1) in
 * N generation processes; the same files and output either way. Resolves to the discarded seeds.
 */
export async function generateSeeds(
  first: bigint,
  count: number,
  jobs: number,
  batch: GenBatch,
  sink: GenSink,
  progress?: (done: number) => void,
): Promise<number> {
  if (jobs > 1 && count > 1) return generateInProcesses(first, count, jobs, batch, sink, progress);
  tuneV8ForGeneration();
  let discarded = 0;
  for (let i = 0; i < count; i++) {
    if (!genSeed(first + BigInt(i), batch, sink)) discarded++;
    progress?.(i + 1);
  }
  return discarded;
}
