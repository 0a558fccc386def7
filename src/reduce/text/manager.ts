import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { errInterrupted, errNotInteresting } from '../../diag/errors.js';
import { MAX_TIMER_MS } from '../../harness/process.js';
import type { InterestingnessTest, Verdict } from './interesting.js';
import type { Pass, PassContext } from './pass.js';
import { CParser } from './parser.js';
import { DEFAULT_PASS_GROUPS, instantiate, type PassGroups } from './passes/index.js';

/** Something the text reducer reports while it works. */
export type ReduceEvent =
  | { readonly kind: 'start'; readonly bytes: number; readonly lines: number }
  | {
      readonly kind: 'pass';
      readonly pass: string;
      readonly round: number;
      readonly bytes: number;
      readonly lines: number;
    }
  | {
      readonly kind: 'commit';
      readonly pass: string;
      readonly bytes: number;
      readonly lines: number;
      readonly text: string;
      readonly tests: number;
      /** Accepted by the cheap test only: the deferred guards have not judged it yet (see `verify`). */
      readonly provisional: boolean;
    }
  /**
   * The deferred guards accepted `text` (a checkpoint), or rejected later texts and `text` is where the reduction went
   * back to.
   */
  | {
      readonly kind: 'verified';
      readonly text: string;
      readonly bytes: number;
      readonly lines: number;
      readonly reverted: boolean;
    };

/** How the text reducer runs. */
export interface TextReduceOptions {
  /** The C text to reduce. */
  readonly text: string;
  /** The interestingness test (runs the user's script); with `verify`, its cheap part. */
  readonly test: Pick<InterestingnessTest, 'run'>;
  /**
   * The whole test, when `test` leaves out guards that cost most (deferred guards). Candidates
   * are judged by `test`; `verify` judges the current text at checkpoints (after each pass that
   * committed, and at the end), not every accepted candidate. When it rejects, the reduction goes
   * back to the latest commit it accepts (by bisection over the commits since the last
   * checkpoint) and the rejected texts are never accepted again; after `strictAfter` such
   * rejections every candidate is judged by `verify` itself. The result always passes `verify`.
   */
  readonly verify?: Pick<InterestingnessTest, 'run'>;
  /**
   * Candidates of every pass must parse no worse than the current text, the line passes' too: for
   * tests that compile and run the program (a wrong-code test), where a candidate that does not
   * parse could only fail at its first build, after a second or more.
   */
  readonly strictSyntax?: boolean;
  /** Longest time between checkpoints within one pass, in ms (default 2 min). */
  readonly checkpointMs?: number;
  /** Rejections by `verify` after which it judges every candidate (default 3). */
  readonly strictAfter?: number;
  /** Name used in messages (usually the input path). */
  readonly label?: string;
  /** Candidates tested in parallel (default: the number of cores). */
  readonly jobs?: number;
  /** Stop after this long (ms), keeping the best text so far (default: no limit). */
  readonly maxTimeMs?: number;
  /**
   * Stop after judging this many candidates, keeping the best text so far (default: no limit). A
   * bound by work, not time: candidates are counted in each pass's own order as their verdicts
   * settle it (cached verdicts included, candidates cancelled by an earlier success not), and the
   * ones in flight when the count is reached are still decided, so with a deterministic test the
   * result depends neither on the machine's speed nor on `jobs` (except through the checkpoints
   * that a pass longer than `checkpointMs` makes on the way).
   */
  readonly maxCandidates?: number;
  /** Which passes run when (default: `DEFAULT_PASS_GROUPS`). */
  readonly groups?: PassGroups;
  /** Explicit pass instances instead of `groups` (tests use this to drive custom passes). */
  readonly passes?: { readonly first: readonly Pass[]; readonly main: readonly Pass[]; readonly last: readonly Pass[] };
  /** Upper bound on rounds of the main group (default 100). */
  readonly maxRounds?: number;
  /** Progress callback. */
  readonly onEvent?: (e: ReduceEvent) => void;
  /**
   * Stops the reduction (Ctrl-C): running candidates are cancelled and the result is the best text
   * the whole test has accepted (no checkpoint runs, so it stops at once).
   */
  readonly signal?: AbortSignal;
}

