import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { KilnError } from '../diag/errors.js';
import { scriptEntry } from '../harness/genpool.js';
import type { GenBatch } from './gen.js';
import type { GenSink } from './gen-ub.js';

/** Messages to a generation process of `kiln gen -j`. */
export type GenJobRequest = { readonly type: 'init'; readonly batch: GenBatch } | { readonly type: 'seed'; readonly index: number; readonly seed: string };

/** A generation process's answer for one seed: what it printed, or the error that stopped it. */
export type GenJobReply =
  | { readonly index: number; readonly ok: boolean; readonly out: string; readonly err: string }
  | { readonly index: number; readonly error: { readonly code?: string; readonly message: string; readonly hint?: string } };

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
 * (src/cli/gen-worker.ts), each writing its programs' files itself; what each seed prints goes
 * to `sink` in seed order, so stdout and stderr are those of `-j 1`. Resolves to the number of
 * discarded seeds; rejects with the first seed's error (a user error such as an unwritable file,
 * or an internal one), after printing what the seeds before it printed.
 */
export function generateInProcesses(first: bigint, count: number, jobs: number, batch: GenBatch, sink: GenSink, progress?: (done: number) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const entry = scriptEntry(import.meta.url, 'gen-worker');
    const replies = new Map<number, GenJobReply>();
    const workers: { child: ChildProcess; busy: number | undefined }[] = [];
    let next = 0;
    let printed = 0;
    let discarded = 0;
    let over = false;
    const finish = (error?: Error): void => {
      if (over) return;
      over = true;
      for (const w of workers) {
        w.child.removeAllListeners('exit');
        w.child.kill('SIGKILL');
      }
      if (error) reject(error);
      else resolve(discarded);
    };
    const print = (): void => {
      for (let r = replies.get(printed); r !== undefined && !over; r = replies.get(printed)) {
        replies.delete(printed);
        if ('error' in r) {
          const e = r.error;
          return finish(e.code ? new KilnError(e.code as KilnError['code'], e.message, e.hint) : new Error(e.message));
        }
        sink.out(r.out);
        sink.err(r.err);
        if (!r.ok) discarded++;
        printed++;
        progress?.(printed);
      }
      if (printed === count) finish();
    };
    const feed = (w: (typeof workers)[number]): void => {
      w.busy = next < count ? next++ : undefined;
      if (w.busy !== undefined) w.child.send({ type: 'seed', index: w.busy, seed: String(first + BigInt(w.busy)) } satisfies GenJobRequest);
    };
    const execArgv = [...entry.execArgv, ...(jobs >= availableParallelism() ? SINGLE_THREADED : [])];
    for (let i = 0; i < Math.min(jobs, count); i++) {
      const child = fork(entry.path, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      const w = { child, busy: undefined as number | undefined };
      workers.push(w);
      child.send({ type: 'init', batch } satisfies GenJobRequest);
      child.on('message', (m: GenJobReply) => {
        replies.set(m.index, m);
        feed(w);
        print();
      });
      child.on('exit', (code, signal) => {
        const seed = w.busy === undefined ? undefined : first + BigInt(w.busy);
        finish(new Error(`a generation process died (${signal ?? `exit ${code}`})${seed === undefined ? '' : ` while generating seed ${seed}`}`));
      });
      child.on('error', () => undefined); // 'exit' follows
      feed(w);
    }
  });
}
