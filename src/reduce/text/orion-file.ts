// `kiln emi FILE.c`: Orion on a C file of the user's. The file is built with the reference compiler
// at -O0 with --coverage and run twice under the harness's sandbox (the limits, process group,
// fixed environment and address-space layout of every campaign run); gcov then gives each line's
// execution count, and src/mutate/file draws variants that delete statements that never ran. Every
// variant is built at -O0 and run like a campaign test against the original's output; those that
// fail are dropped and counted.
//
// It lives here, not in src/mutate, because it needs both the harness's process runner (mutate is
// above the harness) and the tree-sitter C parser of the text reducer; the mutation itself, which
// needs neither, is in src/mutate/file.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { errBadOption, errMissingTool, errParse, errUnusableProgram, KilnError } from '../../diag/errors.js';
import type { Compiler } from '../../harness/compilers.js';
import { LINK_LIBRARIES } from '../../harness/compilers.js';
import { EXE_ARGV0, EXE_FILE, RUN_OUTPUT_BYTES, runStep, testConfiguration } from '../../harness/execute.js';
import { buildMatrix, type Limits } from '../../harness/matrix.js';
import { outputLine } from '../../harness/oracle.js';
import type { RunResult } from '../../harness/process.js';
import { runDirIn } from '../../harness/sandbox.js';
import { TempRoot } from '../../harness/tempdir.js';
import { diffLines } from '../../mutate/diff.js';
import { parseGcovJson, type LineCounts } from '../../mutate/file/gcov.js';
import { orionCandidates, orionFileVariant } from '../../mutate/file/orion.js';
import { CParser, type SyntaxNode } from './parser.js';

/** Settings of one `kiln emi FILE.c`. */
export interface OrionFileOptions {
  /** Seed of the variants' random streams (variant i draws from (seed, i)). */
  readonly seed: string;
  /** Variants 1…K to draw (variant 0 is the original). */
  readonly variants: number;
  /** The reference compiler (a native gcc: gcov reads its coverage data). */
  readonly compiler: Compiler;
  /** The gcov matching the compiler's version. */
  readonly gcov: string;
  /** Extra flags for every build (include paths, macros, `-std=`). */
  readonly cflags: readonly string[];
  /** Limit of each run of the program or a variant. */
  readonly runTimeoutMs: number;
  /** Limit of each compile (default 120 s). */
  readonly compileTimeoutMs?: number;
  /** Address-space limit of every step in MiB (default 2048, the campaigns'). */
  readonly memoryMb?: number;
}

/** One written member: the original (variant 0) or a variant that printed the original's output. */
interface OrionFileMember {
  readonly variant: number;
  readonly text: string;
  /** Statements deleted (outermost ones). */
  readonly deleted: number;
  /** Lines added plus removed against the original. */
  readonly diffLines: number;
}

/** The outcome of a run: the original's output, the kept members, the dropped variants. */
export interface OrionFileResult {
  /** The original's output as the oracle compares it (trailing whitespace dropped). */
  readonly expected: string;
  /** Statements Orion could delete (nested ones included). */
  readonly candidates: number;
  readonly members: readonly OrionFileMember[];
  /** Variants that failed to compile or printed differently, with the reason. */
  readonly dropped: readonly { readonly variant: number; readonly reason: string }[];
}

/** The gcov that reads a gcc driver's coverage data: `gcc-12` → `gcov-12`, `gcc` → `gcov`. */
export function gcovFor(compiler: Compiler): string {
  const m = /^(?:.*-)?gcc(-\d+(?:\.\d+)*)?$/.exec(compiler.name);
  return `gcov${m?.[1] ?? ''}`;
}

/**
 * Draws and checks Orion variants of one C file. Throws a coded KilnError when the file cannot
 * serve as a test (unparsable, does not compile, does not terminate, nondeterministic output,
 * abnormal exit); writes nothing itself.
 */
