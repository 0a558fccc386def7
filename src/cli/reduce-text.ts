import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { errBadOption, errFile, KilnError } from '../diag/errors.js';
import { COMPILE_SIDE_OUTCOMES, readFindingManifest } from '../reduce/finding.js';
import { RUN_SIDE_OUTCOMES } from '../harness/oracle.js';
import { LINK_LIBRARIES } from '../harness/compilers.js';
import { checkProgram, probeTools } from '../edge/check.js';
import { describeResult } from './check.js';
import type { ReduceEvent, TextReduceResult } from '../reduce/text/manager.js';
import { reduceFile } from '../reduce/text/reduce-file.js';
import { shq } from '../reduce/text/scripts.js';
import { recordReduction, reduceAndBundle } from '../campaign/reduce-finding.js';
import { parseCount, parseDuration, reportAndExit } from './util.js';

interface ReduceCliOptions {
  test?: string;
  output?: string;
  jobs?: string;
  timeout?: string;
  maxTime?: string;
  maxCandidates?: string;
  crash?: string;
  match?: string;
  wrongCode?: string;
  reference?: string;
  expected?: string;
  quiet?: boolean;
}

/** Registers `kiln reduce`: a Kiln finding directory (IR reducer) or any C file (text reducer). */
export function registerReduce(program: Command): void {
  program
    .command('reduce')
    .description('reduce a C file with an interestingness test (C-Reduce/C-Vise convention), or a Kiln finding directory')
    .argument('<path>', 'a .c file (text reducer) or a finding directory written by kiln fuzz (IR reducer)')
    .option('--test <script>', 'interestingness test: run in a fresh directory holding a copy of the file; exit 0 = interesting')
    .option('-o, --output <file>', 'where the reduced file goes (default FILE.reduced.c); the input is never modified')
    .option('-j, --jobs <n>', 'candidates tested in parallel (default: number of cores)')
    .option('--timeout <seconds>', 'limit of one test run (default 60s); a run that exceeds it is not interesting')
    .option('--max-time <duration>', 'stop after this long (e.g. 10m) and keep the best result so far')
    .option('--max-candidates <n>', 'stop after testing this many candidates and keep the best result so far (a bound by work, not time)')
    .option('--crash <cc>', 'write the test: interesting iff this compiler command (e.g. "gcc -O2") crashes')
    .option('--match <regex>', 'with --crash: the crash output must match this ERE (default: the original crash signature)')
    .option('--wrong-code <cc>', 'write a UB-guarded test: interesting iff this compiler command miscompiles')
    .option('--reference <cc>', 'with --wrong-code: a compiler command believed correct (e.g. "gcc -O0")')
    .option('--expected <line>', 'with --wrong-code: the correct output of the program (one line)')
    .option('-q, --quiet', 'no progress on stderr')
    .addHelpText(
      'after',
      `
Examples:
  kiln reduce bug.c --test ./interesting.sh             reduce bug.c into bug.reduced.c
  kiln reduce bug.c --crash "gcc -O2"                   reduce a compiler crash (test saved as bug.reduced.c.test.sh)
  kiln reduce bug.c --wrong-code "gcc -O2" --reference "gcc -O0"
  kiln reduce kiln-out/findings/17                      reduce a Kiln finding with the IR reducer`,
    )
    .action(async (path: string, opts: ReduceCliOptions) => {
      try {
        await runReduce(path, opts);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

async function runReduce(path: string, opts: ReduceCliOptions): Promise<void> {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw errFile(path, 'no such file or directory');
  }
  const jobs = parseCount('--jobs', opts.jobs, availableParallelism(), 1);
  const timeoutMs = parseDuration('--timeout', opts.timeout) ?? 60_000;
  if (timeoutMs <= 0) throw errBadOption('--timeout', opts.timeout!, 'a positive duration');
  const maxTimeMs = parseDuration('--max-time', opts.maxTime);
  const maxCandidates = opts.maxCandidates === undefined ? undefined : parseCount('--max-candidates', opts.maxCandidates, 0, 1);
  const note = (line: string): void => {
    if (!opts.quiet) process.stderr.write(`kiln reduce: ${line}\n`);
  };
  // Ctrl-C (or SIGTERM) stops the reduction and still writes the best program so far, as
  // --max-time does; a second one quits at once (running tests are killed on the way out).
  const stop = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    if (++interrupts > 1) process.exit(130);
    note('interrupted: writing the best result so far (press Ctrl-C again to quit at once)');
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await reduceWith(path, isDir, opts, { jobs, timeoutMs, maxTimeMs, maxCandidates, note, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (stop.signal.aborted) process.exitCode = 130;
}

async function reduceWith(
  path: string,
  isDir: boolean,
  opts: ReduceCliOptions,
  { jobs, timeoutMs, maxTimeMs, maxCandidates, note, signal }: { jobs: number; timeoutMs: number; maxTimeMs: number | undefined; maxCandidates: number | undefined; note: (line: string) => void; signal: AbortSignal },
): Promise<void> {
  if (isDir) {
    for (const o of ['test', 'crash', 'wrongCode', 'match', 'reference', 'expected'] as const) {
      if (opts[o] !== undefined) throw errBadOption(`--${o === 'wrongCode' ? 'wrong-code' : o}`, String(opts[o]), 'a .c file argument (a finding carries its own test)');
    }
    let done;
    try {
      done = await reduceAndBundle(path, {
        ...(opts.output !== undefined ? { output: opts.output } : {}),
        jobs,
        ...(opts.timeout !== undefined ? { timeoutMs } : {}),
        ...(maxTimeMs !== undefined ? { maxTimeMs } : {}),
        ...(maxCandidates !== undefined ? { maxCandidates } : {}),
        onProgress: note,
        signal,
      });
    } catch (e) {
      // A layout-dependent failure: the stored file, reduced as text. A compile-side failure with
      // the finding's own repro.sh (nothing a run does can fake a rejected or crashing compile);
      // a run-side one with repro.sh judged against gcc -O0's output of the candidate, behind the
      // --wrong-code guards against undefined behaviour.
      if (!(e instanceof KilnError && e.code === 'KILN_LAYOUT_DEPENDENT')) throw e;
      const f = readFindingManifest(path);
      const compileSide = COMPILE_SIDE_OUTCOMES.has(f.outcome);
      if ((!compileSide && !RUN_SIDE_OUTCOMES.has(f.outcome)) || f.sources.length !== 1) throw e;
      note(e.message);
      const output = opts.output ?? join(path, 'reduced.c');
      const input = join(path, 'prog.c');
      const progress = progressPrinter(!!opts.quiet);
      let r;
      if (compileSide) {
        note('reducing the stored prog.c as text instead, with the finding\'s repro.sh as the test');
        const test = layoutTest(path, f.outcome);
        note(`test: ${test}`);
        r = await reduceFile({ input, output, test, jobs, timeoutMs, maxTimeMs, maxCandidates, onEvent: progress, onNote: note, signal, validity: true });
      } else {
        note("reducing the stored prog.c as text instead: the finding's repro.sh against gcc -O0's output, guarded against undefined behaviour (warnings as errors, ASan+UBSan, kiln check with MSan and valgrind; Eva once on the result)");
        r = await reduceFile({
          input,
          output,
          wrongCode: [f.compilerPath, ...f.options].join(' '),
          reference: 'gcc -O0 -w',
          failingTest: shq(join(resolve(path), 'repro.sh')),
          link: LINK_LIBRARIES,
          checkCommand: kilnCheckCommand(),
          // Eva takes about a minute on a default campaign's program: once on the result, not per candidate.
          checkTools: ['msan', 'valgrind'],
          jobs,
          timeoutMs,
          maxTimeMs,
          maxCandidates,
          onEvent: progress,
          onNote: note,
          signal,
        });
      }
      progress.end();
      const res = r.result;
      if (!compileSide && !signal.aborted) {
        const eva = await checkProgram([r.output], await probeTools({ tools: ['eva'] }), { tools: ['eva'] });
        note(`Frama-C Eva on the result: ${describeResult(r.output, eva)}`);
        if (eva.verdict === 'ub') note('the reduced program may have undefined behaviour the per-candidate guards missed: check that report before filing it');
        // Incomplete is no clean bill: Eva stopped (its limit, an alarm that ended its analysis) before the end.
        if (eva.verdict === 'incomplete') note('Eva did not finish checking the reduced program: run kiln check on it with a longer --eva-timeout before filing it');
      }
      recordReduction(path, { lines: res.lines, file: r.output });
      note(`${res.originalBytes} → ${res.bytes} bytes, ${res.lines} lines; ${res.tests} tests${guardNote(res)}, ${(res.ms / 1000).toFixed(1)}s${res.stoppedBy === 'fixpoint' ? '' : ` (stopped: ${res.stoppedBy})`}; wrote ${r.output} (reduced as text: no report.md bundle)`);
      return;
    }
    const { reduction: r, bundle } = done;
    recordReduction(path, done);
    const san = bundle.sanitizers.status === 'clean' ? 'UBSan+ASan clean' : bundle.sanitizers.status === 'error' ? `SANITIZER REPORT: ${bundle.sanitizers.detail}` : `sanitizers not checked (${bundle.sanitizers.detail})`;
    note(
      `${r.original.lines} → ${r.lines} lines (${r.original.bytes} → ${r.source.length} bytes); ${r.stats.tested} tests, ${r.stats.invalid} candidates rejected by the interpreter, ` +
        `${(r.stats.ms / 1000).toFixed(1)}s${r.complete ? '' : ' (stopped early: give a longer --max-time to go on)'}; ${san}${done.triage ? `; fingerprint ${done.triage.fingerprint}` : ''}; wrote ${bundle.reducedFile} and ${bundle.folder}/ (report.md, repro.sh)`,
    );
    return;
  }
  if (opts.test === undefined && opts.crash === undefined && opts.wrongCode === undefined) {
    throw errBadOption('--test', '(none)', 'an interestingness script (or --crash / --wrong-code to have one written)');
  }
  const progress = progressPrinter(!!opts.quiet);
  const r = await reduceFile({
    input: path,
    output: opts.output,
    test: opts.test,
    crash: opts.crash,
    match: opts.match,
    wrongCode: opts.wrongCode,
    reference: opts.reference,
    expected: opts.expected,
    jobs,
    timeoutMs,
    maxTimeMs,
    maxCandidates,
    onEvent: progress,
    onNote: note,
    checkCommand: kilnCheckCommand(),
    signal,
  });
  progress.end();
  const res = r.result;
  const pct = res.originalBytes === 0 ? 0 : (100 * (res.originalBytes - res.bytes)) / res.originalBytes;
  note(
    `${res.originalBytes} → ${res.bytes} bytes (−${pct.toFixed(1)}%), ${res.lines} lines; ${res.tests} tests${guardNote(res)}, ${res.cacheHits} cache hits, ` +
      `${(res.ms / 1000).toFixed(1)}s${res.stoppedBy === 'fixpoint' ? '' : ` (stopped: ${res.stoppedBy})`}; wrote ${r.output}`,
  );
}

/**
 * The interestingness test of a layout-dependent finding's text reduction, written into the
 * finding folder: its repro.sh, and for a rejected program also gcc accepting it, so the
 * reduction cannot drift into C that every compiler rejects.
 */
function layoutTest(dir: string, outcome: string): string {
  const file = join(resolve(dir), 'reduce-test.sh');
  const lines = ['#!/bin/sh', '# kiln reduce: interestingness test of the stored prog.c, reduced as text (C-Reduce convention: exit 0 = interesting).', `${shq(join(resolve(dir), 'repro.sh'))} || exit 1`];
  if (outcome === 'rejected-valid') {
    // repro.sh accepts any error, a linker's included: the program must stay a whole, valid
    // program, and the compiler must still give the finding's first message.
    const j = JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as { stderr?: string; compilerPath: string; options?: string | string[] };
    const options = Array.isArray(j.options) ? j.options : (j.options ?? '').split(/\s+/).filter((o) => o !== '');
    const first = (j.stderr ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
    const message = (/line \d+: (.+)$/.exec(first)?.[1] ?? first).trim();
    // Two compilers must accept it: gcc alone lets the reduction drift into its extensions (a
    // label before '}'), which another compiler rightly rejects (measured: a pcc rejection
    // reduced to one). Kiln's programs use GNU C, so the check is not -pedantic.
    lines.push('gcc -w prog.c -o kiln-gcc-check -lm >/dev/null 2>&1 || exit 1');
    lines.push('if command -v clang >/dev/null 2>&1; then clang -std=gnu11 -w -fsyntax-only prog.c >/dev/null 2>&1 || exit 1; fi');
    if (message) lines.push(`${[j.compilerPath, ...options].map(shq).join(' ')} -c prog.c -o kiln-check.o 2>&1 | grep -qF -- ${shq(message)} || exit 1`);
  }
  lines.push('exit 0', '');
  writeFileSync(file, lines.join('\n'), { mode: 0o755 });
  return file;
}

/** ` (N of them with the last UB guard, …)` when that guard was deferred to checkpoints. */
function guardNote(res: TextReduceResult): string {
  if (res.verifications === 0) return '';
  return ` (${res.verifications} of them with the last UB guard${res.reverts > 0 ? `, which undid steps ${res.reverts} time${res.reverts === 1 ? '' : 's'}` : ''})`;
}

/** Progress on stderr: a live status line on a terminal, one line per pass otherwise. */
function progressPrinter(quiet: boolean): ((e: ReduceEvent) => void) & { end(): void } {
  const tty = process.stderr.isTTY === true;
  let pass = '';
  let round = 0;
  let live = false;
  const show = (bytes: number, lines: number, extra = ''): void => {
    const line = `kiln reduce: round ${round} ${pass.padEnd(12)} ${bytes} bytes, ${lines} lines${extra}`;
    if (tty) {
      process.stderr.write(`\r\x1b[K${line}`);
      live = true;
    } else {
      process.stderr.write(`${line}\n`);
    }
  };
  const f = (e: ReduceEvent): void => {
    if (quiet) return;
    if (e.kind === 'start') process.stderr.write(`kiln reduce: original ${e.bytes} bytes, ${e.lines} lines\n`);
    else if (e.kind === 'pass') {
      pass = e.pass;
      round = e.round;
      show(e.bytes, e.lines);
    } else if (e.kind === 'verified') {
      if (e.reverted) {
        if (tty && live) process.stderr.write('\n');
        live = false;
        process.stderr.write(`kiln reduce: the deferred UB guards reject the latest steps: back to ${e.bytes} bytes, ${e.lines} lines\n`);
      } else if (tty) show(e.bytes, e.lines, ' (all guards pass)');
      else process.stderr.write(`kiln reduce: round ${round} ${pass.padEnd(12)} ${e.bytes} bytes, ${e.lines} lines pass all guards\n`);
    } else if (tty) show(e.bytes, e.lines, ` (${e.tests} tests)`);
  };
  return Object.assign(f, {
    end(): void {
      if (live) process.stderr.write('\n');
    },
  });
}

/**
 * The shell command that runs this very Kiln's `kiln check` (the same Node, loader flags and entry
 * point), so a written interestingness test uses the validator of the Kiln that wrote it.
 */
function kilnCheckCommand(): string {
  return [process.execPath, ...process.execArgv, process.argv[1]!, 'check'].map(shq).join(' ');
}
