// `kiln reduce FILE.c`: the text reducer on any C file, and the progress both reductions print.
import type { ReducedFinding } from '../campaign/reduce-finding.js';
import { crashFileBundle, fileLines } from '../campaign/crash-file.js';
import { kilnCheckCommand } from '../campaign/reduce-folder.js';
import { errBadOption } from '../diag/errors.js';
import { reduceFile } from '../reduce/text/reduce-file.js';
import { stopAdvice } from '../reduce/finding-types.js';
import { guardNote, progressPrinter } from '../report/reduce-progress.js';

/** Flags of `kiln reduce`. */
export interface ReduceCliOptions {
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
  /** `--no-bundle`: with --crash, only the reduced file (no report.md, no LLVM or GCC reproducer). */
  bundle?: boolean;
}

/** The limits and callbacks every reduction of `kiln reduce` runs with. */
export interface ReduceLimits {
  readonly jobs: number;
  readonly timeoutMs: number;
  readonly maxTimeMs: number | undefined;
  readonly maxCandidates: number | undefined;
  readonly note: (line: string) => void;
  readonly signal: AbortSignal;
}

/** Reduces a C file with an interestingness test (given, or written for --crash / --wrong-code). */
export async function reduceText(
  path: string,
  opts: ReduceCliOptions,
  { jobs, timeoutMs, maxTimeMs, maxCandidates, note, signal }: ReduceLimits,
): Promise<void> {
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
    `${res.originalBytes} → ${res.bytes} bytes (−${pct.toFixed(1)}%), ${res.lines} lines; ${res.tests} ` +
      `tests${guardNote(res)}, ${res.cacheHits} cache hits, ` +
      `${(res.ms / 1000).toFixed(1)}s${res.stoppedBy === 'fixpoint' ? '' : ` (stopped: ${res.stoppedBy})`}; ` +
      `wrote ${r.output}`,
  );
  // A crash of gcc or clang gets the bundle a finding's crash gets (report.md, reduced.ll or reduced.i).
  if (opts.crash !== undefined && opts.bundle !== false && !signal.aborted) {
    const report = await crashFileBundle(opts.crash, r, fileLines(path), { signal, onProgress: note });
    if (report) note(`wrote ${report}`);
  }
}

/** A finding's IR reduction and bundle in one line: sizes, tests, time, sanitizers, fingerprint, files. */
export function describeBundle(done: ReducedFinding): string {
  const { reduction: r, bundle } = done;
  const san =
    bundle.sanitizers.status === 'clean'
      ? 'UBSan+ASan clean'
      : bundle.sanitizers.status === 'error'
        ? `SANITIZER REPORT: ${bundle.sanitizers.detail}`
        : `sanitizers not checked (${bundle.sanitizers.detail})`;
  return (
    `${r.original.lines} → ${r.lines} lines (${r.original.bytes} → ${r.source.length} ` +
    `bytes); ${r.stats.tested} tests, ${r.stats.invalid} candidates rejected by the interpreter, ` +
    `${(r.stats.ms / 1000).toFixed(1)}` +
    `s${r.complete ? '' : ` (stopped early: ${stopAdvice(r.stoppedBy)})`}; ${san}` +
    `${done.triage ? `; fingerprint ${done.triage.fingerprint}` : ''}; wrote ${bundle.reducedFile} ` +
    `and ${bundle.folder}/ (report.md, repro.sh)`
  );
}
