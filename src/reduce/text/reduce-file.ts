import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { errBadOption, errFile, errMissingTool, errNotInteresting } from '../../diag/errors.js';
import { detectCompilers, findOnPath, launcherIn } from '../../harness/compilers.js';
import { ValidityChecker, validityCompilers, validitySummary } from '../validity.js';
import { InterestingnessTest, type Verdict } from './interesting.js';
import { reduceText, type ReduceEvent, type TextReduceResult } from './manager.js';
import { CParser } from './parser.js';
import {
  crashScript,
  DEFER_GUARDS_VAR,
  hasClang,
  hasDeferredGuards,
  probeCrash,
  probeWrongCodeGuards,
  semanticFlags,
  shq,
  wrongCodeScript,
} from './scripts.js';

/** What to reduce, against which test, and how. Exactly one of `test`, `crash`, `wrongCode`. */
export interface ReduceFileOptions {
  /** The C file (never modified). */
  readonly input: string;
  /** Where the result goes (default `FILE.reduced.c`); rewritten after every accepted step. */
  readonly output?: string;
  /** A C-Reduce-style interestingness script. */
  readonly test?: string;
  /** Write a test that is interesting iff this compiler command crashes (e.g. `gcc -O2`). */
  readonly crash?: string;
  /** With `crash`: ERE the crash output must match (default: the original's crash signature). */
  readonly match?: string;
  /** Write a UB-guarded test that is interesting iff this compiler command miscompiles. */
  readonly wrongCode?: string;
  /** With `wrongCode`: a compiler command believed correct. */
  readonly reference?: string;
  /** With `wrongCode`: the program's correct output (one line). */
  readonly expected?: string;
  readonly jobs?: number;
  /** Limit of one test run (default 60 s). */
  readonly timeoutMs?: number;
  /** Overall limit (default none). */
  readonly maxTimeMs?: number;
  /** Candidates judged before stopping (default none): a bound by work, not time (see `reduceText`). */
  readonly maxCandidates?: number;
  readonly onEvent?: (e: ReduceEvent) => void;
  /** One-line notes for the user (script written, guards dropped, …). */
  readonly onNote?: (line: string) => void;
  /** With `wrongCode`: a shell command running `kiln check`, the script's last UB guard (see `wrongCodeScript`). */
  readonly checkCommand?: string;
  /** With `wrongCode` and `reference`: a script that shows the failure (see `wrongCodeScript`'s `failingTest`). */
  readonly failingTest?: string;
  /** With `checkCommand`: the tools it runs (see `wrongCodeScript`). */
  readonly checkTools?: readonly ('msan' | 'valgrind' | 'eva')[];
  /** With `wrongCode`: arguments after `-o BINARY` in the script's linking builds. */
  readonly link?: readonly string[];
  /** Stops the reduction (Ctrl-C); the output then holds the best text the whole test accepted. */
  readonly signal?: AbortSignal;
  /**
   * The validity check of the texts the reduction keeps (see src/reduce/validity.ts): `true` for
   * the newest gcc and clang on PATH, or a checker of one's own. Default: on for `wrongCode` (the
   * program is run, so it must be valid C), off for `test` and `crash`, whose cases may be invalid
   * C on purpose (a crash on invalid code); `kiln reduce` turns it on for a finding's stored file.
   * Applied only when the input itself passes it.
   */
  readonly validity?: ValidityChecker | boolean;
}

/** The outcome of `reduceFile`. */
export interface ReduceFileResult {
  readonly result: TextReduceResult;
  readonly output: string;
  /** The interestingness script used (written next to the output when generated). */
  readonly script: string;
}

/** `dir/name.c` → `dir/name.reduced.c`. */
function defaultOutput(input: string): string {
  const ext = extname(input);
  return `${ext ? input.slice(0, -ext.length) : input}.reduced${ext || '.c'}`;
}

function writeAtomically(path: string, text: string, mode?: number): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, text, mode === undefined ? undefined : { mode });
    renameSync(tmp, path);
  } catch (e) {
    throw errFile(path, `cannot write: ${(e as Error).message}`);
  }
}

