import type { HangStatus } from '../harness/findings.js';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { errState, KilnError } from '../diag/errors.js';
import { emitC } from '../emit/c.js';
import { emitFiles, MAIN_SOURCE, type EmittedFile } from '../emit/files.js';
import { isModeChoice } from '../gen/mode.js';
import { parsePolicy, PolicyError } from '../gen/policy.js';
import { EmiBases, type EmiRecipe } from '../mutate/recipes.js';
import { programRequires, type ProgramRequires } from '../ir/census.js';
import type { Program } from '../ir/nodes.js';
import { accepts, compilerCapabilities } from '../harness/capabilities.js';
import { detectCompilers, resolveCompiler, type Compiler } from '../harness/compilers.js';
import { testConfiguration, type ConfigResult } from '../harness/execute.js';
import { DEFAULT_HANG_FLOOR } from '../harness/scheduler.js';
import { buildMatrix, configTarget, type Configuration, type Limits } from '../harness/matrix.js';
import { LP64 } from '../c/target.js';
import { showsBehaviour, type Judgement } from '../harness/oracle.js';
import { campaignFiles } from '../harness/program.js';
import { TempRoot } from '../harness/tempdir.js';
import { generateProgram } from '../repair/generate.js';
import { FINDING_MANIFEST, readFinding } from '../triage/finding.js';
import { InvalidOriginalError, NotInterestingError, reduceIR } from './ir/engine.js';
import type { Candidate } from './ir/candidate.js';
import { irPasses } from './ir/passes.js';
import { reduceSanitizerFinding } from './sanitizer.js';
import { ValidityChecker, validityCompilersFor, validitySummary } from './validity.js';

export type { FindingManifest, FindingReduceOptions, FindingReduction } from './finding-types.js';
import {
  stopFields,
  type FindingManifest,
  type FindingReduceOptions,
  type FindingReduction,
  type SlowCompile,
} from './finding-types.js';

/** Outcomes the IR reducer can keep (every finding outcome a campaign reports). */
const REDUCIBLE = new Set([
  'wrong-code',
  'compiler-crash',
  'compiler-hang',
  'rejected-valid',
  'binary-crash',
  'binary-hang',
]);

/** Reads and checks `DIR/finding.json` (see src/triage/finding.ts), with the fields that regenerate the program. */
export function readFindingManifest(dir: string): FindingManifest {
  const f = readFinding(dir);
  const file = join(dir, FINDING_MANIFEST);
  const j = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const hint =
    `was it written by another version of Kiln? reduce the program with its own test instead: kiln ` +
    `reduce ${join(dir, 'prog.c')} --test ${join(dir, 'repro.sh')}`;
  if (typeof j.seed !== 'string') throw errState(`${file}: field seed is missing or not a string`, hint);
  const mode = j.mode === undefined ? 'csmith' : String(j.mode);
  if (!isModeChoice(mode) || mode === 'mixed') throw errState(`${file}: unknown generation mode ${mode}`, hint);
  const e = j.emi as Partial<EmiRecipe> | undefined;
  if (
    e !== undefined &&
    (typeof e !== 'object' || typeof e.k !== 'number' || typeof e.base !== 'string' || typeof e.variant !== 'number')
  )
    throw errState(`${file}: field emi is not a recipe {k, base, variant}`, hint);
  const hang =
    j.hangStatus === 'suspected' || j.hangStatus === 'confirmed' || j.hangStatus === 'cleared'
      ? { hangStatus: j.hangStatus as HangStatus }
      : {};
  return {
    ...f,
    seed: j.seed,
    mode,
    policy: j.policy,
    ...(e ? { emi: e as EmiRecipe } : {}),
    ...hang,
    relaxed: typeof j.relaxed === 'object' && j.relaxed !== null,
  };
}

