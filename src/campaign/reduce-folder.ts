// Reduction of a finding folder with every fallback, the same for `kiln reduce FINDING_DIR` and
// the background reduction of `kiln fuzz --reduce`: the IR reducer and the bug bundle, and for a
// layout-dependent finding (KILN_LAYOUT_DEPENDENT: it fails as stored but not as the IR reducer
// prints the same program) the stored prog.c reduced as text.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KilnError } from '../diag/errors.js';
import { checkProgram, probeTools, type CheckResult } from '../edge/check.js';
import { LINK_LIBRARIES } from '../harness/compilers.js';
import { RUN_SIDE_OUTCOMES } from '../harness/oracle.js';
import { COMPILE_SIDE_OUTCOMES, readFindingManifest } from '../reduce/finding.js';
import type { ReduceEvent, TextReduceResult } from '../reduce/text/manager.js';
import { reduceFile } from '../reduce/text/reduce-file.js';
import { shq } from '../reduce/text/scripts.js';
import { reduceAndBundle, type ReduceAndBundleOptions, type ReducedFinding } from './reduce-finding.js';

/** The limit of one test of a text reduction when none is given. */
const TEXT_TEST_TIMEOUT_MS = 60_000;

/** Options of {@link reduceFindingFolder}: the IR reducer's, and the text reducer's for the fallback. */
export interface ReduceFolderOptions extends ReduceAndBundleOptions {
  /** Progress of a text reduction (the fallback's). */
  readonly onEvent?: (e: ReduceEvent) => void;
  /** The shell command of `kiln check` a text reduction's UB guard runs (default: this process's Kiln). */
  readonly checkCommand?: string;
}

/** A layout-dependent finding's stored prog.c, reduced as text (no report.md bundle). */
interface TextFallback {
  /** The reduced file. */
  readonly file: string;
  readonly lines: number;
  readonly result: TextReduceResult;
  /** Frama-C Eva on the result of a run-side reduction (undefined when stopped, or compile-side). */
  readonly eva?: CheckResult;
}

/** What reducing a finding folder gave: the IR reduction and its bundle, or the text fallback. */
export type FolderReduction =
  | ({ readonly kind: 'bundle' } & ReducedFinding)
  | ({ readonly kind: 'text' } & TextFallback);

/**
 * Reduces a finding folder: with the IR reducer (bundle written into the folder), or, when the
 * finding is layout-dependent and a one-file compile-side or run-side failure, the stored prog.c
 * as text. A compile-side failure is reduced with the finding's own repro.sh (nothing a run does
 * can fake a rejected or crashing compile); a run-side one with repro.sh judged against gcc -O0's
 * output of the candidate, behind the --wrong-code guards against undefined behaviour (an edit
 * that reads an uninitialised variable can fake a wrong result or a crash).
 */
export async function reduceFindingFolder(dir: string, opts: ReduceFolderOptions): Promise<FolderReduction> {
  try {
    return { kind: 'bundle', ...(await reduceAndBundle(dir, opts)) };
  } catch (e) {
    if (!(e instanceof KilnError && e.code === 'KILN_LAYOUT_DEPENDENT')) throw e;
    const f = readFindingManifest(dir);
    const compileSide = COMPILE_SIDE_OUTCOMES.has(f.outcome);
    if ((!compileSide && !RUN_SIDE_OUTCOMES.has(f.outcome)) || f.sources.length !== 1) throw e;
    const note = opts.onProgress ?? (() => undefined);
    note(e.message);
    return { kind: 'text', ...(await reduceAsText(dir, f.outcome, compileSide, opts, note)) };
  }
}