function validate(o: ReduceFileOptions): void {
  const modes = [o.test !== undefined, o.crash !== undefined, o.wrongCode !== undefined].filter(Boolean).length;
  if (modes !== 1)
    throw errBadOption(
      '--test',
      o.test ?? '(none)',
      'exactly one of --test SCRIPT, --crash "CC FLAGS" or --wrong-code "CC FLAGS"',
    );
  if (o.match !== undefined) {
    if (o.crash === undefined) throw errBadOption('--match', o.match, 'to be used with --crash');
    try {
      new RegExp(o.match);
    } catch {
      throw errBadOption('--match', o.match, 'an extended regular expression');
    }
  }
  if (o.wrongCode !== undefined && (o.reference === undefined) === (o.expected === undefined)) {
    throw errBadOption('--wrong-code', o.wrongCode, 'exactly one of --reference "CC FLAGS" or --expected LINE with it');
  }
  if (o.wrongCode === undefined && (o.reference !== undefined || o.expected !== undefined)) {
    throw errBadOption(
      o.reference !== undefined ? '--reference' : '--expected',
      o.reference ?? o.expected!,
      'to be used with --wrong-code',
    );
  }
  if (o.expected?.includes('\n')) throw errBadOption('--expected', o.expected, 'one line of output');
}

/**
 * Writes the `--crash` or `--wrong-code` script for `text` next to the output; returns its path,
 * and whether it has a last guard the reducer can defer (`DEFER_GUARDS_VAR`).
 */
async function writeGeneratedScript(
  o: ReduceFileOptions,
  text: string,
  output: string,
  timeoutMs: number,
): Promise<{ path: string; deferrable: boolean }> {
  const fileName = basename(o.input);
  const path = `${output}.test.sh`;
  let script: string;
  let deferrable = false;
  if (o.crash !== undefined) {
    const crash = withLauncher(o.crash);
    let match = o.match;
    let needles: readonly string[] | undefined;
    if (match === undefined) {
      const probe = await probeCrash(crash, fileName, text, timeoutMs);
      if (!probe.crashed) throw errNotInteresting(o.input, `'${o.crash}' does not crash on it`);
      // The crash report's own signature when it names one (src/harness/signature.ts), else its ICE line.
      needles = probe.report?.needles.length ? probe.report.needles : undefined;
      match = needles ? '' : probe.signature;
      o.onNote?.(
        needles
          ? `crash signature: ${probe.report!.key}`
          : match
            ? `crash signature: ${match}`
            : 'no crash signature found: any crash counts',
      );
    }
    script = crashScript({ fileName, compiler: crash, match, ...(needles ? { needles } : {}) });
  } else {
    if (!(await hasClang())) throw errMissingTool('clang', 'clang');
    const cflags = [...new Set([...semanticFlags(o.wrongCode!), ...semanticFlags(o.reference ?? '')])];
    const guards = await probeWrongCodeGuards(fileName, text, cflags);
    for (const d of guards.dropped.filter((x) => x.includes('original'))) o.onNote?.(`UB guard dropped: ${d}`);
    if (!guards.msan) o.onNote?.('MemorySanitizer is not available here: the MSan guard is left out');
    deferrable = hasDeferredGuards({
      msan: guards.msan,
      ...(o.checkCommand !== undefined ? { check: o.checkCommand } : {}),
    });
    script = wrongCodeScript({
      fileName,
      failing: o.wrongCode!,
      ...(o.reference !== undefined ? { reference: o.reference } : { expected: o.expected! }),
      cflags,
      gccErrors: guards.gccErrors,
      clangErrors: guards.clangErrors,
      msan: guards.msan,
      ...(o.checkCommand !== undefined ? { check: o.checkCommand } : {}),
      ...(o.failingTest !== undefined ? { failingTest: o.failingTest } : {}),
      ...(o.checkTools !== undefined ? { checkTools: o.checkTools } : {}),
      ...(o.link !== undefined ? { link: o.link } : {}),
      runTimeoutS: Math.max(1, Math.floor(timeoutMs / 4000)),
    });
  }
  writeAtomically(path, script, 0o755);
  chmodSync(path, 0o755);
  o.onNote?.(`interestingness test written to ${path}`);
  if (deferrable)
    o.onNote?.('its last UB guard runs on the texts the reduction keeps (checkpoints), not on every candidate');
  return { path, deferrable };
}

/**
 * A compiler command whose first word names a compiler of a sid root (`clang-23 -O1`, not on
 * PATH) with that word replaced by its launcher's path, so the written script runs it; otherwise as given.
 */
function withLauncher(command: string): string {
  const [first, ...rest] = command.trim().split(/\s+/);
  if (!first || first.includes('/') || findOnPath(first)) return command;
  const launcher = launcherIn(first, process.env);
  return launcher ? [shq(launcher), ...rest].join(' ') : command;
}

type RunTest = Pick<InterestingnessTest, 'run'>;

