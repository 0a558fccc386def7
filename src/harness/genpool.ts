import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EmittedFile } from '../emit/files.js';
import type { Mode, ModeChoice } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';

/** Messages to a generation process. */
export type GenRequest = { readonly type: 'init'; readonly policy: Policy; readonly mode: ModeChoice; readonly ubShare?: number; readonly emi?: number } | { readonly type: 'gen'; readonly id: number; readonly seed: string };

/** A generation process's answer for one seed. */
export type GenReply =
  | {
      readonly id: number;
      readonly seed: string;
      readonly ok: true;
      readonly mode: Mode;
      readonly expected: string;
      readonly files: readonly EmittedFile[];
      readonly genMs: number;
      /** `--ub-share`: the program was relaxed (src/repair/relax.ts); `ub` names the UB the interpreter met, if any. */
      readonly relaxed?: { readonly rates: Readonly<Record<string, number>>; readonly ub?: string };
    }
  | { readonly id: number; readonly seed: string; readonly ok: false; readonly reason: string; readonly error?: string; readonly genMs: number };

interface Slot {
  child: ChildProcess;
  busy: { id: number; seed: string; resolve: (r: GenReply) => void } | undefined;
}

/**
 * A pool of generation processes (one per core by default). Each request goes to an idle process;
 * a process that dies mid-request answers "generator error" for that seed and is replaced.
 */
export class GeneratorPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: { seed: string; resolve: (r: GenReply) => void }[] = [];
  private nextId = 1;
  private closed = false;
  /** Processes that died in a row without answering: a broken installation, not a bad seed. */
  private deathsInARow = 0;
  /** Set when generation processes cannot be kept alive; every request then fails with it. */
  private broken: string | undefined;

  constructor(
    readonly size: number,
    private readonly policy: Policy,
    private readonly mode: ModeChoice = 'csmith',
    /** `--ub-share` and `--emi K` (src/mutate/recipes.ts): how each seed's program is varied; 0: off. */
    private readonly variation: { readonly ubShare?: number; readonly emi?: number } = {},
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /** Generates the program of one seed. */
  generate(seed: bigint | string): Promise<GenReply> {
    return new Promise((resolve) => {
      if (this.closed || this.broken) {
        resolve({ id: 0, seed: String(seed), ok: false, reason: this.broken ? 'pool failed' : 'pool closed', error: this.broken, genMs: 0 });
        return;
      }
      this.waiting.push({ seed: String(seed), resolve });
      this.dispatch();
    });
  }

  /** Kills every generation process; pending requests answer "pool closed". */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const reason = this.broken ? 'pool failed' : 'pool closed';
    for (const s of this.slots) {
      if (s.busy) s.busy.resolve({ id: s.busy.id, seed: s.busy.seed, ok: false, reason, error: this.broken, genMs: 0 });
      s.busy = undefined;
      s.child.removeAllListeners('exit');
      s.child.kill('SIGKILL');
    }
    for (const w of this.waiting.splice(0)) w.resolve({ id: 0, seed: w.seed, ok: false, reason, error: this.broken, genMs: 0 });
  }

  private dispatch(): void {
    for (const s of this.slots) {
      if (this.waiting.length === 0) return;
      if (s.busy || !s.child.connected) continue;
      const w = this.waiting.shift()!;
      const id = this.nextId++;
      s.busy = { id, seed: w.seed, resolve: w.resolve };
      s.child.send({ type: 'gen', id, seed: w.seed } satisfies GenRequest);
    }
  }

  private spawn(): Slot {
    const entry = workerEntry();
    const child = fork(entry.path, [], { execArgv: entry.execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const slot: Slot = { child, busy: undefined };
    child.send({ type: 'init', policy: this.policy, mode: this.mode, ...this.variation } satisfies GenRequest);
    child.on('message', (m: GenReply) => {
      const b = slot.busy;
      if (!b || b.id !== m.id) return;
      slot.busy = undefined;
      this.deathsInARow = 0;
      b.resolve(m);
      this.dispatch();
    });
    child.on('exit', (code, signal) => {
      if (this.closed) return;
      const b = slot.busy;
      slot.busy = undefined;
      if (b) b.resolve({ id: b.id, seed: b.seed, ok: false, reason: 'generator error', error: `generation process died (${signal ?? `exit ${code}`})`, genMs: 0 });
      if (++this.deathsInARow > 2 * this.size + 3) {
        this.broken = `generation processes keep dying (last: ${signal ?? `exit ${code}`})`;
        this.close();
        return;
      }
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots[i] = this.spawn();
      this.dispatch();
    });
    child.on('error', () => undefined); // 'exit' follows and does the bookkeeping
    return slot;
  }
}

/**
 * How to start the Node script `name` (no extension) that sits beside the module at `fromUrl`:
 * compiled JavaScript beside compiled JavaScript, or the TypeScript source run through tsx.
 */
export function scriptEntry(fromUrl: string, name: string): { path: string; execArgv: string[] } {
  const self = fileURLToPath(fromUrl);
  const dir = dirname(self);
  if (self.endsWith('.ts')) {
    const tsx = createRequire(fromUrl).resolve('tsx');
    return { path: join(dir, `${name}.ts`), execArgv: ['--import', pathToFileURL(tsx).href] };
  }
  return { path: join(dir, `${name}.js`), execArgv: [] };
}

/** The worker script of a generation process. */
function workerEntry(): { path: string; execArgv: string[] } {
  return scriptEntry(import.meta.url, 'gen-worker');
}
