import { fork, type ChildProcess } from 'node:child_process';
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
    for (let i = 0; i < Math.min(jobs, count); i++) {
      const child = fork(entry.path, [], { execArgv: entry.execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
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