async function reduceAsText(
  dir: string,
  outcome: string,
  compileSide: boolean,
  opts: ReduceFolderOptions,
  note: (line: string) => void,
): Promise<TextFallback> {
  const common = {
    input: join(dir, 'prog.c'),
    output: opts.output ?? join(dir, 'reduced.c'),
    jobs: opts.jobs ?? 1,
    timeoutMs: opts.timeoutMs ?? TEXT_TEST_TIMEOUT_MS,
    maxTimeMs: opts.maxTimeMs,
    maxCandidates: opts.maxCandidates,
    onEvent: opts.onEvent,
    onNote: note,
    signal: opts.signal,
  };
  if (compileSide) {
    note("reducing the stored prog.c as text instead, with the finding's repro.sh as the test");
    const test = layoutTest(dir, outcome);
    note(`test: ${test}`);
    const r = await reduceFile({ ...common, test, validity: true });
    return { file: r.output, lines: r.result.lines, result: r.result };
  }
  note(
    "reducing the stored prog.c as text instead: the finding's repro.sh against gcc -O0's output, guarded " +
      'against undefined behaviour (warnings as errors, ASan+UBSan, kiln check with MSan and valgrind; Eva ' +
      'once on the result)',
  );
  const f = readFindingManifest(dir);
  const r = await reduceFile({
    ...common,
    // Without a profile configuration's pseudo-option (+profile): its repro.sh builds the profile.
    wrongCode: [f.compilerPath, ...f.options.filter((o) => !o.startsWith('+'))].join(' '),
    reference: 'gcc -O0 -w',
    failingTest: shq(join(resolve(dir), 'repro.sh')),
    link: LINK_LIBRARIES,
    checkCommand: opts.checkCommand ?? kilnCheckCommand(),
    // Eva takes about a minute on a default campaign's program: once on the result, not per candidate.
    checkTools: ['msan', 'valgrind'],
  });
  const eva = opts.signal?.aborted
    ? undefined
    : await checkProgram([r.output], await probeTools({ tools: ['eva'] }), { tools: ['eva'] });
  return { file: r.output, lines: r.result.lines, result: r.result, ...(eva ? { eva } : {}) };
}

/**
 * The interestingness test of a layout-dependent finding's text reduction, written into the
 * finding folder: its repro.sh, and for a rejected program also gcc accepting it, so the
 * reduction cannot drift into C that every compiler rejects.
 */
function layoutTest(dir: string, outcome: string): string {
  const file = join(resolve(dir), 'reduce-test.sh');
  const lines = [
    '#!/bin/sh',
    '# kiln reduce: interestingness test of the stored prog.c, reduced as text (C-Reduce convention: exit 0 ' +
      '= interesting).',
    `${shq(join(resolve(dir), 'repro.sh'))} || exit 1`,
  ];
  if (outcome === 'rejected-valid') {
    // repro.sh accepts any error, a linker's included: the program must stay a whole, valid
    // program, and the compiler must still give the finding's first message.
    const j = JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as {
      stderr?: string;
      compilerPath: string;
      options?: string | string[];
    };
    const options = Array.isArray(j.options) ? j.options : (j.options ?? '').split(/\s+/).filter((o) => o !== '');
    const first = (j.stderr ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
    const message = (/line \d+: (.+)$/.exec(first)?.[1] ?? first).trim();
    // Two compilers must accept it: gcc alone lets the reduction drift into its extensions (a
    // label before '}'), which another compiler rightly rejects (measured: a pcc rejection
    // reduced to one). Kiln's programs use GNU C, so the check is not -pedantic.
    lines.push('gcc -w prog.c -o kiln-gcc-check -lm >/dev/null 2>&1 || exit 1');
    lines.push(
      'if command -v clang >/dev/null 2>&1; then clang -std=gnu11 -w -fsyntax-only prog.c >/dev/null 2>&1 ' +
        '|| exit 1; fi',
    );
    if (message)
      lines.push(
        `${[j.compilerPath, ...options].map(shq).join(' ')} -c prog.c -o kiln-check.o 2>&1 | grep -qF ` +
          `-- ${shq(message)} || exit 1`,
      );
  }
  lines.push('exit 0', '');
  writeFileSync(file, lines.join('\n'), { mode: 0o755 });
  return file;
}

/**
 * The shell command that runs this very Kiln's `kiln check` (the same Node, loader flags and entry
 * point), so a written interestingness test uses the validator of the Kiln that wrote it.
 */
export function kilnCheckCommand(): string {
  return [process.execPath, ...process.execArgv, process.argv[1]!, 'check'].map(shq).join(' ');
}
