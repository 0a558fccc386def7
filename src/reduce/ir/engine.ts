import { createHash } from 'node:crypto';
import { cpus } from 'node:os';
import type { Program } from '../../ir/nodes.js';
import { checkCandidate, type Candidate, type CheckLimits } from './candidate.js';
import type { IRPass } from './candidate.js';
import { irPasses } from './passes.js';

/** Decides whether a candidate still shows the bug; `signal` aborts it when a better candidate won. */
export type IRTest = (c: Candidate, signal: AbortSignal) => Promise<boolean>;

/** Options of an IR reduction. */
export interface IRReduceOptions {
  /** Candidates tested at once (default: one per core). */
  readonly jobs?: number;
  /** Stop after this long (ms) and keep the best result so far. */
  readonly maxTimeMs?: number;
  /**
   * Stop after testing this many candidates (cached verdicts included) and keep the best result so far: a bound by
   * work, not time.
   */
  readonly maxCandidates?: number;
  /** Interpreter budget for each candidate. */
  readonly limits?: CheckLimits;
  /** Progress lines. */
  readonly onProgress?: (line: string) => void;
  /** Stops the reduction like maxTimeMs (the best result so far is returned). */
  readonly signal?: AbortSignal;
  /** The passes, in order (default: all of {@link irPasses}). */
  readonly passes?: readonly IRPass[];
  /**
   * A check of the kept program that costs too much for every candidate (the validity check of a
   * reduced test case: it compiles on the newest gcc and clang). It judges the program at
   * checkpoints: the original, after each pass that committed, and the result. When it rejects,
   * the reduction goes back to the latest commit since the last checkpoint that it accepts (by
   * bisection), the rejected programs are never accepted again, and after
   * {@link IRReduceOptions.strictAfter} such rejections it judges every candidate the test accepts.
   * The result always passes it.
   */
  readonly verify?: (c: Candidate) => Promise<boolean>;
  /** Rejections by `verify` after which it judges every candidate (default 3). */
  readonly strictAfter?: number;
}

/** Counters of one reduction. */
export interface IRReduceStats {
  /** Candidates the interpreter rejected (UB, non-termination, ill-formed). */
  invalid: number;
  /** Candidates given to the interestingness test. */
  tested: number;
  /** Candidates kept. */
  committed: number;
  /** Tests answered from the cache (the same C text seen before). */
  cached: number;
  readonly byPass: Record<string, number>;
  /** Runs of `verify`, and how often it sent the reduction back. */
  verifications: number;
  reverts: number;
  ms: number;
}

/** The result of an IR reduction. */
export interface IRReduceResult {
  readonly best: Candidate;
  readonly stats: IRReduceStats;
}

/**
 * Reduces a program with the IR passes. Every candidate is first re-executed by the reference
 * interpreter, so it is UB-free and its expected output is known; the test then decides whether
 * it still shows the bug. Candidates run `jobs` at a time; the first success in pass order wins
 * (the result does not depend on timing) and the others are aborted. Passes repeat until none
 * makes progress.
 */
