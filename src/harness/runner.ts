import type { CompilerCapabilities } from './capabilities.js';
// What every way of running a campaign shares: the reports a runner hands the session, its hooks,
// the runner interface, and the state of one run (counts, limits, why it stopped), so the
// scheduler on this machine (scheduler.ts), the sanitizer runner and the queue's coordinator stop,
// time out and count the same way.
import type { EmittedFile } from '../emit/files.js';
import type { Mode, ModeChoice } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';
import type { ConfigResult } from './execute.js';
import type { Configuration, Limits } from './matrix.js';
import type { Behaviour, Outcome } from './oracle.js';
import { setLongTimeout, type LongTimer } from './process.js';

/** The final verdict of one configuration on one program. */
export interface FinalResult {
  readonly config: Configuration;
  /** `internal` when this configuration agreed with all others against the interpreter. */
  readonly outcome: Outcome;
  /** The first test of this configuration. */
  readonly result: ConfigResult;
  /** The second test, for failures. */
  readonly rerun?: ConfigResult;
  /** True when a failure did not reproduce: it is dropped (outcome `ok`) and counted as noise. */
  readonly flaky: boolean;
  /**
   * True when both tests failed, but differently (another output, a hang against a wrong
   * checksum): the finding is kept with every behaviour it showed.
   */
  readonly nondeterministic?: boolean;
  /** The distinct failing behaviours seen (first test first); set for failures. */
  readonly behaviours?: readonly Behaviour[];
  /** `suspected` when a hang was seen only under the short limit (confirmation follows in the background). */
  readonly hang?: 'suspected';
  /**
   * Facts a finding folder records besides the run (`kiln fuzz --sanitizers`: the UB, the sanitizer, why a miss is
   * believed).
   */
  readonly facts?: Readonly<Record<string, unknown>>;
  /** The finding's repro.sh, when the default one (compile, run, compare) does not check this outcome. */
  readonly repro?: string;
  /**
   * A campaign over several targets: the program this configuration tested, generated for its
   * target model (the report's own files and expected line are one target's).
   */
  readonly program?: TargetProgram;
}

/** A seed's program for one target model, in a campaign over several. */
interface TargetProgram {
  /** The target model's name (`riscv64`). */
  readonly target: string;
  readonly mode: Mode;
  readonly files: readonly EmittedFile[];
  readonly expected: string;
}

/** A program done with every configuration (or discarded by the generator). */
export interface ProgramReport {
  readonly seed: bigint;
  /** `tested`, or `discarded` (no repair within budget), or `error` (the generator threw: a Kiln bug). */
  readonly status: 'tested' | 'discarded' | 'error';
  readonly genMs: number;
  /** The program's generation mode (set for generated programs). */
  readonly mode?: Mode;
  /** The program's C files (one `prog.c`, or the translation units of a split program). */
  readonly files?: readonly EmittedFile[];
  readonly expected?: string;
  /** Why the seed was discarded, or the generator's error. */
  readonly reason?: string;
  readonly results: readonly FinalResult[];
  /** Set when every configuration that ran printed this same line and the interpreter another. */
  readonly internal?: { readonly agreed: string };
  /** `--ub-share`: the program was relaxed; `ub` names the undefined behaviour its run met, if any. */
  readonly relaxed?: { readonly rates: Readonly<Record<string, number>>; readonly ub?: string };
}

/** The background check of a suspected hang, with the configured (long) limits. */
export interface HangConfirmation {
  readonly seed: bigint;
  readonly config: Configuration;
  /** `confirmed`: it hung again under the long limit; `cleared`: it finished within it. */
  readonly verdict: 'confirmed' | 'cleared';
  readonly result: ConfigResult;
}

/** Callbacks of a campaign. `onProgram` must persist the report before its promise settles. */
export interface CampaignHooks {
  onProgram(report: ProgramReport): void | Promise<void>;
  /**
   * Several finished programs at once, persisted together (all or none) before the promise
   * settles: runners that receive results in batches (the queue) call it instead of `onProgram`,
   * so a batch costs one store commit. Without it they call `onProgram` per program.
   */
  onPrograms?(reports: readonly ProgramReport[]): void | Promise<void>;
  /** A suspected hang of a reported program was checked (called after its program's onProgram settled). */
  onConfirm?(c: HangConfirmation): void | Promise<void>;
  /** Each finished first test of a (program, configuration) pair (for live progress). */
  onTest?(result: ConfigResult): void;
}

/** Why a campaign stopped. */
export type StopReason = 'interrupted' | 'time' | 'tests' | 'seeds';

/** How a campaign session ended. */
export interface CampaignSummary {
  readonly stoppedBy: StopReason;
  readonly programs: number;
  /** (program, configuration) tests, not counting re-runs of failures. */
  readonly tests: number;
  /** Second tests of failures. */
  readonly reruns: number;
  /** Suspected hangs checked with the long limit, and those left suspected when the campaign ended. */
  readonly confirmations: number;
  readonly unconfirmed: number;
  readonly elapsedMs: number;
}