export async function orionFile(path: string, text: string, opts: OrionFileOptions): Promise<OrionFileResult> {
  if (opts.compiler.family !== 'gcc')
    throw errBadOption('--cc', opts.compiler.name, 'a gcc driver (gcov reads its coverage data)');
  if (opts.compiler.target !== undefined)
    throw errBadOption('--cc', opts.compiler.name, 'a native compiler (the program runs to measure its coverage)');
  const parser = new CParser(1);
  const root = parser.parse(text).rootNode;
  const syntax = firstSyntaxError(root, parser.errorCount(text));
  if (syntax) throw errParse(path, syntax, 'kiln emi needs a syntactically valid C file');
  const limits: Limits = {
    compile: { timeoutMs: opts.compileTimeoutMs ?? 120_000, memoryMb: opts.memoryMb ?? 2048 },
    run: { timeoutMs: opts.runTimeoutMs, memoryMb: opts.memoryMb ?? 2048 },
  };
  // The copy is built elsewhere: `#include "x.h"` must still find the headers beside the file.
  const cflags = [...opts.cflags, '-iquote', dirname(resolve(path))];
  const temp = TempRoot.create();
  try {
    const { expected, counts } = await profile(path, text, { ...opts, cflags }, limits, temp);
    const matrix = buildMatrix([opts.compiler], ['-O0'])[0]!;
    const config = { ...matrix, options: ['-O0', ...cflags], optionsText: ['-O0', ...cflags].join(' ') };
    const verdicts = new Map<string, string | null>();
    // Builds and runs one text at -O0 exactly as a campaign test would: null when it prints `expected`.
    const check = async (t: string): Promise<string | null> => {
      const known = verdicts.get(t);
      if (known !== undefined) return known;
      const r = await testConfiguration(t, expected, config, limits, temp);
      const why = r.judgement.outcome === 'ok' ? null : `${r.judgement.outcome}: ${r.judgement.detail ?? ''}`.trim();
      verdicts.set(t, why);
      return why;
    };
    const original = await check(text);
    if (original !== null) throw unusableWithoutCoverage(path, original, opts.compiler.name);
    const members: OrionFileMember[] = [{ variant: 0, text, deleted: 0, diffLines: 0 }];
    const dropped: { variant: number; reason: string }[] = [];
    for (let i = 1; i <= opts.variants; i++) {
      const v = orionFileVariant(text, root, counts, opts.seed, i);
      const why = await check(v.text);
      if (why === null)
        members.push({ variant: i, text: v.text, deleted: v.deleted, diffLines: diffLines(text, v.text) });
      else dropped.push({ variant: i, reason: why });
    }
    return { expected, candidates: orionCandidates(root, counts).length, members, dropped };
  } finally {
    temp.dispose();
  }
}

/** Builds the file with coverage, runs it twice, and reads its line counts with gcov. */
async function profile(
  path: string,
  text: string,
  opts: OrionFileOptions,
  limits: Limits,
  temp: TempRoot,
): Promise<{ expected: string; counts: LineCounts }> {
  const dir = await temp.dir('cov');
  // The file keeps its own name, so compiler messages and gcov's report name it as the user does.
  const name = sourceName(path);
  await writeFile(join(dir, name), text);
  const cmd = [opts.compiler.command, '-O0', '--coverage', ...opts.cflags, name, '-o', EXE_FILE, ...LINK_LIBRARIES];
  const step = { cwd: dir, memoryMb: limits.compile.memoryMb, maxOutputBytes: 256 << 10, signal: undefined };
  const cr = await runStep('compile', cmd, { ...step, timeoutMs: limits.compile.timeoutMs });
  if (cr.timedOut)
    throw errUnusableProgram(
      'KILN_DOES_NOT_COMPILE',
      path,
      `${opts.compiler.name} -O0 did not finish within ${limits.compile.timeoutMs / 1000} s`,
    );
  if (cr.status !== 0 || !existsSync(join(dir, EXE_FILE)))
    throw errUnusableProgram(
      'KILN_DOES_NOT_COMPILE',
      path,
      `does not compile with ${opts.compiler.name} -O0: ${firstError(cr.stderr)}`,
    );
  const outputs: string[] = [];
  for (let run = 1; run <= 2; run++) {
    const r = await runOnce(dir, limits, temp);
    if (r.timedOut)
      throw errUnusableProgram(
        'KILN_DOES_NOT_TERMINATE',
        path,
        `does not terminate within ${limits.run.timeoutMs / 1000} s (built with ${opts.compiler.name} -O0 --coverage)`,
      );
    if (r.signal !== null || r.status !== 0)
      throw errUnusableProgram(
        'KILN_ABNORMAL_EXIT',
        path,
        `exits abnormally (${r.signal !== null ? `killed by ${r.signal}` : `exit status ${r.status}`}) on run ${run}`,
      );
    // Variants are judged like campaign tests, which keep this much output: a longer output could not be compared.
    if (r.truncated)
      throw errUnusableProgram('KILN_OUTPUT_TOO_LARGE', path, `prints more than ${RUN_OUTPUT_BYTES >> 10} KiB`);
    outputs.push(outputLine(r.stdout));
  }
  if (outputs[0] !== outputs[1])
    throw errUnusableProgram(
      'KILN_NONDETERMINISTIC',
      path,
      `prints differently on two runs: ${firstDifference(outputs[0]!, outputs[1]!)}`,
    );
  const data = (await readdir(dir)).filter((f) => f.endsWith('.gcda'));
  if (data.length !== 1) throw new Error(`expected one coverage data file after the runs, found ${data.length}`);
  const g = await runStep('compile', [opts.gcov, '--json-format', '--stdout', data[0]!], {
    ...step,
    timeoutMs: limits.compile.timeoutMs,
    maxOutputBytes: 64 << 20,
  });
  if (g.status === 127) throw errMissingTool(opts.gcov, 'gcc');
  if (g.status !== 0 || g.truncated)
    throw new KilnError(
      'KILN_MISSING_TOOL',
      `${opts.gcov} cannot read the coverage data ` +
        `of ${opts.compiler.name}: ${firstLine(g.stderr) || `exit status ${g.status}`}`,
      `give the gcov of the same gcc version with --gcov (e.g. gcov-12 for gcc-12)`,
    );
  let counts: LineCounts;
  try {
    counts = parseGcovJson(g.stdout, name);
  } catch (e) {
    throw new KilnError(
      'KILN_MISSING_TOOL',
      `${opts.gcov}: ${(e as Error).message}`,
      'give a gcov of gcc 9 or later (it needs --json-format) with --gcov',
    );
  }
  return { expected: outputs[0]!, counts };
}