/**
 * Reduces a Kiln finding (a directory with `finding.json`, written by `kiln fuzz`) with the IR
 * reducer. The program is regenerated from its seed, mode and policy; every candidate is
 * re-executed by the reference interpreter (so it is UB-free and its expected output is
 * recomputed) and is interesting when the failing configuration still fails the same way: the same
 * outcome and bucket, and for wrong code, output other than the recomputed expected line while a
 * reference compiler at -O0 prints it. A wrong-code finding therefore needs no second opinion while
 * reducing: the interpreter is the oracle.
 *
 * Writes nothing: the caller (src/report/bundle.ts) writes `reduced.c` and the bug bundle.
 *
 * @throws KilnError `KILN_NOT_A_FINDING` (no finding.json), `KILN_STATE` (damaged or foreign
 *         finding, program not reproducible by this Kiln), `KILN_UNKNOWN_COMPILER`,
 *         `KILN_NOT_INTERESTING` (the failure no longer shows).
 */
export async function reduceFinding(dir: string, opts: FindingReduceOptions = {}): Promise<FindingReduction> {
  const f = readFindingManifest(dir);
  const fallback =
    `reduce the C file with its own test instead: kiln reduce ${join(dir, 'prog.c')} ` +
    `--test ${join(dir, 'repro.sh')}`;
  if (!REDUCIBLE.has(f.outcome) && !f.outcome.startsWith('sanitizer-'))
    throw errState(
      `${dir}: outcome ${f.outcome} is not a compiler failure`,
      'only findings of kiln fuzz can be reduced',
    );
  if (f.hangStatus === 'cleared' && f.outcome !== 'compiler-hang') {
    // A suspected run hang the campaign checked with the configured limit and saw finish: a slow
    // run, not a hang, so there is no failure for the reducer to keep. (A slow compile is
    // reduced as one: see slowCompile below.)
    throw errState(
      `${dir}: not a hang: checked with the configured run limit, it finished (only the short limit flagged it)`,
      `nothing to reduce; kiln findings lists it as cleared. ${slowHint(dir, 'run')}`,
    );
  }
  let policy;
  try {
    policy = parsePolicy(f.policy);
  } catch (e) {
    if (e instanceof PolicyError) throw errState(`${dir}: the finding's policy does not parse: ${e.message}`, fallback);
    throw e;
  }
  if (f.outcome === 'sanitizer-miss' || f.outcome === 'sanitizer-false-alarm')
    return reduceSanitizerFinding(dir, f, policy, reductionLimits(f.outcome, f.limits, opts.timeoutMs), opts);
  if (f.relaxed) {
    // The IR reducer proves every candidate UB-free; a relaxed program need not be, so its own
    // test (compile and look for the crash or hang) drives the text reducer instead.
    throw errState(
      `${dir}: the program was relaxed (kiln fuzz --ub-share), so the IR reducer, which keeps programs ` +
        `UB-free, cannot reduce it`,
      `reduce its C file with its own test: kiln reduce ${join(dir, 'prog.c')} --test ${join(dir, 'repro.sh')}`,
    );
  }
  // An EMI finding's program is a variant of its base: regenerated from the recipe, and reduced
  // as that variant's IR (facts and attributes included: the interpreter checks every candidate).
  const g = f.emi ? new EmiBases(policy, f.mode, 1).program(f.seed, f.emi.k) : generateProgram(f.seed, policy, f.mode);
  if (!g.ok) throw errState(`${dir}: seed ${f.seed} no longer generates a program (${g.reason})`, fallback);
  const files = 'files' in g ? g.files : campaignFiles(g, policy);
  if (files.some((file) => f.sources.find((x) => x.name === file.name)?.content !== file.content)) {
    throw errState(`${dir}: this version of Kiln generates another program for seed ${f.seed}`, fallback);
  }

  const compiler = await resolveCompiler(f.compilerPath);
  if (compiler.version !== f.compilerVersion)
    opts.onProgress?.(
      `note: ${compiler.command} is now "${compiler.version}" (the finding was made with "${f.compilerVersion}")`,
    );
  const config = configurationOf(compiler, f.options.join(' '));
  const profileStage = config.profile ? findingProfileStage(dir) : undefined;
  let limits = reductionLimits(f.outcome, f.limits, opts.timeoutMs);
  const reference =
    f.behaviours.some((b) => b.outcome === 'wrong-code') || f.outcome === 'wrong-code'
      ? await referenceConfiguration(config, programRequires(g.program))
      : undefined;
  const header = [
    `Reduced by Kiln from finding ${f.id}: ${f.outcome} ` +
      `with ${f.compilerName}${f.options.length ? ` ${f.options.join(' ')}` : ''}; mode ${f.mode}, ` +
      `seed ${f.seed}.`,
  ];
  const oneFile = (c: { program: Program; expected: string }): EmittedFile[] => [
    { name: MAIN_SOURCE, content: emitC(c.program, { expected: c.expected, compact: true, header }) },
  ];
  // Split programs keep their translation units while reducing: the bug may need the barrier.
  const text = (c: { program: Program; expected: string }): EmittedFile[] =>
    f.mode === 'yarpgen' ? emitFiles(c.program, { expected: c.expected, header }) : oneFile(c);

  // A candidate whose correct output is a wrong output the finding showed would hide that
  // behaviour: a nondeterministic finding could then pass reduction on its other behaviours and
  // leave a reduced program that reproduces only some of the time.
  const wrongOutputs = new Set(
    f.behaviours.flatMap((b) => (b.outcome === 'wrong-code' && b.output !== undefined ? [b.output] : [])),
  );
  const temp = TempRoot.create();
  try {
    // A compile hang is reduced under a limit calibrated on this machine: the same compiler at -O0
    // on the program (see calibratedHangLimit), measured again each time a hanging candidate is
    // under half the size last measured, so the limit falls as the program shrinks.
    const baseline =
      f.outcome === 'compiler-hang' && opts.timeoutMs === undefined ? configurationOf(compiler, '-O0') : undefined;
    const ceiling = limits.compile.timeoutMs;
    let calibratedBytes = Infinity;
    let lastBaselineMs: number | undefined;
    const calibrate = async (src: readonly EmittedFile[], expected: string): Promise<void> => {
      if (!baseline || baseline.key === config.key) return;
      const bytes = src.reduce((n, x) => n + x.content.length, 0);
      if (bytes > calibratedBytes / 2) return;
      calibratedBytes = bytes;
      const b = await testConfiguration(
        src,
        expected,
        baseline,
        { ...limits, compile: { ...limits.compile, timeoutMs: ceiling } },
        temp,
      );
      if (b.judgement.outcome === 'compiler-hang' || b.compile.timedOut) return;
      lastBaselineMs = b.compile.durationMs;
      const ms = calibratedHangLimit(b.compile.durationMs, ceiling);
      if (ms >= limits.compile.timeoutMs) return;
      limits = { ...limits, compile: { ...limits.compile, timeoutMs: ms } };
      opts.onProgress?.(
        `hang limit ${(ms / 1000).toFixed(1)} s (${config.compiler.name} -O0 compiles ${bytes} bytes ` +
          `in ${(b.compile.durationMs / 1000).toFixed(2)} s)`,
      );
    };
    // A hang flagged under the campaign's short limit whose compile finishes within the configured
    // one is a slow compile: reduced as a compile-time hog when it is far slower than the same
    // compiler at -O0 (the short limit's own ratio, see calibratedHangLimit), refused otherwise.
    let slowMs: number | undefined;
    let hangCheck: FindingReduction['hangCheck'];
    if ((f.hangStatus === 'suspected' || f.hangStatus === 'cleared') && opts.timeoutMs === undefined) {
      slowMs = await confirmHang(f, dir, files, g.expected, config, temp, opts.onProgress);
      const limitMs = f.outcome === 'compiler-hang' ? f.limits.compile.timeoutMs : f.limits.run.timeoutMs;
      hangCheck =
        slowMs === undefined
          ? { verdict: 'confirmed', limitMs }
          : { verdict: 'cleared', limitMs, durationMs: Math.round(slowMs) };
    }
    await calibrate(files, g.expected);
    let slowCompile: SlowCompile | undefined;
    if (slowMs !== undefined) {
      const baselineMs = lastBaselineMs;
      const threshold = baselineMs === undefined ? Infinity : Math.max(limits.compile.timeoutMs, 20 * baselineMs);
      if (baselineMs === undefined || slowMs < threshold) {
        const compared =
          baselineMs === undefined
            ? 'no -O0 build of the same compiler was measured to compare with'
            : `under ${(threshold / 1000).toFixed(1)} s, the slow-compile threshold ` +
              `(20 times its ${(baselineMs / 1000).toFixed(2)} s at -O0, at least the short limit)`;
        throw errState(
          `${dir}: not a hang: ${config.compiler.name} ${config.optionsText} compiled the program ` +
            `in ${(slowMs / 1000).toFixed(1)} s, within the configured limit, and ${compared}`,
          "nothing to reduce: the short limit flagged a compile slowed by the machine's load. " +
            slowHint(dir, 'compile'),
        );
      }
      slowCompile = { ms: slowMs, baselineMs, limitMs: limits.compile.timeoutMs };
      opts.onProgress?.(
        `reducing as a slow compile: ${(slowMs / 1000).toFixed(1)} s ` +
          `against ${(baselineMs / 1000).toFixed(2)} s at -O0; a candidate is kept while it takes more ` +
          `than ${(limits.compile.timeoutMs / 1000).toFixed(1)} s (20 times -O0, at least 2 s, recalibrated as ` +
          `it shrinks); expressions are replaced in chunks only, constants kept`,
      );
    }
    // The run that showed the failure, for each program the test accepted (see `failing` below).
    const shown = new Map<string, ConfigResult>();
    const filesKey = (src: readonly EmittedFile[]): string => src.map((x) => `${x.name}\0${x.content}`).join('\0');
    const test = async (c: Candidate, signal: AbortSignal, src: EmittedFile[] = text(c)): Promise<boolean> => {
      if (wrongOutputs.has(c.expected)) return false;
      const r = await testConfiguration(src, c.expected, config, limits, temp, signal);
      if (r.aborted || !sameFailure(f, r.judgement)) return false;
      // A profile configuration's candidate gets its own profile (testConfiguration builds it,
      // perturbed from the candidate's text as in the campaign); the failure must stay in the same build.
      if (config.profile && (r.profile?.stage ?? 'use') !== profileStage) return false;
      shown.set(filesKey(src), r);
      if (r.judgement.outcome === 'compiler-hang') await calibrate(src, c.expected);
      if (!reference || r.judgement.outcome !== 'wrong-code') return true;
      // The reduced program must still be miscompiled by the failing configuration only.
      const ref = await testConfiguration(src, c.expected, reference, limits, temp, signal);
      return !ref.aborted && ref.judgement.outcome === 'ok';
    };
    // A slow compile has a size floor: when compile time grows faster than linearly with the
    // program (pcc -O1's does), the ratio to -O0 that makes it a hog shrinks with the program, and
    // near the floor every test costs the whole limit and almost none succeeds (measured: a
    // 3,000-line pcc hog reached 356 lines in 8 min, then gained nothing in 20 more). So its
    // reduction stops after SLOW_COMPILE_BUDGET_MS unless --max-time says otherwise.
    const maxTimeMs = opts.maxTimeMs ?? (slowCompile ? SLOW_COMPILE_BUDGET_MS : undefined);
    if (slowCompile && opts.maxTimeMs === undefined)
      opts.onProgress?.(
        `a slow compile's reduction stops after ${SLOW_COMPILE_BUDGET_MS / 60_000} min with the best ` +
          `program so far (--max-time to change)`,
      );
    opts.onProgress?.(
      `reducing ${f.id} (${f.outcome}, ${f.bucket}) ` +
        `with ${config.compiler.name} ${config.optionsText}` +
        `${reference ? `; reference ${reference.compiler.name} ${reference.optionsText}` : ''}`,
    );
    // The reduced program must compile cleanly on current compilers, not only on the one that
    // failed: checked on the programs the reduction keeps (see reduceIR's verify).
    // Only compilers that accept what the program needs (gcc 12 has no `_BitInt`, clang no
    // `__builtin_shuffle`), of those given or, by default, of the newest installed.
    const req = programRequires(g.program);
    const given = opts.validity;
    const accepting = await validityCompilersFor(given?.compilers ?? (await detectCompilers()), req);
    const validity = given && accepting.length === given.compilers.length ? given : new ValidityChecker(accepting);
    if (validity.compilers.length === 0)
      opts.onProgress?.('no gcc or clang on PATH: the reduced program is not checked for validity');
    const valid = async (src: readonly EmittedFile[]): Promise<boolean> => {
      const v = await validity.check(src);
      if (!v.ok) opts.onProgress?.(`validity check (${validity.describe()}) failed: ${validitySummary(v, 1)}`);
      return v.ok;
    };
    let r;
    try {
      r = await reduceIR(g.program, test, {
        verify: (c) => valid(text(c)),
        jobs: Math.max(1, opts.jobs ?? cpus().length),
        // A slow compile's test costs seconds, and most of the limit when it succeeds.
        ...(slowCompile ? { passes: irPasses({ fine: false }) } : {}),
        ...(maxTimeMs !== undefined ? { maxTimeMs } : {}),
        ...(opts.maxCandidates !== undefined ? { maxCandidates: opts.maxCandidates } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } catch (e) {
      if (e instanceof InvalidOriginalError) {
        throw errState(
          `${dir}: the program does not pass the validity check (${validity.describe()}: -std=gnu11 -Wall ` +
            `-Wextra, no errors, none of the diagnostics GCC 14 makes errors), so no reduction of it can`,
          fallback,
        );
      }
      if (e instanceof NotInterestingError) {
        // The reducer prints programs compactly; the campaign's layout (comments, line breaks)
        // is the stored file. A failure only that layout shows (pcc's preprocessor rejects the
        // stored prog.c of one finding, and accepts it with one byte fewer in a comment) is
        // beyond the IR reducer: every candidate is printed anew.
        const stored = await testConfiguration(files, g.expected, config, limits, temp);
        if (!stored.aborted && sameFailure(f, stored.judgement)) throw errLayoutDependent(dir, f);
        throw new KilnError(
          'KILN_NOT_INTERESTING',
          `${dir}: the failure does not show any more: ${config.compiler.name} ${config.optionsText} ` +
            `handles the regenerated program correctly`,
          `is the compiler the same version? compare \`${compiler.command} --version\` with finding.json`,
        );
      }
      throw e;
    }
    let reduced = text(r.best);
    // A reduced split program is easier to report as one file; keep the split only if the bug needs it.
    if (
      reduced.length > 1 &&
      !opts.signal?.aborted &&
      (await test(r.best, new AbortController().signal, oneFile(r.best))) &&
      (await valid(oneFile(r.best)))
    )
      reduced = oneFile(r.best);
    const source =
      reduced.length === 1 ? reduced[0]!.content : reduced.map((x) => `// ==> ${x.name} <==\n${x.content}`).join('');
    let failing = await testConfiguration(reduced, r.best.expected, config, limits, temp);
    // A slow compile near its limit can come in just under it on this last run (timing noise): the
    // run that made the reducer keep the program showed the failure, and is the one reported.
    if (!sameFailure(f, failing.judgement)) failing = shown.get(filesKey(reduced)) ?? failing;
    const original = files.map((file) => file.content).join('');
    return {
      dir,
      finding: f,
      config,
      ...(reference ? { reference } : {}),
      original: { lines: countLines(original), bytes: original.length },
      program: r.best.program,
      expected: r.best.expected,
      files: reduced,
      source,
      lines: reduced.reduce((n, x) => n + countLines(x.content), 0),
      failing,
      stats: r.stats,
      ...(validity.compilers.length > 0 ? { validatedWith: validity.describe() } : {}),
      ...(hangCheck ? { hangCheck } : {}),
      ...(slowCompile
        ? {
            slowCompile: {
              ...slowCompile,
              limitMs: limits.compile.timeoutMs,
              ...(lastBaselineMs !== undefined ? { reducedBaselineMs: lastBaselineMs } : {}),
            },
          }
        : {}),
      ...stopFields(opts.signal, maxTimeMs, opts.maxCandidates, r.stats),
    };
  } finally {
    temp.dispose();
  }
}

/** How long a slow compile's reduction runs when no --max-time is given. */
const SLOW_COMPILE_BUDGET_MS = 10 * 60_000;

/**
 * Outcomes a text reduction with the finding's own repro.sh keeps valid: nothing the program's run does (undefined
 * behaviour included) can fake them.
 */
export const COMPILE_SIDE_OUTCOMES: ReadonlySet<string> = new Set(['compiler-crash', 'rejected-valid']);

/** A finding that fails as stored but not as the IR reducer prints the same program. */
function errLayoutDependent(dir: string, f: FindingManifest): KilnError {
  const file = join(dir, 'prog.c');
  const cc = [f.compilerPath, ...f.options].join(' ');
  const hint = COMPILE_SIDE_OUTCOMES.has(f.outcome)
    ? `reduce the stored file as text with its own test: kiln reduce ${file} --test ${join(dir, 'repro.sh')}`
    : `reduce the stored file as text, guarded against undefined behaviour: kiln reduce ${file} --wrong-code ` +
      `'${cc}' --reference 'gcc -O0' (kiln reduce on the finding folder does this, with its repro.sh as the ` +
      `failing run)`;
  return new KilnError(
    'KILN_LAYOUT_DEPENDENT',
    `${dir}: ${f.compilerName} ${f.options.join(' ')} still fails on the stored prog.c, but not on the same ` +
      `program printed again: the failure depends on the file's layout (bytes, line breaks, comments), not ` +
      `only on its meaning, which the IR reducer cannot keep`,
    hint,
  );
}

/**
 * Same failure as the finding's: the outcome, and the bucket (the ICE message, the signal, …); for
 * a nondeterministic finding, any of the behaviours it showed.
 */
function sameFailure(f: FindingManifest, j: Judgement): boolean {
  return showsBehaviour(f.behaviours.length > 0 ? f.behaviours : [{ outcome: f.outcome, bucket: f.bucket }], j);
}

/** Which build of a profile configuration failed (finding.json's `profile.stage`; `use` when absent). */
function findingProfileStage(dir: string): 'instrumented' | 'use' {
  const j = JSON.parse(readFileSync(join(dir, FINDING_MANIFEST), 'utf8')) as { profile?: { stage?: string } };
  return j.profile?.stage === 'instrumented' ? 'instrumented' : 'use';
}

function configurationOf(compiler: Compiler, options: string): Configuration {
  return buildMatrix([compiler], [options])[0]!;
}

/**
 * The compiler believed correct for a wrong-code finding: `gcc -O0`, or `clang -O0` when the
 * failing configuration is gcc at -O0 itself. Unoptimised builds of a second compiler are what
 * compiler engineers ask for when a miscompilation is reported. A compiler that does not accept
 * what the program needs (`_BitInt(155)` on Debian 12's gcc-12) is passed over for the newest one
 * that does: with it as the reference every candidate was rejected, the original included.
 */
async function referenceConfiguration(
  failing: Configuration,
  req: ProgramRequires,
): Promise<Configuration | undefined> {
  // The reference must run the program of the same target model: for a cross (or -m32)
  // configuration that is the failing compiler itself at -O0, not the host's gcc.
  if (configTarget(failing) !== LP64) {
    const ref = configurationOf(failing.compiler, failing.compiler.target === undefined ? '-O0 -m32' : '-O0');
    return ref.key !== failing.key ? ref : undefined;
  }
  const named: Compiler[] = [];
  for (const name of ['gcc', 'clang', 'cc']) {
    try {
      named.push(await resolveCompiler(name));
    } catch {}
  }
  const usable = async (cs: readonly Compiler[]): Promise<Configuration | undefined> => {
    for (const c of cs) {
      if (!accepts(await compilerCapabilities(c), req)) continue;
      const ref = configurationOf(c, '-O0');
      if (ref.key !== failing.key) return ref;
    }
    return undefined;
  };
  return (await usable(named)) ?? (await usable(await validityCompilersFor(await detectCompilers(), req)));
}

/**
 * The limits candidates run under. A hang is reduced under the campaign's short hang limits
 * ({@link DEFAULT_HANG_FLOOR}: a compile of 10 s, a run of 2 s) unless `--timeout` says otherwise:
 * every candidate that still hangs costs the whole limit, and the configured ones (120 s, 10 s)
 * made a hang's reduction take hours. The short limits are still far above a candidate's normal
 * cost: the interpreter has run every candidate within its step budget, so a Kiln program that
 * runs for 2 s, or compiles for 10, is not merely slow.
 */
export function reductionLimits(outcome: string, l: Limits, timeoutMs?: number): Limits {
  if (timeoutMs !== undefined) return withTimeout(l, timeoutMs);
  if (outcome === 'compiler-hang')
    return { ...l, compile: { ...l.compile, timeoutMs: Math.min(l.compile.timeoutMs, DEFAULT_HANG_FLOOR.compileMs) } };
  if (outcome === 'binary-hang')
    return { ...l, run: { ...l.run, timeoutMs: Math.min(l.run.timeoutMs, DEFAULT_HANG_FLOOR.runMs) } };
  return l;
}

/** How to study a slow compile or run that is not a hang. */
function slowHint(dir: string, what: string): string {
  return (
    `To study a slow ${what}, reduce ${join(dir, 'prog.c')} with a test of your own timing (kiln reduce FILE ` +
    `--test SCRIPT)`
  );
}

/**
 * A suspected or cleared hang (flagged under the campaign's short limit) is checked once with the
 * configured limit before reducing. Returns undefined when it still hangs; for a compile that
 * finishes, the time it took (the caller decides whether that is a slow compile worth reducing:
 * pcc -O1 takes 86 s on a program it compiles in 0.6 s at -O0, a compile-time hog). A run that
 * finishes is refused: a Kiln program that runs slowly is not a compiler failure the reducer can keep.
 */
export async function confirmHang(
  f: FindingManifest,
  dir: string,
  files: readonly EmittedFile[],
  expected: string,
  config: Configuration,
  temp: TempRoot,
  say?: (line: string) => void,
): Promise<number | undefined> {
  const what = f.outcome === 'compiler-hang' ? 'compile' : 'run';
  const limitMs = f.outcome === 'compiler-hang' ? f.limits.compile.timeoutMs : f.limits.run.timeoutMs;
  say?.(
    `checking the ${f.hangStatus ?? 'suspected'} hang with the configured ${what} limit ` +
      `(${Math.round(limitMs / 1000)} s) first`,
  );
  const r = await testConfiguration(files, expected, config, f.limits, temp);
  if (r.judgement.outcome === f.outcome) return undefined;
  if (what === 'compile' && r.judgement.outcome !== 'compiler-crash' && r.judgement.outcome !== 'rejected-valid')
    return r.compile.durationMs;
  const ms = what === 'compile' ? r.compile.durationMs : (r.run?.durationMs ?? 0);
  throw errState(
    `${dir}: not a ` +
      `hang: ${config.compiler.name} ${config.optionsText} ` +
      `${what === 'compile' ? 'compiled the program' : 'ran'} in ${(ms / 1000).toFixed(1)} s, within the ` +
      `configured limit of ${Math.round(limitMs / 1000)} s (${r.judgement.outcome}); only the campaign's short ` +
      `limit flagged it`,
    `nothing to reduce as a hang. ${slowHint(dir, what)}`,
  );
}

/**
 * A compile-hang limit derived from how long the same compiler takes on the same program at
 * -O0: 20 times that, at least 2 s, and never above the campaign's hang floor (`ceilingMs`). A
 * compiler that spins (the usual compile hang) is caught as surely at 2 s as at 10, and every
 * candidate that still hangs costs the whole limit, so the reduction's time falls with it.
 */
export function calibratedHangLimit(baselineMs: number, ceilingMs: number): number {
  return Math.min(ceilingMs, Math.max(2_000, Math.ceil(20 * baselineMs)));
}

function withTimeout(l: Limits, ms: number): Limits {
  return { compile: { ...l.compile, timeoutMs: ms }, run: { ...l.run, timeoutMs: Math.min(ms, l.run.timeoutMs) } };
}

function countLines(src: string): number {
  return src.split('\n').filter((l) => l.trim() !== '').length;
}