export async function reduceIR(program: Program, test: IRTest, opts: IRReduceOptions = {}): Promise<IRReduceResult> {
  const t0 = Date.now();
  const limits = opts.limits ?? { maxSteps: 2_000_000 };
  const jobs = Math.max(1, opts.jobs ?? cpus().length);
  const passes = opts.passes ?? irPasses();
  const stats: IRReduceStats = {
    invalid: 0,
    tested: 0,
    committed: 0,
    cached: 0,
    byPass: {},
    verifications: 0,
    reverts: 0,
    ms: 0,
  };
  const cache = new Map<string, boolean>();
  const first = checkCandidate(program, limits);
  if (!first) throw new Error('the program to reduce is not UB-free in the reference interpreter');
  const original = new AbortController();
  if (!(await test(first, original.signal))) throw new NotInterestingError();
  const verify = opts.verify;
  const verified = async (c: Candidate): Promise<boolean> => {
    stats.verifications++;
    try {
      return await verify!(c);
    } catch {
      return false;
    }
  };
  if (verify && !(await verified(first))) throw new InvalidOriginalError();
  let best = first;
  // Deferred verification: the last program `verify` accepted, and the commits made since.
  let checkpoint = first;
  let sinceCheckpoint: Candidate[] = [];
  let strict = false;
  const timeUp = (): boolean =>
    opts.signal?.aborted === true ||
    (opts.maxTimeMs !== undefined && Date.now() - t0 > opts.maxTimeMs) ||
    (opts.maxCandidates !== undefined && stats.tested + stats.cached >= opts.maxCandidates);

  /** Tests one candidate thunk: undefined when invalid or not interesting. */
  const evaluate = async (make: () => Program | undefined, signal: AbortSignal): Promise<Candidate | undefined> => {
    let p: Program | undefined;
    try {
      p = make();
    } catch {
      p = undefined; // the edit does not type-check
    }
    if (!p) return undefined;
    const c = checkCandidate(p, limits);
    if (!c) {
      stats.invalid++;
      return undefined;
    }
    if (c.source.length >= best.source.length) return undefined; // never larger than what we have
    // The candidate budget is spent: candidates still proposed by this pass are not tested.
    if (opts.maxCandidates !== undefined && stats.tested + stats.cached >= opts.maxCandidates) return undefined;
    const key = createHash('sha1').update(c.source).digest('hex');
    const known = cache.get(key);
    if (known !== undefined) {
      stats.cached++;
      return known ? c : undefined;
    }
    stats.tested++;
    let ok: boolean;
    try {
      ok = await test(c, signal);
    } catch {
      ok = false; // a test that fails to run says "not interesting"
    }
    if (ok && strict && !signal.aborted) ok = await verified(c);
    if (!signal.aborted) cache.set(key, ok);
    return ok ? c : undefined;
  };

  /**
   * Judges the kept program with `verify` when it has not been; on rejection, goes back to the
   * latest commit since the last checkpoint that it accepts (the commits form a chain, each made
   * from the one before, so a bisection finds it) and marks the rejected programs as failures.
   */
  const reachCheckpoint = async (): Promise<void> => {
    if (!verify || sinceCheckpoint.length === 0) return;
    const chain = sinceCheckpoint;
    sinceCheckpoint = [];
    if (await verified(chain[chain.length - 1]!)) {
      checkpoint = best;
      return;
    }
    let good = -1; // index of the latest commit known to pass (-1: the checkpoint)
    let bad = chain.length - 1;
    while (bad - good > 1) {
      const mid = (good + bad) >> 1;
      if (await verified(chain[mid]!)) good = mid;
      else bad = mid;
    }
    for (const c of [chain[bad]!, chain[chain.length - 1]!])
      cache.set(createHash('sha1').update(c.source).digest('hex'), false);
    best = good >= 0 ? chain[good]! : checkpoint;
    checkpoint = best;
    stats.reverts++;
    if (stats.reverts >= (opts.strictAfter ?? 3)) strict = true;
    opts.onProgress?.(
      `the check of kept programs rejected a commit: back to ${lines(best.source)} ` +
        `lines${strict ? '; every candidate is checked from now on' : ''}`,
    );
  };

  for (let round = 1; !timeUp(); round++) {
    let progress = false;
    for (const pass of passes) {
      let start = 0;
      const before = stats.committed;
      for (;;) {
        if (timeUp()) break;
        const cands = pass.candidates(best);
        if (start >= cands.length) break;
        const won = await firstInOrder(cands, start, jobs, evaluate);
        if (!won) break;
        best = won.candidate;
        if (verify && !strict) sinceCheckpoint.push(best);
        stats.committed++;
        stats.byPass[pass.name] = (stats.byPass[pass.name] ?? 0) + 1;
        progress = true;
        opts.onProgress?.(`round ${round} ${pass.name}: ${lines(best.source)} lines, ${best.source.length} bytes`);
        start = pass.restart ? 0 : won.index;
      }
      if (stats.committed > before) await reachCheckpoint();
    }
    if (!progress) break;
  }
  await reachCheckpoint();
  stats.ms = Date.now() - t0;
  return { best, stats };
}

/** Thrown when the reduction's `verify` rejects the original program: no result could pass it. */
export class InvalidOriginalError extends Error {
  constructor() {
    super('the check of kept programs (verify) rejects the original program');
    this.name = 'InvalidOriginalError';
  }
}

/** Thrown when the test rejects the original program. */
export class NotInterestingError extends Error {
  constructor() {
    super('the interestingness test rejects the original program');
    this.name = 'NotInterestingError';
  }
}

function lines(src: string): number {
  return src.split('\n').filter((l) => l.trim() !== '').length;
}

/**
 * Evaluates candidates from `start` with `jobs` in flight and returns the first success in list
 * order: a success is accepted once every earlier candidate has failed, and later ones are then
 * aborted.
 */
async function firstInOrder(
  cands: readonly (() => Program | undefined)[],
  start: number,
  jobs: number,
  evaluate: (make: () => Program | undefined, signal: AbortSignal) => Promise<Candidate | undefined>,
): Promise<{ candidate: Candidate; index: number } | undefined> {
  const results = new Map<number, Candidate | undefined>();
  const controllers = new Map<number, AbortController>();
  let next = start;
  let settledUpTo = start; // every index below this is known to have failed
  return new Promise((resolve, reject) => {
    let done = false;
    let inFlight = 0;
    const finish = (value: { candidate: Candidate; index: number } | undefined): void => {
      if (done) return;
      done = true;
      for (const c of controllers.values()) c.abort();
      resolve(value);
    };
    const launch = (): void => {
      while (!done && inFlight < jobs && next < cands.length) {
        const i = next++;
        const ctl = new AbortController();
        controllers.set(i, ctl);
        inFlight++;
        evaluate(cands[i]!, ctl.signal).then(
          (r) => {
            inFlight--;
            controllers.delete(i);
            results.set(i, r);
            while (results.has(settledUpTo)) {
              const r2 = results.get(settledUpTo);
              if (r2) return finish({ candidate: r2, index: settledUpTo });
              settledUpTo++;
            }
            if (settledUpTo >= cands.length) return finish(undefined);
            launch();
          },
          (e) => {
            done = true;
            reject(e);
          },
        );
      }
      if (!done && inFlight === 0 && next >= cands.length) finish(undefined);
    };
    launch();
  });
}
