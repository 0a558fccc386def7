import type { ProgramRequires } from '../ir/census.js';
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EmittedFile } from '../emit/files.js';
import type { Mode, ModeChoice } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';

/** One seed for a generation process of any pool (after its `init` message, which carries its script's fields). */
interface SeedRequest {
  readonly type: 'gen';
  readonly id: number;
  readonly seed: string;
  /** The target model to generate for (a campaign over several targets); absent: the policy's. */
  readonly target?: string;
}

/** Messages to a campaign's generation process (src/harness/gen-worker.ts). */
export type GenRequest =
  | {
      readonly type: 'init';
      readonly policy: Policy;
      readonly mode: ModeChoice;
      readonly ubShare?: number;
      readonly emi?: number;
    }
  | SeedRequest;

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
      /** What the program needs of a compiler (`__int128`, `_BitInt` widths), from its IR. */
      readonly requires?: ProgramRequires;
    }
  | {
      readonly id: number;
      readonly seed: string;
      readonly ok: false;
      readonly reason: string;
      readonly error?: string;
      readonly genMs: number;
    };

/** Why a seed got no answer from a generation process. */
type Unanswered = 'generator error' | 'pool closed' | 'pool failed';

/** What the processes of a pool run: a script, its start-up message, and the answer for a seed none of them gives. */
export interface GeneratorScript<Reply> {
  /** The Node script (see {@link scriptEntry}) and the flags it starts with. */
  readonly entry: { readonly path: string; readonly execArgv: readonly string[] };
  /** Fields of the `init` message each process gets first. */
  readonly init: Readonly<Record<string, unknown>>;
  /** The reply for a seed whose process died, or that a closed or broken pool cannot take. */
  unanswered(id: number, seed: string, reason: Unanswered, error: string | undefined): Reply;
}

interface Slot<Reply> {
  child: ChildProcess;
  busy: { id: number; seed: string; resolve: (r: Reply) => void } | undefined;
}

/**
 * A pool of generation processes (one per core by default), the one Kiln has: a campaign's
 * programs ({@link GeneratorPool.programs}, src/harness/gen-worker.ts) and `kiln gen --count -j N`
 * (src/cli/gen-files.ts) both run on it. Each seed goes to an idle process as `{type: 'gen', id,
 * seed}` and its reply carries the id; a process that dies mid-request answers `generator error`
 * for that seed and is replaced.
 */
export class GeneratorPool<Reply extends { readonly id: number } = GenReply> {
  private readonly slots: Slot<Reply>[] = [];
  private readonly waiting: { seed: string; target?: string; resolve: (r: Reply) => void }[] = [];
  private nextId = 1;
  private closed = false;
  /** Processes that died in a row without answering: a broken installation, not a bad seed. */
  private deathsInARow = 0;
  /** Set when generation processes cannot be kept alive; every request then fails with it. */
  private broken: string | undefined;

  constructor(
    readonly size: number,
    private readonly script: GeneratorScript<Reply>,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /**
   * The pool of a campaign: each seed's program generated, executed, repaired and emitted, varied
   * by `--ub-share` and `--emi K` (src/mutate/recipes.ts; 0: off).
   */
  static programs(
    size: number,
    policy: Policy,
    mode: ModeChoice = 'csmith',
    variation: { readonly ubShare?: number; readonly emi?: number } = {},
  ): GeneratorPool<GenReply> {
    return new GeneratorPool<GenReply>(size, {
      entry: scriptEntry(import.meta.url, 'gen-worker'),
      init: { policy, mode, ...variation },
      unanswered: (id, seed, reason, error) => ({ id, seed, ok: false, reason, error, genMs: 0 }),
    });
  }

  /** Generates the program of one seed (for target model `target`, when given, instead of the policy's). */
  generate(seed: bigint | string, target?: string): Promise<Reply> {
    return new Promise((resolve) => {
      if (this.closed || this.broken) {
        resolve(this.script.unanswered(0, String(seed), this.broken ? 'pool failed' : 'pool closed', this.broken));
        return;
      }
      this.waiting.push({ seed: String(seed), resolve, ...(target !== undefined ? { target } : {}) });
      this.dispatch();
    });
  }

  /** Kills every generation process; pending requests answer "pool closed". */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const reason = this.broken ? 'pool failed' : 'pool closed';
    for (const s of this.slots) {
      if (s.busy) s.busy.resolve(this.script.unanswered(s.busy.id, s.busy.seed, reason, this.broken));
      s.busy = undefined;
      s.child.removeAllListeners('exit');
      s.child.kill('SIGKILL');
    }
    for (const w of this.waiting.splice(0)) w.resolve(this.script.unanswered(0, w.seed, reason, this.broken));
  }

  private dispatch(): void {
    for (const s of this.slots) {
      if (this.waiting.length === 0) return;
      if (s.busy || !s.child.connected) continue;
      const w = this.waiting.shift()!;
      const id = this.nextId++;
      s.busy = { id, seed: w.seed, resolve: w.resolve };
      s.child.send({
        type: 'gen',
        id,
        seed: w.seed,
        ...(w.target !== undefined ? { target: w.target } : {}),
      } satisfies SeedRequest);
    }
  }

  private spawn(): Slot<Reply> {
    const entry = this.script.entry;
    const child = fork(entry.path, [], {
      execArgv: [...entry.execArgv],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const slot: Slot<Reply> = { child, busy: undefined };
    child.send({ type: 'init', ...this.script.init });
    child.on('message', (m: Reply) => {
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
      if (b)
        b.resolve(
          this.script.unanswered(
            b.id,
            b.seed,
            'generator error',
            `generation process died (${signal ?? `exit ${code}`})`,
          ),
        );
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