/** Counters of one pass over the whole reduction. */
interface PassStats {
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
  readonly stoppedBy: 'fixpoint' | 'time-limit' | 'candidate-limit' | 'round-limit' | 'interrupted';
  readonly passes: Readonly<Record<string, PassStats>>;
  readonly ms: number;
  /** With `verify`: its runs (checkpoints, and candidates once strict), and how often it sent the reduction back. */
  readonly verifications: number;
  readonly reverts: number;
}

/** Size of a text in bytes (UTF-8) and lines. */
export function textSize(text: string): { bytes: number; lines: number } {
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  if (text.length > 0 && !text.endsWith('\n')) lines++;
  return { bytes: Buffer.byteLength(text), lines };
}

/** Longest time between checkpoints of deferred guards within one pass. */
const CHECKPOINT_MS = 120_000;

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
  // A verdict by content hash: 'cheap' means accepted by `test` only (with `verify` in use).
  const cache = new Map<string, 'full' | 'cheap' | false>();
  const running = new Set<Promise<void>>();
  const stats: Record<string, PassStats> = {};
  let tests = 0;
  let cacheHits = 0;
  let current = opts.text;
  let currentErrors = ctx.parser.errorCount(current);
  let currentBytes = Buffer.byteLength(current);
  let timedOut = false;
  /** Candidates judged in pass order (see `maxCandidates`), and whether that budget stopped the reduction. */
  let judged = 0;
  let outOfCandidates = false;
  const maxCandidates = opts.maxCandidates ?? Infinity;
  let fatal: { error: unknown } | undefined;
  const emit = (e: ReduceEvent): void => opts.onEvent?.(e);
  const interrupted = (): boolean => opts.signal?.aborted === true;
  const onAbort = new Promise<void>((res) => opts.signal?.addEventListener('abort', () => res(), { once: true }));
  // Deferred guards: `strict` once `verify` judges every candidate (or when there is none).
  let strict = opts.verify === undefined;
  const strictAfter = opts.strictAfter ?? 3;
  let verifications = 0;
  let reverts = 0;
  let lastVerified = current;
  let lastCheckpoint = Date.now();
  /** Texts committed since the last checkpoint, in order (the last is `current`). */
  let unverified: string[] = [];
  const candidateTest = (): Pick<InterestingnessTest, 'run'> => (strict ? (opts.verify ?? opts.test) : opts.test);

  const original = await (opts.verify ?? opts.test).run(current, opts.signal);
  if (interrupted()) throw errInterrupted(opts.label ?? 'input');
  tests++;
  if (opts.verify) verifications++;
  if (original !== 'interesting') {
    throw errNotInteresting(
      opts.label ?? 'input',
      original === 'timeout' ? 'it timed out; raise --timeout' : 'it exited with a non-zero status',
    );
  }
  cache.set(hash(current), 'full');
  emit({ kind: 'start', ...textSize(current) });

  const launch = (state: unknown, text: string, passStats: PassStats): Candidate => {
    const controller = new AbortController();
    const key = hash(text);
    const known = cache.get(key);
    // Accepted by the cheap test only: not enough once every candidate must pass `verify`.
    if (known !== undefined && !(strict && known === 'cheap')) {
      cacheHits++;
      return { state, text, verdict: known ? 'interesting' : 'boring', controller, done: Promise.resolve() };
    }
    tests++;
    passStats.tests++;
    const level = strict ? 'full' : 'cheap';
    if (strict && opts.verify) verifications++;
    const c: Candidate = {
      state,
      text,
      verdict: undefined,
      controller,
      done: candidateTest()
        .run(text, controller.signal)
        .then(
          (v) => {
            c.verdict = v;
            if (v !== 'cancelled') cache.set(key, v === 'interesting' ? level : false);
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
        if (Date.now() > deadline || interrupted()) {
          timedOut = true;
          return progressed;
        }
        if (judged >= maxCandidates && window.length === 0) {
          timedOut = outOfCandidates = true;
          return progressed;
        }
        // Fill: propose candidates until `jobs` are running (cached verdicts cost nothing), never
        // more than the candidate budget has left.
        while (
          !exhausted &&
          judged + window.length < maxCandidates &&
          window.filter((c) => c.verdict === undefined).length < jobs &&
          !window.some((c) => c.verdict === 'interesting')
        ) {
          const state = next;
          const r = pass.transform(current, state, ctx);
          if (r.kind === 'stop') {
            exhausted = true;
            break;
          }
          next = pass.advance(current, state, ctx);
          if (next === null) exhausted = true;
          if (r.kind === 'invalid' || Buffer.byteLength(r.text) >= currentBytes) continue;
          if ((!pass.allowSyntaxErrors || opts.strictSyntax) && ctx.parser.errorCount(r.text) > currentErrors) {
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
          judged++;
          if (head.verdict !== 'interesting') continue;
          for (const c of window) c.controller.abort();
          window = [];
          current = head.text;
          currentErrors = ctx.parser.errorCount(current);
          currentBytes = Buffer.byteLength(current);
          progressed = true;
          committed = true;
          passStats.successes++;
          if (cache.get(hash(current)) === 'full') {
            lastVerified = current;
            unverified = [];
          } else unverified.push(current);
          emit({
            kind: 'commit',
            pass: pass.name,
            ...textSize(current),
            text: current,
            tests,
            provisional: current !== lastVerified,
          });
          next = pass.advanceOnSuccess(current, head.state, ctx);
          exhausted = next === null;
          // A long pass is checkpointed on the way, so the kept text does not fall far behind; going
          // back restarts the pass on the text it went back to.
          if (
            unverified.length > 0 &&
            Date.now() - lastCheckpoint >= (opts.checkpointMs ?? CHECKPOINT_MS) &&
            (await checkpoint())
          ) {
            next = pass.init(current, ctx);
            exhausted = next === null;
          }
          break;
        }
        if (committed) continue;
        if (window.length === 0) {
          if (exhausted) return progressed;
          continue;
        }
        const pending = window.filter((c) => c.verdict === undefined).map((c) => c.done);
        const remaining = deadline - Date.now();
        if (remaining === Infinity) await Promise.race([...pending, onAbort]);
        // Capped at what a Node timer holds (a longer delay would fire at once): waking early only loops.
        else
          await Promise.race([
            ...pending,
            onAbort,
            new Promise((r) => setTimeout(r, Math.min(Math.max(0, remaining) + 1, MAX_TIMER_MS)).unref()),
          ]);
      }
    } finally {
      for (const c of window) c.controller.abort();
      passStats.ms += Date.now() - t0;
    }
  };

  /**
   * Judges the current text with `verify` when it has not been. On rejection, bisects the commits
   * since the last checkpoint for the latest one `verify` accepts (each commit was made from the
   * one before it, so a guard violation, once introduced, is normally kept), goes back to it, and
   * marks the rejected ones so no pass commits them again. Returns whether the text changed.
   */
  const checkpoint = async (): Promise<boolean> => {
    if (!opts.verify || unverified.length === 0) return false;
    lastCheckpoint = Date.now();
    const judge = async (text: string): Promise<boolean> => {
      verifications++;
      tests++;
      const ok = (await opts.verify!.run(text)) === 'interesting';
      cache.set(hash(text), ok ? 'full' : false);
      return ok;
    };
    const history = unverified;
    unverified = [];
    if (await judge(history[history.length - 1]!)) {
      lastVerified = current;
      emit({ kind: 'verified', text: current, ...textSize(current), reverted: false });
      return false;
    }
    let good = -1; // index of the latest accepted commit (-1: the last checkpoint's text)
    let bad = history.length - 1;
    while (bad - good > 1) {
      const mid = (good + bad) >> 1;
      if (await judge(history[mid]!)) good = mid;
      else bad = mid;
    }
    for (const text of history.slice(bad)) cache.set(hash(text), false);
    current = good >= 0 ? history[good]! : lastVerified;
    lastVerified = current;
    currentErrors = ctx.parser.errorCount(current);
    currentBytes = Buffer.byteLength(current);
    reverts++;
    if (reverts >= strictAfter) strict = true;
    emit({ kind: 'verified', text: current, ...textSize(current), reverted: true });
    return true;
  };

  const runGroup = async (passes: readonly Pass[], round: number): Promise<boolean> => {
    let progressed = false;
    for (const pass of passes) {
      if (timedOut) break;
      emit({ kind: 'pass', pass: pass.name, round, ...textSize(current) });
      if (await runPass(pass)) progressed = true;
      if (!interrupted()) await checkpoint();
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
  if (interrupted()) {
    // No time for a checkpoint: the result is the last text the whole test accepted.
    stoppedBy = 'interrupted';
    current = lastVerified;
  } else {
    // The result passes the whole test, even when the time limit cut a pass short.
    await checkpoint();
    if (timedOut) stoppedBy = outOfCandidates ? 'candidate-limit' : 'time-limit';
  }
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
    verifications,
    reverts,
  };
}
