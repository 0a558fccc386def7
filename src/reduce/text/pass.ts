import { applyEdits, deletion, type Edit, type Range } from './edits.js';
import type { CParser, SyntaxTree } from './parser.js';

/** What a pass's `transform` produced for one state. */
type TransformResult =
  /** A candidate text to test. */
  | { readonly kind: 'ok'; readonly text: string }
  /** This state yields no usable candidate; the manager advances past it. */
  | { readonly kind: 'invalid' }
  /** The pass has nothing more to try on this text. */
  | { readonly kind: 'stop' };

/** What every pass may use: the shared (memoising) C parser. */
export interface PassContext {
  readonly parser: CParser;
}

/**
 * A reduction pass as a small state machine (after C-Vise). States are immutable values, so the
 * manager can walk ahead with `advance` and test several candidates in parallel.
 *
 * - `init` (C-Vise's `new`): the first state for a text, or null when there is nothing to do;
 * - `advance`: the next state after the candidate of `state` was rejected (null: done);
 * - `advanceOnSuccess`: the state to continue from after the candidate of `state` was accepted and
 *   became the current `text` (null: done);
 * - `transform`: the candidate text of a state.
 */
export interface Pass<S = unknown> {
  /** Stable name, shown in progress lines and used in pass groups. */
  readonly name: string;
  /** Candidates may parse with more syntax errors than the current text (only the line pass). */
  readonly allowSyntaxErrors?: boolean;
  init(text: string, ctx: PassContext): S | null;
  advance(text: string, state: S, ctx: PassContext): S | null;
  advanceOnSuccess(text: string, state: S, ctx: PassContext): S | null;
  transform(text: string, state: S, ctx: PassContext): TransformResult;
}

/** Lists a text's candidates, each as the set of edits that produces it. */
export type EditEnumerator = (text: string, tree: SyntaxTree) => readonly (readonly Edit[])[];

/**
 * A pass that only describes edits: state `i` is the i-th candidate of the current text. After a
 * success the list is recomputed for the new text and the pass continues at the same index, which
 * is where the candidates following the accepted one have moved to.
 */
export function editListPass(name: string, enumerate: EditEnumerator): Pass<number> {
  // Per-instance memo (one pass instance per reduction): the list for the last text seen.
  let memoText: string | undefined;
  let memoList: readonly (readonly Edit[])[] = [];
  const candidates = (text: string, ctx: PassContext): readonly (readonly Edit[])[] => {
    if (text !== memoText) {
      memoList = enumerate(text, ctx.parser.parse(text));
      memoText = text;
    }
    return memoList;
  };
  return {
    name,
    init: (text, ctx) => (candidates(text, ctx).length > 0 ? 0 : null),
    advance: (text, i, ctx) => (i + 1 < candidates(text, ctx).length ? i + 1 : null),
    advanceOnSuccess: (text, i, ctx) => (i < candidates(text, ctx).length ? i : null),
    transform: (text, i, ctx) => {
      const list = candidates(text, ctx);
      if (i >= list.length) return { kind: 'stop' };
      const out = applyEdits(text, list[i]!);
      return out === null || out === text ? { kind: 'invalid' } : { kind: 'ok', text: out };
    },
  };
}

/** State of a binary-partition removal: remove units `[index, index + chunk)`. */
export interface ChunkState {
  readonly chunk: number;
  readonly index: number;
}

/** Options of a delta-debugging pass. */
export interface ChunkOptions {
  /** Candidates may parse with more syntax errors than the current text (only the line pass). */
  readonly allowSyntaxErrors?: boolean;
  /** Try chunks from the end of the text towards its start. */
  readonly backward?: boolean;
  /**
   * The smallest chunk tried, given the number of units (default 1). A coarse sweep stops early:
   * single lines of a 3,000-line file are 6,000 candidates, a few hours with a test of seconds.
   */
  readonly minChunk?: (units: number) => number;
}

/** Lists the units of a text as edits, in order (nested units are allowed: see `applyEdits`). */
export type UnitEnumerator = (text: string, ctx: PassContext) => readonly Edit[];

/**
 * Delta debugging over a list of unit edits (removing lines, declarations, statements; replacing
 * expressions by 0): apply all of them, then each half, then each quarter, … down to single
 * units. After a success the same index names the units next to the applied ones, so the pass
 * continues there. C declares before it uses, so passes that remove code go backward: a use
 * goes first, and the declaration it needed can go later in the same sweep.
 */
export function chunkedEditPass(name: string, units: UnitEnumerator, opts: ChunkOptions = {}): Pass<ChunkState> {
  let memoText: string | undefined;
  let memoUnits: readonly Edit[] = [];
  const list = (text: string, ctx: PassContext): readonly Edit[] => {
    if (text !== memoText) {
      memoUnits = units(text, ctx);
      memoText = text;
    }
    return memoUnits;
  };
  const next = (n: number, s: ChunkState): ChunkState | null => {
    let { chunk, index } = s;
    chunk = Math.min(chunk, n);
    if (index >= n) {
      index = 0;
      chunk = Math.floor(chunk / 2);
    }
    return chunk >= Math.max(1, opts.minChunk?.(n) ?? 1) && n > 0 ? { chunk, index } : null;
  };
  return {
    name,
    allowSyntaxErrors: opts.allowSyntaxErrors ?? false,
    init: (text, ctx) => {
      const n = list(text, ctx).length;
      return n > 0 ? { chunk: n, index: 0 } : null;
    },
    advance: (text, s, ctx) => next(list(text, ctx).length, { chunk: s.chunk, index: s.index + s.chunk }),
    advanceOnSuccess: (text, s, ctx) => next(list(text, ctx).length, s),
    transform: (text, s, ctx) => {
      const u = list(text, ctx);
      if (s.index >= u.length) return { kind: 'stop' };
      // Backward, chunk k counts from the end: later units (uses) go before earlier ones (definitions).
      const [from, to] = opts.backward
        ? [Math.max(0, u.length - s.index - s.chunk), u.length - s.index]
        : [s.index, s.index + s.chunk];
      const out = applyEdits(text, u.slice(from, to));
      return out === null || out === text ? { kind: 'invalid' } : { kind: 'ok', text: out };
    },
  };
}

/** Lists the removable units of a text as ranges, in order. */
export type RangeEnumerator = (text: string, ctx: PassContext) => readonly Range[];

/** Delta debugging over removable ranges (see `chunkedEditPass`). */
export function chunkedRemovalPass(name: string, units: RangeEnumerator, opts: ChunkOptions = {}): Pass<ChunkState> {
  return chunkedEditPass(name, (text, ctx) => units(text, ctx).map(deletion), opts);
}
