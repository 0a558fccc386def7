import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isTranslationUnit, MAIN_SOURCE, type EmittedFile } from '../emit/files.js';
import { LINK_LIBRARIES } from './compilers.js';
import { configEmulator, limitsFor, type Configuration, type Limits } from './matrix.js';
import { judgeCompile, judgeRun, outputLine, type Judgement } from './oracle.js';
import { runProcess, SpawnError, type RunResult } from './process.js';
import {
  GCDA_STORED_SUFFIX,
  instrumentFlags,
  PROFDATA_FILE,
  profdataTool,
  profileFamily,
  profileUseFlags,
  PROFRAW_FILE,
  PROFTEXT_FILE,
  perturbationSeed,
  profileToken,
  type ProfileFile,
  type ProfileResult,
} from './profile.js';
import { perturbGcda, perturbProfText } from './profile-perturb.js';
import { newTag, runDirIn, sandboxArgv, type StepKind } from './sandbox.js';
import { drawSwarm, flagTokens, swarmSeedText } from './swarm.js';
import type { TempRoot } from './tempdir.js';

/** Output of a test binary kept for the oracle (the rest is dropped and the run marked truncated). */
export const RUN_OUTPUT_BYTES = 64 << 10;

/** Names used inside each compile folder (and by repro scripts): the file of a one-file program, and the binary. */
export const SOURCE_FILE = MAIN_SOURCE;
export const EXE_FILE = 'prog';

/** How a binary is started: argv[0] is always this, run from its own folder (see sandbox.ts). */
export const EXE_ARGV0 = `./${EXE_FILE}`;

/**
 * The argv that starts a configuration's binary from its run folder: `./prog`, or behind the
 * emulator of a cross configuration (`qemu-m68k -L /usr/m68k-linux-gnu ./prog`). Campaign,
 * re-runs, reduction, triage and repro.sh all start binaries through it.
 */
export function runArgv(c: Configuration): string[] {
  return [...(configEmulator(c) ?? []), EXE_ARGV0];
}