/**
 * The validity check as the manager's `verify` (run at checkpoints, on the texts it keeps): the
 * text compiles cleanly on the newest gcc and clang, and passes the whole test. Undefined when
 * there is no check, or the input does not pass it (then it is noted and not applied). Without
 * deferred guards the test has already judged every text a checkpoint sees, so `whole` only
 * repeats it for texts it has not seen (the original).
 */
async function validityVerify(
  o: ReduceFileOptions,
  text: string,
  candidateTest: RunTest,
  test: RunTest,
): Promise<{ candidates: RunTest; whole: RunTest } | undefined> {
  const deferred = candidateTest !== test;
  const wanted = o.validity ?? o.wrongCode !== undefined;
  if (wanted === false) return undefined;
  const checker = wanted === true ? new ValidityChecker(validityCompilers(await detectCompilers())) : wanted;
  if (checker.compilers.length === 0) {
    o.onNote?.('no gcc or clang on PATH: the reduced text is not checked for validity');
    return undefined;
  }
  const first = await checker.check([{ name: basename(o.input), content: text }], o.signal);
  if (!first.ok) {
    o.onNote?.(
      `the input does not pass the validity check (${checker.describe()}: ${validitySummary(first, 1)}), so ` +
        `the reduced text is not held to it`,
    );
    return undefined;
  }
  o.onNote?.(
    `the texts the reduction keeps must compile cleanly on ${checker.describe()} (-std=gnu11 -Wall -Wextra, ` +
      `none of the diagnostics GCC 14 makes errors)`,
  );
  const accepted = new Set<string>();
  const candidates: RunTest = deferred
    ? candidateTest
    : {
        run: async (t: string, signal?: AbortSignal): Promise<Verdict> => {
          const v = await test.run(t, signal);
          if (v === 'interesting') accepted.add(t);
          return v;
        },
      };
  const whole: RunTest = {
    run: async (t: string, signal?: AbortSignal): Promise<Verdict> => {
      const v = await checker.check([{ name: basename(o.input), content: t }], signal);
      if (signal?.aborted) return 'cancelled';
      if (!v.ok) return 'boring';
      if (!deferred && accepted.has(t)) return 'interesting';
      return test.run(t, signal);
    },
  };
  return { candidates, whole };
}

/**
 * Reduces a C file with the text reducer: validates the options, writes a generated test when
 * asked (`--crash`, `--wrong-code`), checks that the test accepts the original, reduces, and keeps
 * the output file up to date after every accepted step (an interrupted run leaves its best result).
 */
export async function reduceFile(o: ReduceFileOptions): Promise<ReduceFileResult> {
  validate(o);
  const output = o.output ?? defaultOutput(o.input);
  if (resolve(output) === resolve(o.input))
    throw errBadOption('--output', output, 'a file other than the input (kiln reduce never modifies it)');
  let text: string;
  try {
    text = readFileSync(o.input, 'utf8');
  } catch (e) {
    throw errFile(o.input, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message);
  }
  const errors = new CParser(1).errorCount(text);
  if (errors > 0) o.onNote?.(`tree-sitter finds ${errors} syntax error(s) in the input; candidates may not add more`);
  const timeoutMs = o.timeoutMs ?? 60_000;
  const generated = o.test === undefined ? await writeGeneratedScript(o, text, output, timeoutMs) : undefined;
  const script = o.test ?? generated!.path;
  const test = new InterestingnessTest(script, basename(o.input), timeoutMs);
  // Deferred guards: candidates run the script's cheap steps, checkpoints the whole script.
  const cheap = generated?.deferrable
    ? new InterestingnessTest(script, basename(o.input), timeoutMs, { [DEFER_GUARDS_VAR]: '1' })
    : undefined;
  try {
    const verify = await validityVerify(o, text, cheap ?? test, test);
    const result = await reduceText({
      text,
      test: verify?.candidates ?? cheap ?? test,
      ...(verify ? { verify: verify.whole } : cheap ? { verify: test } : {}),
      // A wrong-code test builds and runs the program: a candidate that does not parse cannot pass.
      strictSyntax: o.wrongCode !== undefined,
      label: o.input,
      jobs: o.jobs,
      maxTimeMs: o.maxTimeMs,
      ...(o.maxCandidates !== undefined ? { maxCandidates: o.maxCandidates } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      onEvent: (e) => {
        // The output file only ever holds a text the whole test accepts.
        if ((e.kind === 'commit' && !e.provisional) || e.kind === 'verified') writeAtomically(output, e.text);
        o.onEvent?.(e);
      },
    });
    writeAtomically(output, result.text);
    return { result, output, script };
  } finally {
    test.dispose();
    cheap?.dispose();
  }
}
