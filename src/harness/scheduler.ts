import type { EmittedFile } from '../emit/files.js';
import type { Mode, ModeChoice } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';
import { accepts, type CompilerCapabilities } from './capabilities.js';
import { testConfiguration, type ConfigResult } from './execute.js';
import { GeneratorPool } from './genpool.js';
import { configTarget, type Configuration, type Limits, type StepLimits } from './matrix.js';
import { FINDING_OUTCOMES, internalDisagreement, sameBehaviour, type Behaviour } from './oracle.js';
import { RunState, type CampaignHooks, type CampaignSummary, type FinalResult, type ProgramReport } from './runner.js';
import { TempRoot } from './tempdir.js';

/**
 * Suspected hangs: a compile (run) is first given a short limit, max(floor, 20 × the median
 * duration of that configuration's compiles (runs) so far), never more than the configured limit;
 * before {@link HANG_SAMPLES} samples, the floor. A test that hits it is a *suspected* hang,
 * confirmed in the background with the configured limit, so a compiler that hangs on many programs
 * costs a campaign the short limit per program, not the long one.
 */
export const DEFAULT_HANG_FLOOR: { readonly compileMs: number; readonly runMs: number } = {
  compileMs: 10_000,
  runMs: 2_000,
};
/** Multiple of the median duration a step may take before it is suspected of hanging. */
const HANG_FACTOR = 20;
/** Durations a configuration needs before its median counts. */
const HANG_SAMPLES = 5;
/** Recent durations kept per configuration and step (the median of a sliding window). */
const DURATION_WINDOW = 101;
/** Suspected hangs waiting for confirmation at most (more stay suspected: memory stays bounded). */
const MAX_CONFIRM_QUEUE = 16;

/** Everything a campaign on this machine needs; the session builds it from its settings. */
export interface CampaignOptions {
  readonly configurations: readonly Configuration[];
  readonly limits: Limits;
  readonly policy: Policy;
  /** Generation mode, or `mixed` (a mode per program, drawn from its seed); default `csmith`. */
  readonly mode?: ModeChoice;
  /** `--ub-share F`: the share of csmith-mode programs relaxed as CsmithEdge does (0 or absent: none). */
  readonly ubShare?: number;
  /** `--emi K`: each seed is an EMI variant (src/mutate/recipes.ts); 0 or absent: off. */
  readonly emi?: number;
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
  /**
   * Floors of the short hang limits (default {@link DEFAULT_HANG_FLOOR}); at or above the configured limits, no hang is
   * only suspected.
   */
  readonly hangFloor?: { readonly compileMs: number; readonly runMs: number };
  /** Generation processes to use (kept open afterwards); default: a pool of `jobs` made and closed by the campaign. */
  readonly pool?: GeneratorPool;
  /**
   * What each compiler (by name) accepts beyond C11, probed once per campaign: a program whose
   * types a configuration's compiler lacks is not tested there, and that test is `skipped`.
   * A compiler without an entry is given every program.
   */
  readonly capabilities?: ReadonlyMap<string, CompilerCapabilities>;
}

/** Recent compile and run durations of one configuration. */
interface Durations {
  readonly compile: number[];
  readonly run: number[];
}

/** A suspected hang waiting for its check. */
interface PendingConfirmation {
  readonly seed: bigint;
  readonly files: readonly EmittedFile[];
  readonly expected: string;
  readonly config: Configuration;
  readonly kind: 'compiler-hang' | 'binary-hang';
}

