import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { errNotInteresting } from '../../diag/errors.js';
import { MAX_TIMER_MS } from '../../harness/process.js';
import type { InterestingnessTest, Verdict } from './interesting.js';
import type { Pass, PassContext } from './pass.js';
import { CParser } from './parser.js';
import { DEFAULT_PASS_GROUPS, instantiate, type PassGroups } from './passes/index.js';

/** Something the text reducer reports while it works. */
export type ReduceEvent =
  | { readonly kind: 'start'; readonly bytes: number; readonly lines: number }
  | { readonly kind: 'pass'; readonly pass: string; readonly round: number; readonly bytes: number; readonly lines: number }
  | { readonly kind: 'commit'; readonly pass: string; readonly bytes: number; readonly lines: number; readonly text: string; readonly tests: number };

/** How the text reducer runs. */
export interface TextReduceOptions {
  /** The C text to reduce. */
  readonly text: string;
  /** The interestingness test (runs the user's script). */
  readonly test: Pick<InterestingnessTest, 'run'>;
  /** Name used in messages (usually the input path). */
  readonly label?: string;
  /** Candidates tested in parallel (default: the number of cores). */
  readonly jobs?: number;
  /** Stop after this long (ms), keeping the best text so far (default: no limit). */
  readonly maxTimeMs?: number;
  /** Which passes run when (default: `DEFAULT_PASS_GROUPS`). */
  readonly groups?: PassGroups;
  /** Explicit pass instances instead of `groups` (tests use this to drive custom passes). */
  readonly passes?: { readonly first: readonly Pass[]; readonly main: readonly Pass[]; readonly last: readonly Pass[] };
  /** Upper bound on rounds of the main group (default 100). */
  readonly maxRounds?: number;
  /** Progress callback. */
  readonly onEvent?: (e: ReduceEvent) => void;
}

/** Counters of one pass over the whole reduction. */
export interface PassStats {
  tests: number;
  successes: number;
  /** Candidates skipped because they parse worse than the current text. */
  syntaxSkips: number;
  ms: number;
}

/** The outcome of a text reduction. */
export interface TextReduceResult {
  readonly text: string;
  readonly originalBytes: number;
  readonly bytes: number;
  readonly lines: number;
  /** Script runs (cache hits excluded). */
  readonly tests: number;
  readonly cacheHits: number;
  readonly rounds: number;
  readonly stoppedBy: 'fixpoint' | 'time-limit' | 'round-limit';
  readonly passes: Readonly<Record<string, PassStats>>;
  readonly ms: number;
}

/** Size of a text in bytes (UTF-8) and lines. */
export function textSize(text: string): { bytes: number; lines: number } {
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  if (text.length > 0 && !text.endsWith('\n')) lines++;
  return { bytes: Buffer.byteLength(text), lines };
}

function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** One candidate in flight (or already decided), in the order its pass proposed it. */
interface Candidate {
  readonly state: unknown;
  readonly text: string;
  verdict: Verdict | undefined;
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * The text reducer's manager: checks that the test accepts the original, then runs the pass
 * groups (first once, main to a fixpoint, last once). Within a pass it keeps up to `jobs`
 * candidates in flight, commits the earliest success in the pass's own order (so the result does
 * not depend on timing), cancels the candidates after it (their process groups are killed), and
 * caches verdicts by content hash. A candidate the test rejects is never committed.
 */
