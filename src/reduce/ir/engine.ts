import { createHash } from 'node:crypto';
import { cpus } from 'node:os';
import type { Program } from '../../ir/nodes.js';
import { checkCandidate, type Candidate, type CheckLimits } from './candidate.js';
import { irPasses, type IRPass } from './passes.js';

/** Decides whether a candidate still shows the bug; `signal` aborts it when a better candidate won. */
export type IRTest = (c: Candidate, signal: AbortSignal) => Promise<boolean>;

/** Options of an IR reduction. */
export interface IRReduceOptions {
  /** Candidates tested at once (default: one per core). */
  readonly jobs?: number;
  /** Stop after this long (ms) and keep the best result so far. */
  readonly maxTimeMs?: number;
  /** Interpreter budget for each candidate. */
  readonly limits?: CheckLimits;
  /** Progress lines. */
  readonly onProgress?: (line: string) => void;
  /** Stops the reduction like maxTimeMs (the best result so far is returned). */
  readonly signal?: AbortSignal;
  /** The passes, in order (default: all of {@link irPasses}). */
  readonly passes?: readonly IRPass[];
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
  const stats: IRReduceStats = { invalid: 0, tested: 0, committed: 0, cached: 0, byPass: {}, ms: 0 };
  const cache = new Map<string, boolean>();
  const first = checkCandidate(program, limits);
  if (!first) throw new Error('the program to reduce is not UB-free in the reference interpreter');
  const original = new AbortController();
  if (!(await test(first, original.signal))) throw new NotInterestingError();
  let best = first;
  const timeUp = (): boolean => opts.signal?.aborted === true || (opts.maxTimeMs !== undefined && Date.now() - t0 > opts.maxTimeMs);

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
    if (!signal.aborted) cache.set(key, ok);
    return ok ? c : undefined;
  };

  for (let round = 1; !timeUp(); round++) {
    let progress = false;
    for (const pass of passes) {
      let start = 0;
      for (;;) {
        if (timeUp()) break;
        const cands = pass.candidates(best);
        if (start >= cands.length) break;
        const won = await firstInOrder(cands, start, jobs, evaluate);
        if (!won) break;
        best = won.candidate;
        stats.committed++;
        stats.byPass[pass.name] = (stats.byPass[pass.name] ?? 0) + 1;
        progress = true;
        opts.onProgress?.(`round ${round} ${pass.name}: ${lines(best.source)} lines, ${best.source.length} bytes`);
        start = pass.restart ? 0 : won.index;
      }
    }
    if (!progress) break;
  }
  stats.ms = Date.now() - t0;
  return { best, stats };
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
