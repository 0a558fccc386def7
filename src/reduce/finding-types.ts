// The shapes of a finding's reduction, apart from the reducers (src/reduce/finding.ts, and
// src/reduce/sanitizer.ts for sanitizer findings), so both can name them.
import type { EmittedFile } from '../emit/files.js';
import type { Mode } from '../gen/mode.js';
import type { ConfigResult } from '../harness/execute.js';
import type { HangStatus } from '../harness/findings.js';
import type { Configuration } from '../harness/matrix.js';
import type { Program } from '../ir/nodes.js';
import type { EmiRecipe } from '../mutate/recipes.js';
import type { StoredFinding } from '../triage/finding.js';
import type { IRReduceStats } from './ir/engine.js';
import type { ValidityChecker } from './validity.js';

/** Options of `kiln reduce FINDING_DIR`, shared with the text reducer's command-line options. */
export interface FindingReduceOptions {
  /** Candidates tested in parallel (default: one per core). */
  readonly jobs?: number;
  /** Limit of one compile and of one run while reducing, in ms (default: the campaign's limits). */
  readonly timeoutMs?: number;
  /** Stop after this long (ms), keeping the best result so far. */
  readonly maxTimeMs?: number;
  /** Stop after testing this many candidates, keeping the best result so far (a bound by work, not time). */
  readonly maxCandidates?: number;
  /** Progress lines (the CLI passes a writer to stderr). */
  readonly onProgress?: (line: string) => void;
  /** Aborts the reduction (the best result so far is kept). */
  readonly signal?: AbortSignal;
  /**
   * The validity check of the reduced program (default: the newest gcc and clang detected on
   * PATH, see src/reduce/validity.ts). Every program the reduction keeps passes it.
   */
  readonly validity?: ValidityChecker;
}

/** What reduction needs from `finding.json`: triage's view of a finding, and how to regenerate it. */
export interface FindingManifest extends StoredFinding {
  readonly seed: string;
  readonly mode: Mode;
  /** The generation policy as stored (parsed again before use). */
  readonly policy: unknown;
  /** The program was relaxed (`kiln fuzz --ub-share`): not the seed's UB-free program. */
  readonly relaxed: boolean;
  /** Findings of `kiln fuzz --emi K`: the seed's EMI recipe (the program is variant `variant` of seed `base`). */
  readonly emi?: EmiRecipe;
  /**
   * A hang flagged under the short limit: `suspected` until checked with the configured one, then `confirmed` or
   * `cleared`.
   */
  readonly hangStatus?: HangStatus;
}

/** A finished reduction of a finding. */
export interface FindingReduction {
  readonly dir: string;
  readonly finding: FindingManifest;
  /** The failing configuration as resolved now (its compiler's version may differ from the finding's). */
  readonly config: Configuration;
  /** The compiler that agreed with the interpreter on the reduced program (wrong-code findings). */
  readonly reference?: Configuration;
  readonly original: { readonly lines: number; readonly bytes: number };
  /** The reduced program, its exact expected output and its C text. */
  readonly program: Program;
  readonly expected: string;
  /** The reduced program's C files (one `prog.c`, or the translation units of the yarpgen mode). */
  readonly files: readonly EmittedFile[];
  /** All of the files' text, each after a `// ==> name <==` line when there are several. */
  readonly source: string;
  readonly lines: number;
  /** What the failing configuration did with the reduced program. */
  readonly failing: ConfigResult;
  readonly stats: IRReduceStats;
  /** False when the reduction was stopped (time limit, abort) before reaching a fixpoint. */
  readonly complete: boolean;
  /** What stopped it, when it is not complete: an interrupt, --max-time or --max-candidates. */
  readonly stoppedBy?: StopReason;
  /** Set when a flagged compile hang finished within the configured limit and was reduced as a slow compile. */
  readonly slowCompile?: SlowCompile;
  /**
   * A suspected (or cleared) hang checked here with the configured limit before reducing: still a
   * hang (`confirmed`), or finished within it (`cleared`, reduced as a slow compile). The store
   * records it, as the campaign's background check would have.
   */
  readonly hangCheck?: {
    readonly verdict: 'confirmed' | 'cleared';
    readonly limitMs: number;
    readonly durationMs?: number;
  };
  /** The reduced program's repro.sh, when the default one (compile, run, compare) does not check this outcome. */
  readonly repro?: string;
  /** The compilers of the validity check the reduced program passed (`gcc 12.2.0, clang-15 15.0.6`). */
  readonly validatedWith?: string;
}

/** A compile-time hog: how long the original took, against the same compiler at -O0. */
export interface SlowCompile {
  /** The failing configuration's compile of the original program, within the configured limit. */
  readonly ms: number;
  /** The same compiler at -O0 on the original program. */
  readonly baselineMs: number;
  /** The limit the reduced program still exceeds (20 times its own -O0 time, at least 2 s). */
  readonly limitMs: number;
  /** The same compiler at -O0 on the (last calibrated) reduced program. */
  readonly reducedBaselineMs?: number;
}

/** Why a reduction ended before its fixpoint. */
export type StopReason = 'interrupted' | 'max-time' | 'max-candidates';

/** Whether a reduction after `stats` is complete, and what stopped it if not. */
export function stopFields(
  signal: AbortSignal | undefined,
  maxTimeMs: number | undefined,
  maxCandidates: number | undefined,
  stats: IRReduceStats,
): { complete: boolean; stoppedBy?: StopReason } {
  const reason = stopReason(signal, maxTimeMs, maxCandidates, stats);
  return reason ? { complete: false, stoppedBy: reason } : { complete: true };
}

function stopReason(
  signal: AbortSignal | undefined,
  maxTimeMs: number | undefined,
  maxCandidates: number | undefined,
  stats: IRReduceStats,
): StopReason | undefined {
  if (signal?.aborted) return 'interrupted';
  if (maxTimeMs !== undefined && stats.ms >= maxTimeMs) return 'max-time';
  if (maxCandidates !== undefined && stats.tested + stats.cached >= maxCandidates) return 'max-candidates';
  return undefined;
}

/** The advice after a reduction that stopped early. */
export function stopAdvice(reason: StopReason | undefined): string {
  return reason === 'max-candidates'
    ? 'give a larger --max-candidates to go on'
    : reason === 'interrupted'
      ? 'interrupted; run kiln reduce again to go on'
      : 'give a longer --max-time to go on';
}