/** What one step (compile or run) did. */
export interface StepRecord {
  readonly command: readonly string[];
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** One program tested with one configuration. */
export interface ConfigResult {
  readonly config: Configuration;
  readonly judgement: Judgement;
  readonly compile: StepRecord;
  /** Absent when the compile failed. */
  readonly run?: StepRecord;
  /** The binary's output line, when it exited normally. */
  readonly output?: string;
  readonly durationMs: number;
  /** True when the campaign was stopped while this test ran: the result means nothing. */
  readonly aborted: boolean;
  /** A profile configuration's profile: which build the result is of, and a perturbed profile's files. */
  readonly profile?: ProfileResult;
}

/**
 * The exact compile command of a configuration: `<cc> -w <options> prog.c -o prog -lm`, or with
 * every translation unit of a split program in order (`init.c func.c driver.c`; headers are not
 * named). One command compiles each unit separately and links them, so no value crosses units.
 * `-w`: a warning never decides an outcome, and megabytes of them once pushed a crash report's
 * frames out of the stderr a finding keeps (the validity check has flags of its own).
 */
export function compileCommand(c: Configuration, files: readonly string[] = [SOURCE_FILE]): string[] {
  const units = files.filter(isTranslationUnit);
  if (units.length === 0) throw new Error('compileCommand: no C file to compile');
  const use = c.profile ? profileUseFlags(c.compiler, c.profile) : [];
  return [c.compiler.command, '-w', ...c.options, ...use, ...units, '-o', EXE_FILE, ...LINK_LIBRARIES];
}

/**
 * The configuration of a profile configuration's instrumented build: the same compiler and
 * options plus the instrumentation flag, without a profile. Its failures are judged as its own
 * (their buckets name the flag), and its repro.sh is an ordinary one.
 */
export function instrumentedConfiguration(c: Configuration): Configuration {
  const options = [...c.options, ...instrumentFlags(c.compiler)];
  const { profile: _, ...rest } = c;
  return { ...rest, options, optionsText: options.join(' '), key: `${c.key}\0instrumented`, slug: `${c.slug}-instr` };
}

/**
 * The configuration one test of a swarm configuration runs: the option set's options and the
 * flags drawn for this program (`swarm.drawn`), its text and identity unchanged. Any other
 * configuration, or one already drawn, is returned as it is.
 */
export function swarmInstance(c: Configuration, files: readonly EmittedFile[]): Configuration {
  if (!c.swarm || c.swarm.drawn) return c;
  if (!c.swarm.catalogue) throw new Error(`swarm configuration ${c.slug} has no catalogue (withSwarmCatalogues)`);
  const drawn = drawSwarm(c.swarm.catalogue, c.swarm.max, c.options, swarmSeedText(files, c.key));
  return { ...c, options: [...c.options, ...drawn.flatMap(flagTokens)], swarm: { max: c.swarm.max, drawn } };
}

/**
 * The options of the test a configuration ran, as one text that reads back as that test's
 * configuration: a swarm test's drawn flags spelled out, its `+swarm` dropped, its profile kept.
 */
export function testOptionsText(c: Configuration): string {
  return [
    ...c.options,
    ...(c.profile ? [profileToken(c.profile)] : []),
    ...(c.qemuCpu ? [`+cpu=${c.qemuCpu}`] : []),
  ].join(' ');
}

/**
 * Compiles a program's files (or the text of a one-file program, written as `prog.c`) with one
 * configuration in a fresh folder, runs the binary in another fresh folder, and judges the
 * result; both folders are removed before returning.
 */
export async function testConfiguration(
  program: string | readonly EmittedFile[],
  expected: string,
  set: Configuration,
  limits: Limits,
  temp: TempRoot,
  signal?: AbortSignal,
  /** Compile only (a program with undefined behaviour: only compiler crashes and hangs count). */
  compileOnly = false,
): Promise<ConfigResult> {
  const started = Date.now();
  const files = typeof program === 'string' ? [{ name: SOURCE_FILE, content: program }] : program;
  // A swarm configuration's test draws its flags from the program and the configuration; the
  // result's configuration carries them. A compile-only configuration's binaries cannot run here.
  const c = swarmInstance(set, files);
  const buildOnly = compileOnly || c.compileOnly !== undefined;
  const compileDir = await temp.dir('cc');
  try {
    for (const f of files) await writeFile(join(compileDir, f.name), f.content);
    // A profile configuration: the instrumented build first, its run, its profile (profile-use
    // below reads it from the compile folder). Its own failures are the result.
    let profile: ProfileResult | undefined;
    if (c.profile) {
      const p = await buildProfile(files, expected, c, limits, temp, compileDir, signal, buildOnly);
      if ('result' in p) return { ...p.result, durationMs: Date.now() - started };
      profile = p.profile;
    }
    const withProfile = <T extends object>(r: T): T => (profile ? { ...r, profile } : r);
    const cmd = compileCommand(
      c,
      files.map((f) => f.name),
    );
    const cr = await runStep('compile', cmd, compileStep(compileDir, c, limits, signal));
    const compile = record(cmd, cr);
    if (cr.aborted)
      return withProfile({
        config: c,
        judgement: { outcome: 'ok' },
        compile,
        durationMs: Date.now() - started,
        aborted: true,
      });
    const exe = join(compileDir, EXE_FILE);
    const failed = judgeCompile(cr, c, existsSync(exe));
    if (failed)
      return withProfile({ config: c, judgement: failed, compile, durationMs: Date.now() - started, aborted: false });
    if (buildOnly)
      return withProfile({
        config: c,
        judgement: { outcome: 'ok' },
        compile,
        durationMs: Date.now() - started,
        aborted: false,
      });
    const runParent = await temp.dir('run');
    try {
      const { argv, rr } = await runBinary(exe, runParent, c, limits, signal);
      const run = record(argv, rr);
      if (rr.aborted)
        return withProfile({
          config: c,
          judgement: { outcome: 'ok' },
          compile,
          run,
          durationMs: Date.now() - started,
          aborted: true,
        });
      const judgement = judgeRun(rr, expected, c);
      const normal = !rr.timedOut && rr.signal === null && rr.status === 0;
      return withProfile({
        config: c,
        judgement,
        compile,
        run,
        ...(normal ? { output: outputLine(rr.stdout) } : {}),
        durationMs: Date.now() - started,
        aborted: false,
      });
    } finally {
      await temp.remove(runParent);
    }
  } finally {
    await temp.remove(compileDir);
  }
}

/** The limits and folder of a compile (or a profile tool) of configuration `c`. */
function compileStep(cwd: string, c: Configuration, limits: Limits, signal: AbortSignal | undefined): StepOptions {
  const l = limitsFor(limits.compile, c);
  return { cwd, timeoutMs: l.timeoutMs, memoryMb: l.memoryMb, maxOutputBytes: 256 << 10, signal };
}

/**
 * Moves the binary `exe` into a fresh run folder in `runParent` (whose path has a fixed length,
 * sandbox.ts) and runs it as `./prog`, as configuration `c` runs binaries, under the run limits;
 * the caller removes `runParent`.
 */
async function runBinary(
  exe: string,
  runParent: string,
  c: Configuration,
  limits: Limits,
  signal: AbortSignal | undefined,
): Promise<{ runDir: string; argv: string[]; rr: RunResult }> {
  const runDir = runDirIn(runParent);
  await mkdir(runDir);
  await rename(exe, join(runDir, EXE_FILE));
  const l = limitsFor(limits.run, c, 'run');
  const argv = runArgv(c);
  const rr = await runStep('run', argv, {
    cwd: runDir,
    timeoutMs: l.timeoutMs,
    memoryMb: l.memoryMb,
    maxOutputBytes: RUN_OUTPUT_BYTES,
    signal,
  });
  return { runDir, argv, rr };
}

/** A profile stage's result without its duration (the caller adds the whole test's). */
type StageResult = Omit<ConfigResult, 'durationMs'>;

/**
 * The instrumented build of a profile configuration in `compileDir`: compiled with the same
 * options plus the instrumentation flag, run in its own run folder under the same sandbox and
 * limits as any test binary (its output is judged too: a wrong output there is a miscompilation
 * of the instrumented build), and its profile left where the build under test reads it: gcc's
 * .gcda files in the compile folder (written there by the binary), clang's raw profile merged by
 * the clang's own llvm-profdata into {@link PROFDATA_FILE}. A perturbed profile is rewritten in
 * place, from a seed of the program's text and the options, and returned as the files a finding
 * folder stores. A failure of either step is the test's result (`stage: 'instrumented'`; the
 * judgement's bucket and detail name the instrumentation flag). A program compiled only (one with
 * undefined behaviour, which cannot be run to profile it) stops after the instrumented compile.
 */
async function buildProfile(
  files: readonly EmittedFile[],
  expected: string,
  c: Configuration,
  limits: Limits,
  temp: TempRoot,
  compileDir: string,
  signal: AbortSignal | undefined,
  compileOnly: boolean,
): Promise<{ profile: ProfileResult } | { result: StageResult }> {
  const ic = instrumentedConfiguration(c);
  const instrumented: ProfileResult = { stage: 'instrumented' };
  const ok: Judgement = { outcome: 'ok' };
  const cmd = compileCommand(
    ic,
    files.map((f) => f.name),
  );
  const stepOptions = (cwd: string): StepOptions => compileStep(cwd, c, limits, signal);
  const cr = await runStep('compile', cmd, stepOptions(compileDir));
  const compile = record(cmd, cr);
  if (cr.aborted) return { result: { config: c, judgement: ok, compile, aborted: true, profile: instrumented } };
  const exe = join(compileDir, EXE_FILE);
  const failed = judgeCompile(cr, ic, existsSync(exe));
  if (failed)
    return {
      result: { config: c, judgement: inInstrumented(failed, ic), compile, aborted: false, profile: instrumented },
    };
  if (compileOnly) return { result: { config: c, judgement: ok, compile, aborted: false } };
  const runParent = await temp.dir('run');
  try {
    const { runDir, argv, rr } = await runBinary(exe, runParent, ic, limits, signal);
    const run = record(argv, rr);
    if (rr.aborted) return { result: { config: c, judgement: ok, compile, run, aborted: true, profile: instrumented } };
    const j = judgeRun(rr, expected, ic);
    if (j.outcome !== 'ok') {
      const normal = !rr.timedOut && rr.signal === null && rr.status === 0;
      return {
        result: {
          config: c,
          judgement: inInstrumented(j, ic),
          compile,
          run,
          ...(normal ? { output: outputLine(rr.stdout) } : {}),
          aborted: false,
          profile: instrumented,
        },
      };
    }
    if (profileFamily(c.compiler) === 'clang') {
      if (existsSync(join(runDir, PROFRAW_FILE)))
        await rename(join(runDir, PROFRAW_FILE), join(compileDir, PROFRAW_FILE));
    }
  } finally {
    await temp.remove(runParent);
  }
  const seed = perturbationSeed(files, c.optionsText);
  const fail = (detail: string): { result: StageResult } => ({
    result: {
      config: c,
      judgement: {
        outcome: 'binary-crash',
        bucket: `profile-tool:${c.compiler.name}`,
        detail: `the instrumented build's profile: ${detail}`,
      },
      compile,
      aborted: false,
      profile: instrumented,
    },
  });
  if (profileFamily(c.compiler) === 'clang') {
    const tool = profdataTool(c.compiler);
    if (!tool) return fail(`no llvm-profdata of ${c.compiler.name}'s version on PATH`);
    if (!existsSync(join(compileDir, PROFRAW_FILE))) return fail(`the binary wrote no ${PROFRAW_FILE}`);
    const steps: string[][] = [[tool, 'merge', '-o', PROFDATA_FILE, PROFRAW_FILE]];
    if (c.profile === 'perturbed') steps.push([tool, 'merge', '--text', '-o', 'true.proftext', PROFDATA_FILE]);
    for (const step of steps) {
      const r = await runStep('compile', step, stepOptions(compileDir));
      if (r.aborted) return { result: { config: c, judgement: ok, compile, aborted: true, profile: instrumented } };
      if (r.status !== 0) return fail(`${step.slice(0, 2).join(' ')} failed: ${r.stderr.trim().split('\n')[0] ?? ''}`);
    }
    if (c.profile !== 'perturbed') return { profile: { stage: 'use' } };
    const text = perturbProfText(await readFile(join(compileDir, 'true.proftext'), 'utf8'), seed);
    await writeFile(join(compileDir, PROFTEXT_FILE), text);
    const back = [tool, 'merge', '-o', PROFDATA_FILE, PROFTEXT_FILE];
    const r = await runStep('compile', back, stepOptions(compileDir));
    if (r.aborted) return { result: { config: c, judgement: ok, compile, aborted: true, profile: instrumented } };
    if (r.status !== 0) return fail(`llvm-profdata merge of the perturbed profile failed: ${r.stderr.trim()}`);
    return { profile: { stage: 'use', files: [{ name: PROFTEXT_FILE, content: text }] } };
  }
  const gcda = (await readdir(compileDir)).filter((n) => n.endsWith('.gcda')).sort();
  if (gcda.length === 0) return fail('the binary wrote no .gcda file');
  if (c.profile !== 'perturbed') return { profile: { stage: 'use' } };
  const stored: ProfileFile[] = [];
  for (const name of gcda) {
    let data: Buffer;
    try {
      data = perturbGcda(await readFile(join(compileDir, name)), `${seed}\0${name}`);
    } catch (e) {
      return fail(`${name}: ${(e as Error).message}`);
    }
    await writeFile(join(compileDir, name), data);
    stored.push({ name: `${name}${GCDA_STORED_SUFFIX}`, content: base64Lines(data) });
  }
  return { profile: { stage: 'use', files: stored } };
}

/** A failure of the instrumented build, said so in its detail (its bucket already names the flag). */
function inInstrumented(j: Judgement, ic: Configuration): Judgement {
  const what = `the instrumented build (${ic.optionsText})`;
  return { ...j, detail: `${what}: ${j.detail ?? j.outcome}` };
}

/** Base64 in lines of 76 characters, as `base64` writes it (and `base64 -d` reads it). */
function base64Lines(data: Buffer): string {
  return `${(data.toString('base64').match(/.{1,76}/g) ?? []).join('\n')}\n`;
}

/** Limits and folder of one sandboxed step ({@link runStep}). */
export interface StepOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly memoryMb: number | undefined;
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * Runs one compile or binary under the sandbox every test uses (sandbox.ts: `timeout`, no address
 * randomisation, memory limit, fixed environment, tag); "cannot start" becomes an ordinary failed
 * step (status 127, like a shell).
 */
export async function runStep(kind: StepKind, cmd: readonly string[], o: StepOptions): Promise<RunResult> {
  const tag = newTag();
  const argv = sandboxArgv(
    { kind, timeoutMs: o.timeoutMs, memoryMb: o.memoryMb, tag, ...(kind === 'compile' ? { tmpdir: o.cwd } : {}) },
    cmd,
  );
  try {
    return await runProcess(argv[0]!, argv.slice(1), {
      cwd: o.cwd,
      timeoutMs: o.timeoutMs,
      tag,
      wrapped: true,
      maxOutputBytes: o.maxOutputBytes,
      ...(o.signal ? { signal: o.signal } : {}),
    });
  } catch (e) {
    if (!(e instanceof SpawnError)) throw e;
    return {
      status: 127,
      signal: null,
      stdout: '',
      stderr: `kiln: ${e.message}\n`,
      timedOut: false,
      aborted: false,
      truncated: false,
      durationMs: 0,
    };
  }
}

function record(command: readonly string[], r: RunResult): StepRecord {
  return {
    command,
    status: r.status,
    signal: r.signal,
    timedOut: r.timedOut,
    durationMs: r.durationMs,
    stdout: r.stdout,
    stderr: r.stderr,
  };
}
