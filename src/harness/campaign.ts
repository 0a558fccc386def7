import type { EmittedFile } from '../emit/files.js';
import type { Mode, ModeChoice } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';
import { testConfiguration, type ConfigResult } from './execute.js';
import { GeneratorPool } from './genpool.js';
import type { Configuration, Limits } from './matrix.js';
import { FINDING_OUTCOMES, internalDisagreement, sameFailure, type Outcome } from './oracle.js';
import { TempRoot } from './tempdir.js';

/** Everything a campaign needs; the CLI builds it from flags and the config file. */
export interface CampaignOptions {
  readonly configurations: readonly Configuration[];
  readonly limits: Limits;
  readonly policy: Policy;
  /** Generation mode, or `mixed` (a mode per program, drawn from its seed); default `csmith`. */
  readonly mode?: ModeChoice;
  /** Concurrent jobs (generations and compile+run tests together); one per core by default. */
  readonly jobs: number;
  /** Seeds in the order they are to be tested; the campaign takes as many as it needs. */
  readonly seeds: Iterator<bigint>;
  /** Stop after starting this many programs (the ones started are finished). */
  readonly maxPrograms?: number;
  /** Stop after this wall time; programs in flight are abandoned (not reported). */
  readonly timeMs?: number;
  /** Aborting it stops the campaign the same way (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Test each failure a second time and keep it only if it reproduces (default true). */
  readonly rerunFailures?: boolean;
  /** Where compile and run folders go (default: a fresh root under the system temp folder). */
  readonly tempRoot?: TempRoot;
}

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
}

/** Callbacks of a campaign. `onProgram` must persist the report before its promise settles. */
export interface CampaignHooks {
  onProgram(report: ProgramReport): void | Promise<void>;
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
  readonly elapsedMs: number;
}

interface OpenProgram {
  readonly seed: bigint;
  readonly mode: Mode;
  readonly files: readonly EmittedFile[];
  readonly expected: string;
  readonly genMs: number;
  phase: 'first' | 'rerun';
  pending: Configuration[];
  running: number;
  readonly first: Map<Configuration, ConfigResult>;
  readonly second: Map<Configuration, ConfigResult>;
  agreed: string | undefined;
}

/**
 * Runs a campaign: seeds are generated in a pool of processes, each program is compiled and run
 * with every configuration, failures are tested again, and each finished program is handed to
 * `hooks.onProgram` (which stores it). All jobs share one budget of `jobs` slots, so generation
 * and compilation together keep every core busy without oversubscribing it.
 */