export async function reduceText(opts: TextReduceOptions): Promise<TextReduceResult> {
  const started = Date.now();
  const jobs = Math.max(1, opts.jobs ?? availableParallelism());
  const deadline = opts.maxTimeMs === undefined ? Infinity : started + opts.maxTimeMs;
  const ctx: PassContext = { parser: new CParser() };
  const cache = new Map<string, boolean>();
  const running = new Set<Promise<void>>();
  const stats: Record<string, PassStats> = {};
  let tests = 0;
  let cacheHits = 0;
  let current = opts.text;
  let currentErrors = ctx.parser.errorCount(current);
  let currentBytes = Buffer.byteLength(current);
  let timedOut = false;
  let fatal: { error: unknown } | undefined;
  const emit = (e: ReduceEvent): void => opts.onEvent?.(e);

  const original = await opts.test.run(current);
  tests++;
  if (original !== 'interesting') {
    throw errNotInteresting(opts.label ?? 'input', original === 'timeout' ? 'it timed out; raise --timeout' : 'it exited with a non-zero status');
  }
  cache.set(hash(current), true);
  emit({ kind: 'start', ...textSize(current) });

  const launch = (state: unknown, text: string, passStats: PassStats): Candidate => {
    const controller = new AbortController();
    const key = hash(text);
    const known = cache.get(key);
    if (known !== undefined) {
      cacheHits++;
      return { state, text, verdict: known ? 'interesting' : 'boring', controller, done: Promise.resolve() };
    }
    tests++;
    passStats.tests++;
    const c: Candidate = {
      state,
      text,
      verdict: undefined,
      controller,
      done: opts.test.run(text, controller.signal).then(
        (v) => {
          c.verdict = v;
          if (v !== 'cancelled') cache.set(key, v === 'interesting');
        },
        (e: unknown) => {
          // The script could not be run at all: remember the error, the loop rethrows it.
          c.verdict = 'boring';
          fatal ??= { error: e };
        },
      ),
    };
    running.add(c.done);
    void c.done.then(() => running.delete(c.done));
    return c;
  };

  /** Runs one pass over the current text until it stops; returns whether it committed anything. */
  const runPass = async (pass: Pass): Promise<boolean> => {
    const passStats = (stats[pass.name] ??= { tests: 0, successes: 0, syntaxSkips: 0, ms: 0 });
    const t0 = Date.now();
    let progressed = false;
    let next: unknown = pass.init(current, ctx);
    let exhausted = next === null;
    let window: Candidate[] = [];
    try {
      for (;;) {
        if (Date.now() > deadline) {
          timedOut = true;
          return progressed;
        }
        // Fill: propose candidates until `jobs` are running (cached verdicts cost nothing).
        while (!exhausted && window.filter((c) => c.verdict === undefined).length < jobs && !window.some((c) => c.verdict === 'interesting')) {
          const state = next;
          const r = pass.transform(current, state, ctx);
          if (r.kind === 'stop') {
            exhausted = true;
            break;
          }
          next = pass.advance(current, state, ctx);
          if (next === null) exhausted = true;
          if (r.kind === 'invalid' || Buffer.byteLength(r.text) >= currentBytes) continue;
          if (!pass.allowSyntaxErrors && ctx.parser.errorCount(r.text) > currentErrors) {
            passStats.syntaxSkips++;
            continue;
          }
          window.push(launch(state, r.text, passStats));
        }
        if (fatal) throw fatal.error;
        // Decide from the head: the earliest candidate's verdict settles the order.
        let committed = false;
        while (window.length > 0 && window[0]!.verdict !== undefined) {
          const head = window.shift()!;
          if (head.verdict !== 'interesting') continue;
          for (const c of window) c.controller.abort();
          window = [];
          current = head.text;
          currentErrors = ctx.parser.errorCount(current);
          currentBytes = Buffer.byteLength(current);
          progressed = true;
          committed = true;
          passStats.successes++;
          emit({ kind: 'commit', pass: pass.name, ...textSize(current), text: current, tests });
          next = pass.advanceOnSuccess(current, head.state, ctx);
          exhausted = next === null;
          break;
        }
        if (committed) continue;
        if (window.length === 0) {
          if (exhausted) return progressed;
          continue;
        }
        const pending = window.filter((c) => c.verdict === undefined).map((c) => c.done);
        const remaining = deadline - Date.now();
        if (remaining === Infinity) await Promise.race(pending);
        // Capped at what a Node timer holds (a longer delay would fire at once): waking early only loops.
        else await Promise.race([...pending, new Promise((r) => setTimeout(r, Math.min(Math.max(0, remaining) + 1, MAX_TIMER_MS)).unref())]);
      }
    } finally {
      for (const c of window) c.controller.abort();
      passStats.ms += Date.now() - t0;
    }
  };

  const runGroup = async (passes: readonly Pass[], round: number): Promise<boolean> => {
    let progressed = false;
    for (const pass of passes) {
      if (timedOut) break;
      emit({ kind: 'pass', pass: pass.name, round, ...textSize(current) });
      if (await runPass(pass)) progressed = true;
    }
    return progressed;
  };

  const groups = opts.passes ?? {
    first: instantiate((opts.groups ?? DEFAULT_PASS_GROUPS).first),
    main: instantiate((opts.groups ?? DEFAULT_PASS_GROUPS).main),
    last: instantiate((opts.groups ?? DEFAULT_PASS_GROUPS).last),
  };
  const maxRounds = opts.maxRounds ?? 100;
  let rounds = 0;
  let stoppedBy: TextReduceResult['stoppedBy'] = 'fixpoint';
  try {
    await runGroup(groups.first, 0);
    for (;;) {
      if (timedOut) break;
      if (rounds >= maxRounds) {
        stoppedBy = 'round-limit';
        break;
      }
      rounds++;
      if (!(await runGroup(groups.main, rounds))) break;
    }
    if (!timedOut) await runGroup(groups.last, rounds + 1);
  } finally {
    // Cancelled runs end quickly (their process groups are killed); wait so no child outlives us.
    await Promise.allSettled([...running]);
  }
  if (timedOut) stoppedBy = 'time-limit';
  return {
    text: current,
    originalBytes: Buffer.byteLength(opts.text),
    ...textSize(current),
    tests,
    cacheHits,
    rounds,
    stoppedBy,
    passes: stats,
    ms: Date.now() - started,
  };
}
