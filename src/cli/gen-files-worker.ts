// A generation process of `kiln gen --count K -j N` (src/cli/gen-jobs.ts): receives seeds, writes
// each seed's program into the output directory, and sends back what the seed prints.
import { KilnError } from '../diag/errors.js';
import { tuneV8ForGeneration } from '../harness/v8-tuning.js';
import { genSeed, type GenBatch } from './gen-files.js';
import type { GenFilesReply, GenFilesRequest } from './gen-jobs.js';

tuneV8ForGeneration();

let batch: GenBatch | undefined;

// The parent reports an interrupted run; its generation processes just stop.
process.on('SIGINT', () => process.exit(130));
process.on('disconnect', () => process.exit(0));

process.on('message', (m: GenFilesRequest) => {
  if (m.type === 'init') {
    batch = m.batch;
    return;
  }
  let reply: GenFilesReply;
  try {
    if (!batch) throw new Error('generation process used before init');
    let out = '';
    let err = '';
    const ok = genSeed(BigInt(m.seed), batch, { out: (t) => void (out += t), err: (t) => void (err += t) });
    reply = { id: m.id, ok, out, err };
  } catch (e) {
    const error =
      e instanceof KilnError
        ? { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) }
        : { message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    reply = { id: m.id, error };
  }
  if (!process.connected) process.exit(0);
  process.send!(reply, undefined, {}, (err: Error | null) => {
    if (err) process.exit(0);
  });
});