interface OpenProgram {
  readonly seed: bigint;
  /** The target model it was generated for, in a campaign over several (absent: the policy's). */
  readonly target?: string;
  readonly mode: Mode;
  readonly files: readonly EmittedFile[];
  readonly expected: string;
  readonly genMs: number;
  phase: 'first' | 'rerun';
  pending: Configuration[];
  running: number;
  readonly first: Map<Configuration, ConfigResult>;
  readonly second: Map<Configuration, ConfigResult>;
  /** Limits each configuration's tests ran with (short hang limits included). */
  readonly limits: Map<Configuration, Limits>;
  agreed: string | undefined;
  /** The configurations that test it (those whose compiler accepts its types), and those skipped. */
  readonly configs: readonly Configuration[];
  readonly skipped: readonly Configuration[];
  /** Set for a relaxed program (`--ub-share`); with `ub`, it is compiled only, for crashes and hangs. */
  readonly relaxed?: { readonly rates: Readonly<Record<string, number>>; readonly ub?: string };
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
  const temp = opts.tempRoot ?? TempRoot.create();
  const ownsTemp = opts.tempRoot === undefined;
  // A caller's pool (a queue worker's, kept across batches) is left open; only its requests stop.
  const ownPool = opts.pool === undefined;
  const pool =
    opts.pool ??
    GeneratorPool.programs(opts.jobs, opts.policy, opts.mode ?? 'csmith', {
      ...(opts.ubShare ? { ubShare: opts.ubShare } : {}),
      ...(opts.emi ? { emi: opts.emi } : {}),
    });
  const closePool = (): void => {
    if (ownPool) pool.close();
  };
  const kill = new AbortController();
  // A process.exit (second Ctrl-C) must not leave compilers running in their own process groups.
  const onExit = (): void => {
    kill.abort();
    closePool();
  };
  process.on('exit', onExit);

  const configs = opts.configurations;
  // A campaign over several target models generates each seed once per model, and each
  // configuration tests the program of its own target; the seed's report holds them all.
  const targets = [...new Set(configs.map((c) => configTarget(c).name))];
  const multi = targets.length > 1;
  const genQueue: { readonly seed: bigint; readonly target?: string }[] = [];
  const groups = new Map<bigint, { waiting: number; readonly parts: { target: string; report: ProgramReport }[] }>();
  const rerun = opts.rerunFailures ?? true;
  const maxOpen = opts.jobs * 2 + 2;
  const open: OpenProgram[] = [];
  let tokens = opts.jobs;
  let gensInFlight = 0;
  let testsInFlight = 0;
  let reporting = 0;
  let seedsLeft = true;
  let failure: unknown;
  const floor = opts.hangFloor ?? DEFAULT_HANG_FLOOR;
  const durations = new Map<Configuration, Durations>();
  const confirmQueue: PendingConfirmation[] = [];
  let confirming = 0;

