// `kiln reduce`: a finding folder (src/campaign/reduce-folder.ts: the IR reducer, or the text
// fallback of a layout-dependent finding, as `kiln fuzz --reduce` does) or any C file (reduce-text.ts).
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { reduceFindingFolder } from '../campaign/reduce-folder.js';
import { recordReduction } from '../campaign/reduce-finding.js';
import { errBadOption, errFile } from '../diag/errors.js';
import { describeResult } from './check.js';
import { describeTextReduction, progressPrinter } from '../report/reduce-progress.js';
import { describeBundle, reduceText, type ReduceCliOptions, type ReduceLimits } from './reduce-text.js';
import { parseCount, parseDuration, reportAndExit } from './util.js';

/** Registers `kiln reduce`: a Kiln finding directory (IR reducer) or any C file (text reducer). */
export function registerReduce(program: Command): void {
  program
    .command('reduce')
    .description(
      'reduce a C file with an interestingness test (C-Reduce/C-Vise convention), or a Kiln finding directory',
    )
    .argument('<path>', 'a .c file (text reducer) or a finding directory written by kiln fuzz (IR reducer)')
    .option(
      '--test <script>',
      'interestingness test: run in a fresh directory holding a copy of the file; exit 0 = interesting',
    )
    .option('-o, --output <file>', 'where the reduced file goes (default FILE.reduced.c); the input is never modified')
    .option('-j, --jobs <n>', 'candidates tested in parallel (default: number of cores)')
    .option('--timeout <seconds>', 'limit of one test run (default 60s); a run that exceeds it is not interesting')
    .option('--max-time <duration>', 'stop after this long (e.g. 10m) and keep the best result so far')
    .option(
      '--max-candidates <n>',
      'stop after testing this many candidates and keep the best result so far (a bound by work, not time)',
    )
    .option('--crash <cc>', 'write the test: interesting iff this compiler command (e.g. "gcc -O2") crashes')
    .option(
      '--match <regex>',
      'with --crash: the crash output must match this ERE (default: the original crash signature)',
    )
    .option(
      '--no-bundle',
      'with --crash: write only the reduced file, without its bundle (report.md, the LLVM or GCC reproducer)',
    )
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
  const maxCandidates =
    opts.maxCandidates === undefined ? undefined : parseCount('--max-candidates', opts.maxCandidates, 0, 1);
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
    const limits = { jobs, timeoutMs, maxTimeMs, maxCandidates, note, signal: stop.signal };
    await (isDir ? reduceFolder(path, opts, limits) : reduceText(path, opts, limits));
  } finally {
    // Once interrupted the listener stays, so a second Ctrl-C as the result is written exits 130.
    if (!stop.signal.aborted) for (const sig of ['SIGINT', 'SIGTERM'] as const) process.off(sig, onSignal);
  }
  if (stop.signal.aborted) process.exitCode = 130;
}

/** Reduces a finding folder and prints what it gave. */
async function reduceFolder(
  path: string,
  opts: ReduceCliOptions,
  { jobs, timeoutMs, maxTimeMs, maxCandidates, note, signal }: ReduceLimits,
): Promise<void> {
  const why = 'a .c file argument (a finding carries its own test)';
  if (opts.bundle === false) throw errBadOption('--no-bundle', '', 'a .c file argument with --crash');
  for (const o of ['test', 'crash', 'wrongCode', 'match', 'reference', 'expected'] as const) {
    const flag = `--${o === 'wrongCode' ? 'wrong-code' : o}`;
    if (opts[o] !== undefined) throw errBadOption(flag, String(opts[o]), why);
  }
  const progress = progressPrinter(!!opts.quiet);
  const done = await reduceFindingFolder(path, {
    ...(opts.output !== undefined ? { output: opts.output } : {}),
    jobs,
    // The IR reducer's default is the campaign's limits; a text reduction's, TEXT_TEST_TIMEOUT_MS.
    ...(opts.timeout !== undefined ? { timeoutMs } : {}),
    ...(maxTimeMs !== undefined ? { maxTimeMs } : {}),
    ...(maxCandidates !== undefined ? { maxCandidates } : {}),
    onProgress: note,
    onEvent: progress,
    signal,
  });
  recordReduction(path, done.kind === 'bundle' ? done : { lines: done.lines, file: done.file });
  if (done.kind === 'text') {
    progress.end();
    if (done.eva) {
      note(`Frama-C Eva on the result: ${describeResult(done.file, done.eva)}`);
      if (done.eva.verdict === 'ub')
        note(
          'the reduced program may have undefined behaviour the per-candidate guards missed: check that ' +
            'report before filing it',
        );
      // Incomplete is no clean bill: Eva stopped (its limit, an alarm that ended its analysis) before the end.
      if (done.eva.verdict === 'incomplete')
        note(
          'Eva did not finish checking the reduced program: run kiln check on it with a longer ' +
            '--eva-timeout before filing it',
        );
    }
    note(`${describeTextReduction(done.result)}; wrote ${done.file} (reduced as text: no report.md bundle)`);
    return;
  }
  note(describeBundle(done));
}
