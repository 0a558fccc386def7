import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isTranslationUnit, MAIN_SOURCE, type EmittedFile } from '../emit/files.js';
import { LINK_LIBRARIES } from './compilers.js';
import { configEmulator, limitsFor, type Configuration, type Limits } from './matrix.js';
import { judgeCompile, judgeRun, outputLine, type Judgement } from './oracle.js';
import { runProcess, SpawnError, type RunResult } from './process.js';
import { newTag, runDirIn, sandboxArgv, type StepKind } from './sandbox.js';
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
}

/**
 * The exact compile command of a configuration: `<cc> <options> prog.c -o prog -lm`, or with
 * every translation unit of a split program in order (`init.c func.c driver.c`; headers are not
 * named). One command compiles each unit separately and links them, so no value crosses units.
 */
export function compileCommand(c: Configuration, files: readonly string[] = [SOURCE_FILE]): string[] {
  const units = files.filter(isTranslationUnit);
  if (units.length === 0) throw new Error('compileCommand: no C file to compile');
  return [c.compiler.command, ...c.options, ...units, '-o', EXE_FILE, ...LINK_LIBRARIES];
}

/**
 * Compiles a program's files (or the text of a one-file program, written as `prog.c`) with one
 * configuration in a fresh folder, runs the binary in another fresh folder, and judges the
 * result; both folders are removed before returning.
 */
export async function testConfiguration(
  program: string | readonly EmittedFile[],
  expected: string,
  c: Configuration,
  limits: Limits,
  temp: TempRoot,
  signal?: AbortSignal,
  /** Compile only (a program with undefined behaviour: only compiler crashes and hangs count). */
  compileOnly = false,
): Promise<ConfigResult> {
  const started = Date.now();
  const files = typeof program === 'string' ? [{ name: SOURCE_FILE, content: program }] : program;
  const compileDir = await temp.dir('cc');
  try {
    for (const f of files) await writeFile(join(compileDir, f.name), f.content);
    const cmd = compileCommand(
      c,
      files.map((f) => f.name),
    );
    const climits = limitsFor(limits.compile, c);
    const cr = await runStep('compile', cmd, {
      cwd: compileDir,
      timeoutMs: climits.timeoutMs,
      memoryMb: climits.memoryMb,
      maxOutputBytes: 256 << 10,
      signal,
    });
    const compile = record(cmd, cr);
    if (cr.aborted)
      return { config: c, judgement: { outcome: 'ok' }, compile, durationMs: Date.now() - started, aborted: true };
    const exe = join(compileDir, EXE_FILE);
    const failed = judgeCompile(cr, c, existsSync(exe));
    if (failed) return { config: c, judgement: failed, compile, durationMs: Date.now() - started, aborted: false };
    if (compileOnly)
      return { config: c, judgement: { outcome: 'ok' }, compile, durationMs: Date.now() - started, aborted: false };
    const runParent = await temp.dir('run');
    try {
      // The binary runs as ./prog from a folder whose path has a fixed length (sandbox.ts).
      const runDir = runDirIn(runParent);
      await mkdir(runDir);
      await rename(exe, join(runDir, EXE_FILE));
      const rlimits = limitsFor(limits.run, c, 'run');
      const argv = runArgv(c);
      const rr = await runStep('run', argv, {
        cwd: runDir,
        timeoutMs: rlimits.timeoutMs,
        memoryMb: rlimits.memoryMb,
        maxOutputBytes: RUN_OUTPUT_BYTES,
        signal,
      });
      const run = record(argv, rr);
      if (rr.aborted)
        return {
          config: c,
          judgement: { outcome: 'ok' },
          compile,
          run,
          durationMs: Date.now() - started,
          aborted: true,
        };
      const judgement = judgeRun(rr, expected, c);
      const normal = !rr.timedOut && rr.signal === null && rr.status === 0;
      return {
        config: c,
        judgement,
        compile,
        run,
        ...(normal ? { output: outputLine(rr.stdout) } : {}),
        durationMs: Date.now() - started,
        aborted: false,
      };
    } finally {
      await temp.remove(runParent);
    }
  } finally {
    await temp.remove(compileDir);
  }
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
