import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LINK_LIBRARIES } from './compilers.js';
import { limitsFor, type Configuration, type Limits } from './matrix.js';
import { judgeCompile, judgeRun, outputLine, type Judgement } from './oracle.js';
import { runProcess, SpawnError, type RunResult } from './process.js';
import type { TempRoot } from './tempdir.js';

/** Names used inside each compile folder (and by repro scripts). */
export const SOURCE_FILE = 'prog.c';
export const EXE_FILE = 'prog';

/** The environment of every compile: English diagnostics, temporary files kept in the compile folder. */
function compileEnv(dir: string): Record<string, string> {
  return { LC_ALL: 'C', LANG: 'C', TMPDIR: dir };
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

/** The exact compile command of a configuration: `<cc> <options> prog.c -o prog -lm`. */
export function compileCommand(c: Configuration): string[] {
  return [c.compiler.command, ...c.options, SOURCE_FILE, '-o', EXE_FILE, ...LINK_LIBRARIES];
}

/**
 * Compiles `source` with one configuration in a fresh folder, runs the binary in another fresh
 * folder, and judges the result; both folders are removed before returning.
 */
export async function testConfiguration(source: string, expected: string, c: Configuration, limits: Limits, temp: TempRoot, signal?: AbortSignal): Promise<ConfigResult> {
  const started = Date.now();
  const compileDir = await temp.dir('cc');
  try {
    await writeFile(join(compileDir, SOURCE_FILE), source);
    const cmd = compileCommand(c);
    const climits = limitsFor(limits.compile, c);
    const cr = await runStep(cmd, {
      cwd: compileDir,
      timeoutMs: climits.timeoutMs,
      memoryMb: climits.memoryMb,
      env: compileEnv(compileDir),
      maxOutputBytes: 256 << 10,
      signal,
    });
    const compile = record(cmd, cr);
    if (cr.aborted) return { config: c, judgement: { outcome: 'ok' }, compile, durationMs: Date.now() - started, aborted: true };
    const exe = join(compileDir, EXE_FILE);
    const failed = judgeCompile(cr, c, existsSync(exe));
    if (failed) return { config: c, judgement: failed, compile, durationMs: Date.now() - started, aborted: false };
    const runDir = await temp.dir('run');
    try {
      const rlimits = limitsFor(limits.run, c);
      const rr = await runStep([exe], { cwd: runDir, timeoutMs: rlimits.timeoutMs, memoryMb: rlimits.memoryMb, maxOutputBytes: 64 << 10, signal });
      const run = record([exe], rr);
      if (rr.aborted) return { config: c, judgement: { outcome: 'ok' }, compile, run, durationMs: Date.now() - started, aborted: true };
      const judgement = judgeRun(rr, expected, c);
      const normal = !rr.timedOut && rr.signal === null && rr.status === 0;
      return { config: c, judgement, compile, run, ...(normal ? { output: outputLine(rr.stdout) } : {}), durationMs: Date.now() - started, aborted: false };
    } finally {
      await temp.remove(runDir);
    }
  } finally {
    await temp.remove(compileDir);
  }
}

interface StepOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly memoryMb: number | undefined;
  readonly env?: Record<string, string>;
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal | undefined;
}

/** runProcess, with "cannot start" turned into an ordinary failed step (status 127, like a shell). */
async function runStep(cmd: readonly string[], o: StepOptions): Promise<RunResult> {
  try {
    return await runProcess(cmd[0]!, cmd.slice(1), {
      cwd: o.cwd,
      timeoutMs: o.timeoutMs,
      ...(o.memoryMb !== undefined ? { memoryMb: o.memoryMb } : {}),
      ...(o.env ? { env: o.env } : {}),
      maxOutputBytes: o.maxOutputBytes,
      ...(o.signal ? { signal: o.signal } : {}),
    });
  } catch (e) {
    if (!(e instanceof SpawnError)) throw e;
    return { status: 127, signal: null, stdout: '', stderr: `kiln: ${e.message}\n`, timedOut: false, aborted: false, truncated: false, durationMs: 0 };
  }
}

function record(command: readonly string[], r: RunResult): StepRecord {
  return { command, status: r.status, signal: r.signal, timedOut: r.timedOut, durationMs: r.durationMs, stdout: r.stdout, stderr: r.stderr };
}