export async function runCampaign(opts: CampaignOptions, hooks: CampaignHooks): Promise<CampaignSummary> {
  if (opts.configurations.length === 0) throw new Error('runCampaign: no configurations');
  if (!(opts.jobs >= 1)) throw new Error('runCampaign: jobs must be ≥ 1');
  const started = Date.now();
  const temp = opts.tempRoot ?? TempRoot.create();
  const ownsTemp = opts.tempRoot === undefined;
  const pool = new GeneratorPool(opts.jobs, opts.policy, opts.mode ?? 'csmith');
  const kill = new AbortController();
  // A process.exit (second Ctrl-C) must not leave compilers running in their own process groups.
  const onExit = (): void => {
    kill.abort();
    pool.close();
  };
  process.on('exit', onExit);

  const configs = opts.configurations;
  const rerun = opts.rerunFailures ?? true;
  const maxOpen = opts.jobs * 2 + 2;
  const open: OpenProgram[] = [];
  let tokens = opts.jobs;
  let gensInFlight = 0;
  let testsInFlight = 0;
  let reporting = 0;
  let startedPrograms = 0;
  let programs = 0;
  let tests = 0;
  let reruns = 0;
  let seedsLeft = true;
  let stopReason: StopReason | undefined;
  let failure: unknown;
  let timer: NodeJS.Timeout | undefined;

  return new Promise<CampaignSummary>((resolve, reject) => {
    const stop = (why: StopReason): void => {
      if (stopReason) return;
      stopReason = why;
      kill.abort();
      pool.close();
      open.length = 0;
      maybeFinish();
    };
    const onAbort = (): void => stop('interrupted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.timeMs !== undefined) timer = setTimeout(() => stop('time'), opts.timeMs);

    const maybeFinish = (): void => {
      const idle = gensInFlight === 0 && testsInFlight === 0 && reporting === 0;
      if (!idle) return;
      if (!stopReason) {
        if (open.length > 0 || (seedsLeft && !limitReached())) return;
        stopReason = seedsLeft ? 'tests' : 'seeds';
      }
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      process.removeListener('exit', onExit);
      pool.close();
      if (ownsTemp) temp.dispose();
      if (failure !== undefined) reject(failure);
      else resolve({ stoppedBy: stopReason, programs, tests, reruns, elapsedMs: Date.now() - started });
    };
    const limitReached = (): boolean => opts.maxPrograms !== undefined && startedPrograms >= opts.maxPrograms;

    const pump = (): void => {
      while (!stopReason && tokens > 0) {
        const pendingTasks = open.reduce((n, p) => n + p.pending.length, 0);
        const canGenerate = seedsLeft && !limitReached() && open.length + gensInFlight < maxOpen;
        // Keep enough programs generated ahead that compile slots never wait for the generator.
        if (canGenerate && pendingTasks + gensInFlight * configs.length < opts.jobs * 2) {
          if (startGeneration()) continue;
        }
        if (pendingTasks > 0) {
          startTest(open.find((p) => p.pending.length > 0)!);
          continue;
        }
        if (canGenerate && startGeneration()) continue;
        break;
      }
      maybeFinish();
    };

    const startGeneration = (): boolean => {
      const next = opts.seeds.next();
      if (next.done) {
        seedsLeft = false;
        return false;
      }
      const seed = next.value;
      startedPrograms++;
      tokens--;
      gensInFlight++;
      void pool.generate(seed).then((reply) => {
        tokens++;
        gensInFlight--;
        if (stopReason) return maybeFinish();
        if (reply.ok) {
          open.push({ seed, mode: reply.mode, files: reply.files, expected: reply.expected, genMs: reply.genMs, phase: 'first', pending: [...configs], running: 0, first: new Map(), second: new Map(), agreed: undefined });
        } else if (reply.reason === 'pool closed') {
          return maybeFinish();
        } else if (reply.reason === 'pool failed') {
          failure ??= new Error(`cannot generate programs: ${reply.error ?? 'generation processes failed'}`);
          stop('interrupted');
          return;
        } else {
          const status = reply.reason === 'generator error' ? 'error' : 'discarded';
          report({ seed, status, genMs: reply.genMs, reason: reply.error ?? reply.reason, results: [] });
        }
        pump();
      });
      return true;
    };

    const startTest = (p: OpenProgram): void => {
      const config = p.pending.shift()!;
      tokens--;
      testsInFlight++;
      p.running++;
      testConfiguration(p.files, p.expected, config, opts.limits, temp, kill.signal).then(
        (res) => {
          tokens++;
          testsInFlight--;
          p.running--;
          if (stopReason || res.aborted) return maybeFinish();
          if (p.phase === 'first') tests++;
          else reruns++;
          (p.phase === 'first' ? p.first : p.second).set(config, res);
          if (p.phase === 'first') hooks.onTest?.(res);
          if (p.pending.length === 0 && p.running === 0) advance(p);
          pump();
        },
        (e: unknown) => {
          tokens++;
          testsInFlight--;
          failure ??= e;
          stop('interrupted');
        },
      );
    };

    /** After the first round: look for an interpreter disagreement, then retest the failures. */
    const advance = (p: OpenProgram): void => {
      if (p.phase === 'first') {
        const runs = configs.map((c) => p.first.get(c)!);
        p.agreed = internalDisagreement(p.expected, runs);
        const failing = configs.filter((c) => {
          const r = p.first.get(c)!;
          return FINDING_OUTCOMES.has(r.judgement.outcome) && !(p.agreed !== undefined && r.output === p.agreed);
        });
        if (rerun && failing.length > 0) {
          p.phase = 'rerun';
          p.pending = failing;
          return;
        }
      }
      open.splice(open.indexOf(p), 1);
      report(finalReport(p));
    };

    const report = (r: ProgramReport): void => {
      reporting++;
      Promise.resolve()
        .then(() => hooks.onProgram(r))
        .then(
          () => {
            reporting--;
            programs++;
            pump();
          },
          (e: unknown) => {
            reporting--;
            failure ??= e;
            stop('interrupted');
          },
        );
    };

    pump();
  });

  function finalReport(p: OpenProgram): ProgramReport {
    const results = configs.map((c): FinalResult => {
      const first = p.first.get(c)!;
      const second = p.second.get(c);
      if (p.agreed !== undefined && first.output === p.agreed) return { config: c, outcome: 'internal', result: first, flaky: false };
      if (!second) return { config: c, outcome: first.judgement.outcome, result: first, flaky: false };
      const reproduced = sameFailure(first.judgement, second.judgement);
      return { config: c, outcome: reproduced ? first.judgement.outcome : 'ok', result: first, rerun: second, flaky: !reproduced };
    });
    return { seed: p.seed, status: 'tested', genMs: p.genMs, mode: p.mode, files: p.files, expected: p.expected, results, ...(p.agreed !== undefined ? { internal: { agreed: p.agreed } } : {}) };
  }
}

/**
 * Seeds in campaign order: first the gaps left below the highest finished seed (programs that were
 * in flight when a run was killed), then every seed after it.
 */
export function* seedSequence(gaps: readonly bigint[], next: bigint): Generator<bigint> {
  yield* gaps;
  for (let s = next; ; s++) yield s;
}