/** What a runner needs besides the campaign's settings: where seeds come from and when to stop. */
export interface RunnerInput {
  /** Seeds in the order they are to be tested (claimed from the store as they are taken). */
  readonly seeds: Iterator<bigint>;
  readonly maxPrograms?: number;
  readonly timeMs?: number;
  readonly signal?: AbortSignal;
  /** One-off status lines (worker rates, queue events) for the session's progress display. */
  readonly say?: (line: string) => void;
  /** The store's id of the campaign (a queue is owned by one campaign). */
  readonly campaignId?: number;
  /** Whether a seed's results are already recorded (a result delivered twice is recorded once). */
  readonly recorded?: (seed: bigint) => boolean;
}

/**
 * One way of running a campaign session: on this machine's cores (src/campaign/runners.ts) or through a
 * queue of workers on other machines. The session (store, progress, finding folders) is the same
 * for every runner: it hands over the seeds and records what `hooks` receive.
 */
export interface CampaignRunner {
  /** How the session's first line names the runner (`4 jobs`, `queue redis://host:6379`). */
  readonly description: string;
  /** Whether the compilers must pass the check program here first (false: workers check their own). */
  readonly checksCompilersHere: boolean;
  /**
   * Seeds the session claims from the store at a time (default: the store's small block). A runner
   * that keeps hundreds of seeds in flight anyway claims larger blocks: each claim is a commit.
   */
  readonly seedBlock?: number;
  run(input: RunnerInput, hooks: CampaignHooks): Promise<CampaignSummary>;
}

/** The settings every runner of a campaign shares (what a session fixes). */
export interface RunnerSettings {
  readonly configurations: readonly Configuration[];
  readonly limits: Limits;
  readonly policy: Policy;
  /** Generation mode, or `mixed` (a mode per program, drawn from its seed); default `csmith`. */
  readonly mode?: ModeChoice;
  /** Concurrent jobs (generations and compile+run tests together). */
  readonly jobs: number;
  /** Test each failure a second time and keep it only if it reproduces (default true). */
  readonly rerunFailures?: boolean;
  /** `--ub-share F`: the share of csmith-mode programs relaxed as CsmithEdge does (0 or absent: none). */
  readonly ubShare?: number;
  /** `--emi K`: each seed is an EMI variant (src/mutate/recipes.ts); 0 or absent: off. */
  readonly emi?: number;
  /** What each compiler accepts beyond C11 (by name): programs it cannot compile are skipped there. */
  readonly capabilities?: ReadonlyMap<string, CompilerCapabilities>;
}

/** When a run stops on its own: a program budget, a wall-clock limit, an abort signal. */
export interface RunLimits {
  /** Stop after starting this many programs (the ones started are finished). */
  readonly maxPrograms?: number;
  /** Stop after this wall time; programs in flight are abandoned (not reported). */
  readonly timeMs?: number;
  /** Aborting it stops the run the same way (Ctrl-C). */
  readonly signal?: AbortSignal;
}

/**
 * The state of one run, shared by every runner: the counts a summary reports, the programs
 * started against `maxPrograms`, and why it stopped. Ctrl-C (the signal) and the time limit stop
 * it through {@link stop}, which calls `onStop` once, for the first reason only.
 */
export class RunState {
  readonly startedAt = Date.now();
  /** Programs handed out (generated, or enqueued for workers). */
  startedPrograms = 0;
  /** Programs finished and recorded. */
  programs = 0;
  /** First tests of (program, configuration) pairs, and second tests of failures. */
  tests = 0;
  reruns = 0;
  /** Suspected hangs checked with the long limit, and those left suspected. */
  confirmations = 0;
  unconfirmed = 0;
  private reason: StopReason | undefined;
  private readonly timer: LongTimer | undefined;
  private readonly onAbort = (): void => void this.stop('interrupted');

  constructor(
    private readonly limits: RunLimits,
    /** Called once, by the first {@link stop}. */
    private readonly onStop: (why: StopReason) => void = () => undefined,
  ) {
    limits.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.timer = limits.timeMs !== undefined ? setLongTimeout(() => this.stop('time'), limits.timeMs) : undefined;
  }

  /** Why the run stopped; undefined while it runs. */
  get stoppedBy(): StopReason | undefined {
    return this.reason;
  }

  /** Stops the run (the first reason wins) and tells `onStop`; false when it had stopped already. */
  stop(why: StopReason): boolean {
    if (this.reason) return false;
    this.reason = why;
    this.onStop(why);
    return true;
  }

  /** Records that the run ran its course (`tests` or `seeds`), without `onStop`: nothing is left to abandon. */
  end(why: StopReason): void {
    this.reason ??= why;
  }

  /** Whether `maxPrograms` programs have been started. */
  limitReached(): boolean {
    return this.limits.maxPrograms !== undefined && this.startedPrograms >= this.limits.maxPrograms;
  }

  /** Stops watching the clock and the signal. */
  dispose(): void {
    this.timer?.cancel();
    this.limits.signal?.removeEventListener('abort', this.onAbort);
  }

  /** The summary of the run, stopped for `why` (default: its own reason). */
  summary(why: StopReason = this.reason ?? 'seeds'): CampaignSummary {
    return {
      stoppedBy: why,
      programs: this.programs,
      tests: this.tests,
      reruns: this.reruns,
      confirmations: this.confirmations,
      unconfirmed: this.unconfirmed,
      elapsedMs: Date.now() - this.startedAt,
    };
  }
}