  return new Promise<CampaignSummary>((resolve, reject) => {
    // Ctrl-C, the time limit and a failure abandon every program in flight.
    const state = new RunState(opts, () => {
      kill.abort();
      closePool();
      open.length = 0;
      genQueue.length = 0;
      groups.clear();
      maybeFinish();
    });
    const stop = (why: 'interrupted'): void => void state.stop(why);

    const maybeFinish = (): void => {
      const idle = gensInFlight === 0 && testsInFlight === 0 && reporting === 0;
      if (!idle) return;
      if (!state.stoppedBy) {
        if (open.length > 0 || genQueue.length > 0 || (seedsLeft && !state.limitReached())) return;
        state.end(seedsLeft ? 'tests' : 'seeds');
        // The campaign's own work is done: a hang still being confirmed stays suspected.
        kill.abort();
      }
      if (confirming > 0) return;
      state.unconfirmed += confirmQueue.length;
      confirmQueue.length = 0;
      state.dispose();
      process.removeListener('exit', onExit);
      closePool();
      if (ownsTemp) temp.dispose();
      if (failure !== undefined) reject(failure);
      else resolve(state.summary());
    };

    const pump = (): void => {
      while (!state.stoppedBy && tokens > 0) {
        const pendingTasks = open.reduce((n, p) => n + p.pending.length, 0);
        const canGenerate =
          (genQueue.length > 0 || (seedsLeft && !state.limitReached())) && open.length + gensInFlight < maxOpen;
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
      if (genQueue.length === 0) {
        const next = opts.seeds.next();
        if (next.done) {
          seedsLeft = false;
          return false;
        }
        state.startedPrograms++;
        if (!multi) genQueue.push({ seed: next.value });
        else {
          groups.set(next.value, { waiting: targets.length, parts: [] });
          for (const target of targets) genQueue.push({ seed: next.value, target });
        }
      }
      const { seed, target } = genQueue.shift()!;
      tokens--;
      gensInFlight++;
      void pool.generate(seed, target).then((reply) => {
        tokens++;
        gensInFlight--;
        if (state.stoppedBy) return maybeFinish();
        if (reply.ok) {
          const caps = opts.capabilities;
          const ours = target === undefined ? configs : configs.filter((c) => configTarget(c).name === target);
          const mine = caps ? ours.filter((c) => accepts(caps.get(c.compiler.name) ?? ALL, reply.requires)) : ours;
          const skipped = ours.filter((c) => !mine.includes(c));
          const p: OpenProgram = {
            seed,
            ...(target !== undefined ? { target } : {}),
            mode: reply.mode,
            files: reply.files,
            expected: reply.expected,
            genMs: reply.genMs,
            phase: 'first',
            pending: [...mine],
            configs: mine,
            skipped,
            running: 0,
            first: new Map(),
            second: new Map(),
            limits: new Map(),
            agreed: undefined,
            ...(reply.relaxed ? { relaxed: reply.relaxed } : {}),
          };
          // No compiler of the campaign takes it: reported at once, every test skipped.
          if (mine.length === 0) deliver(finalReport(p), target);
          else open.push(p);
        } else if (reply.reason === 'pool closed') {
          return maybeFinish();
        } else if (reply.reason === 'pool failed') {
          failure ??= new Error(`cannot generate programs: ${reply.error ?? 'generation processes failed'}`);
          stop('interrupted');
          return;
        } else {
          const status = reply.reason === 'generator error' ? 'error' : 'discarded';
          deliver({ seed, status, genMs: reply.genMs, reason: reply.error ?? reply.reason, results: [] }, target);
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
      // A re-run gets the limits of the first test, so the same failure can show the same way.
      const limits = p.limits.get(config) ?? shortLimits(config);
      p.limits.set(config, limits);
      const ub = p.relaxed?.ub !== undefined;
      testConfiguration(p.files, p.expected, config, limits, temp, kill.signal, ub).then(
        (tested) => {
          // A program with undefined behaviour tests the compiler only: a crash or a hang.
          const res =
            ub && !UB_OUTCOMES.has(tested.judgement.outcome)
              ? { ...tested, judgement: { outcome: 'ok' as const } }
              : tested;
          tokens++;
          testsInFlight--;
          p.running--;
          if (state.stoppedBy || res.aborted) return maybeFinish();
          recordDurations(config, res);
          if (p.phase === 'first') state.tests++;
          else state.reruns++;
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
        const runs = p.configs.map((c) => p.first.get(c)!);
        p.agreed = p.relaxed?.ub !== undefined ? undefined : internalDisagreement(p.expected, runs);
        // A suspected hang is not re-run with its short limit: its background check replaces that.
        const failing = p.configs.filter((c) => {
          const r = p.first.get(c)!;
          return (
            FINDING_OUTCOMES.has(r.judgement.outcome) &&
            !(p.agreed !== undefined && r.output === p.agreed) &&
            !suspectedHang(r, p.limits.get(c)!)
          );
        });
        if (rerun && failing.length > 0) {
          p.phase = 'rerun';
          p.pending = failing;
          return;
        }
      }
      open.splice(open.indexOf(p), 1);
      deliver(finalReport(p), p.target);
    };

    /** Reports a program; in a campaign over several targets, the seed's report once every target's is in. */
    const deliver = (r: ProgramReport, target: string | undefined): void => {
      if (target === undefined) return report(r);
      const g = groups.get(r.seed);
      if (!g) return; // the campaign stopped meanwhile: abandoned
      g.parts.push({ target, report: r });
      if (--g.waiting > 0) return;
      groups.delete(r.seed);
      report(mergeTargets(g.parts, targets));
    };

    const report = (r: ProgramReport): void => {
      reporting++;
      Promise.resolve()
        .then(() => hooks.onProgram(r))
        .then(
          () => {
            reporting--;
            state.programs++;
            // Only a stored finding can be confirmed: its checks are queued once it is on disk.
            for (const f of r.results) {
              if (f.hang !== 'suspected') continue;
              if (confirmQueue.length >= MAX_CONFIRM_QUEUE) state.unconfirmed++;
              else
                confirmQueue.push({
                  seed: r.seed,
                  files: f.program?.files ?? r.files!,
                  expected: f.program?.expected ?? r.expected!,
                  config: f.config,
                  kind: f.outcome as PendingConfirmation['kind'],
                });
            }
            startConfirmation();
            pump();
          },
          (e: unknown) => {
            reporting--;
            failure ??= e;
            stop('interrupted');
          },
        );
    };

    /**
     * Checks one suspected hang at a time with the configured limits, outside the slot budget (a
     * hang mostly sleeps or spins in one process): the campaign carries on meanwhile.
     */
    const startConfirmation = (): void => {
      if (state.stoppedBy || confirming > 0 || confirmQueue.length === 0) return;
      const c = confirmQueue.shift()!;
      confirming++;
      testConfiguration(c.files, c.expected, c.config, opts.limits, temp, kill.signal).then(
        (res) => {
          if (res.aborted || state.stoppedBy) {
            confirming--;
            state.unconfirmed++;
            return maybeFinish();
          }
          state.confirmations++;
          const verdict = res.judgement.outcome === c.kind ? 'confirmed' : 'cleared';
          Promise.resolve()
            .then(() => hooks.onConfirm?.({ seed: c.seed, config: c.config, verdict, result: res }))
            .then(
              () => {
                confirming--;
                startConfirmation();
                maybeFinish();
              },
              (e: unknown) => {
                confirming--;
                failure ??= e;
                stop('interrupted');
              },
            );
        },
        (e: unknown) => {
          confirming--;
          failure ??= e;
          stop('interrupted');
        },
      );
    };

    pump();
  });

  /** The limits of a configuration's first test: the configured ones, with short hang limits. */
  function shortLimits(c: Configuration): Limits {
    const d = durations.get(c);
    return {
      compile: shortStep(opts.limits.compile, d?.compile ?? [], floor.compileMs),
      run: shortStep(opts.limits.run, d?.run ?? [], floor.runMs),
    };
  }

  function recordDurations(c: Configuration, r: ConfigResult): void {
    let d = durations.get(c);
    if (!d) durations.set(c, (d = { compile: [], run: [] }));
    const push = (list: number[], ms: number): void => {
      list.push(ms);
      if (list.length > DURATION_WINDOW) list.shift();
    };
    if (!r.compile.timedOut) push(d.compile, r.compile.durationMs);
    if (r.run && !r.run.timedOut) push(d.run, r.run.durationMs);
  }

  /** A hang seen under a limit shorter than the configured one. */
  function suspectedHang(r: ConfigResult, limits: Limits): boolean {
    if (r.judgement.outcome === 'compiler-hang') return limits.compile.timeoutMs < opts.limits.compile.timeoutMs;
    if (r.judgement.outcome === 'binary-hang') return limits.run.timeoutMs < opts.limits.run.timeoutMs;
    return false;
  }

  function finalReport(p: OpenProgram): ProgramReport {
    const tested = p.configs.map((c): FinalResult => {
      const first = p.first.get(c)!;
      const second = p.second.get(c);
      if (p.agreed !== undefined && first.output === p.agreed)
        return { config: c, outcome: 'internal', result: first, flaky: false };
      const outcome = first.judgement.outcome;
      if (!FINDING_OUTCOMES.has(outcome)) return { config: c, outcome, result: first, flaky: false };
      const one = behaviourOf(first);
      if (!second)
        return {
          config: c,
          outcome,
          result: first,
          flaky: false,
          behaviours: [one],
          ...(suspectedHang(first, p.limits.get(c)!) ? { hang: 'suspected' as const } : {}),
        };
      // A failure that passes its second test is noise; one that fails again, but differently, is
      // a real failure whose behaviour varies between runs: kept, with everything it showed.
      if (!FINDING_OUTCOMES.has(second.judgement.outcome))
        return { config: c, outcome: 'ok', result: first, rerun: second, flaky: true };
      const two = behaviourOf(second);
      const nondeterministic = !sameBehaviour(one, two);
      return {
        config: c,
        outcome,
        result: first,
        rerun: second,
        flaky: false,
        nondeterministic,
        behaviours: nondeterministic ? [one, two] : [one],
      };
    });
    const results = [...tested, ...p.skipped.map((c) => skippedResult(c))];
    return {
      seed: p.seed,
      status: 'tested',
      genMs: p.genMs,
      mode: p.mode,
      files: p.files,
      expected: p.expected,
      results,
      ...(p.agreed !== undefined ? { internal: { agreed: p.agreed } } : {}),
      ...(p.relaxed ? { relaxed: p.relaxed } : {}),
    };
  }
}

/**
 * The report of a seed in a campaign over several targets, from each target's: every result with
 * the program it tested, the files and expected line of one tested target (the one whose
 * configurations agreed against the interpreter, if any) as the report's own, `tested` when any
 * target's program was.
 */
function mergeTargets(
  parts: readonly { target: string; report: ProgramReport }[],
  order: readonly string[],
): ProgramReport {
  const sorted = [...parts].sort((a, b) => order.indexOf(a.target) - order.indexOf(b.target));
  const tested = sorted.filter((p) => p.report.status === 'tested');
  const base = tested.find((p) => p.report.internal) ?? tested[0] ?? sorted[0]!;
  const results = sorted.flatMap(({ target, report: r }) =>
    r.results.map((f) =>
      r.files && r.expected !== undefined && r.mode
        ? { ...f, program: { target, mode: r.mode, files: r.files, expected: r.expected } }
        : f,
    ),
  );
  const reasons = sorted.filter((p) => p.report.reason !== undefined).map((p) => `${p.target}: ${p.report.reason}`);
  const r = base.report;
  return {
    seed: r.seed,
    status: tested.length > 0 ? 'tested' : r.status,
    genMs: sorted.reduce((s, p) => s + p.report.genMs, 0),
    ...(r.mode ? { mode: r.mode } : {}),
    ...(r.files ? { files: r.files } : {}),
    ...(r.expected !== undefined ? { expected: r.expected } : {}),
    ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}),
    results,
    ...(r.internal ? { internal: r.internal } : {}),
    ...(r.relaxed ? { relaxed: r.relaxed } : {}),
  };
}

/** Every capability: a compiler the campaign did not probe is given every program. */
const ALL: CompilerCapabilities = {
  int128: true,
  bitIntMaxWidth: Number.POSITIVE_INFINITY,
  labelValues: true,
  vectors: { shufflevector: true, convertvector: true, shuffle: true },
};

/** The result of a configuration whose compiler does not accept the program: nothing ran. */
function skippedResult(c: Configuration): FinalResult {
  const compile = { command: [], status: null, signal: null, timedOut: false, durationMs: 0, stdout: '', stderr: '' };
  const result: ConfigResult = { config: c, judgement: { outcome: 'skipped' }, compile, durationMs: 0, aborted: false };
  return { config: c, outcome: 'skipped', result, flaky: false };
}

/** The outcomes that count for a program with undefined behaviour (CsmithEdge's crash testing). */
const UB_OUTCOMES: ReadonlySet<string> = new Set(['compiler-crash', 'compiler-hang']);

/** A result's failing behaviour, with the line it printed for wrong code. */
function behaviourOf(r: ConfigResult): Behaviour {
  return {
    ...r.judgement,
    ...(r.judgement.outcome === 'wrong-code' && r.output !== undefined ? { output: r.output } : {}),
  };
}

/** The short limit of one step (see {@link DEFAULT_HANG_FLOOR}). */
export function shortStep(long: StepLimits, samples: readonly number[], floorMs: number): StepLimits {
  if (floorMs >= long.timeoutMs) return long;
  const ms = samples.length >= HANG_SAMPLES ? Math.max(floorMs, HANG_FACTOR * median(samples)) : floorMs;
  return ms >= long.timeoutMs ? long : { ...long, timeoutMs: Math.ceil(ms) };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