/** One run of the coverage build, from a fresh folder of fixed path length (as campaign runs). */
async function runOnce(dir: string, limits: Limits, temp: TempRoot): Promise<RunResult> {
  const parent = await temp.dir('run');
  try {
    const runDir = runDirIn(parent);
    await mkdir(runDir);
    // A copy: the coverage runtime writes its counts next to the object files, in `dir`, by absolute path.
    await copyFile(join(dir, EXE_FILE), join(runDir, EXE_FILE));
    return await runStep('run', [EXE_ARGV0], {
      cwd: runDir,
      timeoutMs: limits.run.timeoutMs,
      memoryMb: limits.run.memoryMb,
      maxOutputBytes: RUN_OUTPUT_BYTES,
      signal: undefined,
    });
  } finally {
    await temp.remove(parent);
  }
}

/** The original failed its plain -O0 test after passing with coverage: say which way. */
function unusableWithoutCoverage(path: string, why: string, cc: string): KilnError {
  const code =
    why.startsWith('compiler-') || why.startsWith('rejected-')
      ? 'KILN_DOES_NOT_COMPILE'
      : why.startsWith('binary-hang')
        ? 'KILN_DOES_NOT_TERMINATE'
        : why.startsWith('binary-crash')
          ? 'KILN_ABNORMAL_EXIT'
          : 'KILN_NONDETERMINISTIC';
  return errUnusableProgram(code, path, `built with ${cc} -O0 without --coverage it behaves differently (${why})`);
}

/** The file name inside the build folder: the user's, with a `.c` suffix so the driver compiles it as C. */
function sourceName(path: string): string {
  const base = path.split('/').pop() ?? 'input.c';
  const safe = base.replace(/[^A-Za-z0-9_.+-]/g, '_');
  return safe.endsWith('.c') ? safe : `${safe}.c`;
}

/** Where the text stops parsing, as `line L, column C: near '…'` (undefined for a clean parse). */
function firstSyntaxError(root: SyntaxNode, errors: number): string | undefined {
  if (errors === 0) return undefined;
  let first: SyntaxNode | undefined;
  const visit = (n: SyntaxNode): void => {
    if (first) return;
    // tree-sitter-c's MISSING name of an unnamed bit-field is valid C (CParser.errorCount excuses it).
    if (n.type === 'ERROR' || (n.isMissing && n.type !== 'field_identifier')) {
      first = n;
      return;
    }
    if (n.hasError) for (const c of n.children) visit(c);
  };
  visit(root);
  const at = first ?? root;
  const near = at.isMissing ? `missing '${at.type}'` : `near '${at.text.split('\n')[0]!.slice(0, 40)}'`;
  return (
    `${errors} syntax error${errors === 1 ? '' : 's'}, the first at line ${at.startPosition.row + 1}, ` +
    `column ${at.startPosition.column + 1}: ${near}`
  );
}

function firstLine(s: string): string {
  return (
    s
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 300) ?? ''
  );
}

/** The first line of a compiler's diagnostics that names an error. */
function firstError(stderr: string): string {
  const line = stderr.split('\n').find((l) => /\berror\b/.test(l));
  return (line ?? firstLine(stderr)).trim().slice(0, 300) || 'no diagnostics';
}

/** The first line where two outputs differ, quoted. */
function firstDifference(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const show = (l: string | undefined): string => (l === undefined ? 'end of output' : `'${l.slice(0, 80)}'`);
  return `line ${i + 1}: ${show(x[i])} then ${show(y[i])}`;
}
