// `kiln fuzz --sanitizers`: testing the sanitizers of every gcc and clang configuration on one
// program (the runner around it is src/campaign/sanitizer-runner.ts). Each seed's program is UB on purpose or UB-free
// (src/edge/sanitize.ts); each
// configuration builds it with the sanitizer that covers its UB kind (or ASan+UBSan and MSan for a
// UB-free program); src/edge/sanjudge.ts turns the runs into outcomes. Sanitized runs are
// deterministic (the sandbox fixes address randomisation and the environment), so failures are
// not run a second time.
import type { EmittedFile } from '../emit/files.js';
import type { FinalResult } from '../harness/runner.js';
import type { Compiler } from '../harness/compilers.js';
import type { Configuration, Limits } from '../harness/matrix.js';
import { sandboxShell, runDirShell } from '../harness/sandbox.js';
import { compileCommand, EXE_FILE } from '../harness/execute.js';
import { reproPrelude } from '../harness/repro.js';
import { limitsFor } from '../harness/matrix.js';
import type { TempRoot } from '../harness/tempdir.js';
import type { Judgement } from '../harness/oracle.js';
import {
  asConfigResult,
  compileFailure,
  describeReport,
  judgeUBFree,
  missBucket,
  referenceCompiler,
  reportsSite,
  survival,
  type SurvivalEvidence,
} from './sanjudge.js';
import {
  hasSanitizer,
  runSanitized,
  sanitizedConfiguration,
  SANITIZER_ENV,
  SANITIZER_OF,
  sanitizingFamily,
  valgrindConfiguration,
  keepsLine,
  type Sanitizer,
  type SanitizedRun,
  type SanitizerProgram,
} from './sanitize.js';

/** The configurations a sanitizer campaign tests (gcc and clang drivers) and those it skips. */
export function sanitizerMatrix(configs: readonly Configuration[]): {
  tested: Configuration[];
  skipped: Configuration[];
} {
  return {
    tested: configs.filter((c) => sanitizingFamily(c.compiler.family)),
    skipped: configs.filter((c) => !sanitizingFamily(c.compiler.family)),
  };
}

/** A counting semaphore: at most `n` sanitized builds at once across all programs in flight. */
export class Slots {
  private free: number;
  private readonly queue: (() => void)[] = [];
  constructor(n: number) {
    this.free = n;
  }
  /** Runs `f` when a slot is free. */
  async with<T>(f: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.queue.push(r));
    try {
      return await f();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** What testing one program needs. */
export interface SanitizerTestContext {
  readonly configurations: readonly Configuration[];
  readonly limits: Limits;
  readonly temp: TempRoot;
  readonly signal?: AbortSignal;
  /** Bounds concurrent builds (default: unbounded). */
  readonly slots?: { with<T>(f: () => Promise<T>): Promise<T> };
  /** Called with each first sanitized run of a configuration. */
  readonly onRun?: (r: SanitizedRun) => void;
}

/** A miss the survival check did not confirm (counted by the benchmark, not a finding). */
export interface UnconfirmedMiss {
  readonly config: Configuration;
  readonly evidence: SurvivalEvidence;
}

/** The results of one program: campaign results, plus candidate misses the survival check dropped. */
export interface SanitizerProgramResults {
  readonly results: FinalResult[];
  readonly unconfirmed: UnconfirmedMiss[];
}

/**
 * The survival check's helper tools that are not on PATH, each as one line saying what goes
 * unchecked without it: valgrind confirms an MSan miss above -O0 when no second compiler has MSan,
 * objdump reads the line table that shows whether the optimiser kept the UB's line.
 */
export function missingSurvivalTools(onPath: (tool: string) => boolean): string[] {
  const out: string[] = [];
  if (!onPath('valgrind'))
    out.push(
      'valgrind is not installed: an MSan miss above -O0 with no second compiler that has MSan stays an ' +
        'unconfirmed miss (npm run setup installs it)',
    );
  if (!onPath('objdump'))
    out.push(
      "objdump (binutils) is not installed: whether the optimiser kept the UB's line is not checked, so " +
        'misses stay unconfirmed (npm run setup installs it)',
    );
  return out;
}

/**
 * Tests one program with every configuration: a UB program with the sanitizer of its kind (a
 * configuration whose compiler lacks it is skipped), a UB-free one with ASan+UBSan and, on clang,
 * MSan. Candidate misses get the survival check (reference runs are shared by the configurations
 * of one program).
 */
export async function testSanitizerProgram(
  p: Extract<SanitizerProgram, { ok: true }>,
  ctx: SanitizerTestContext,
): Promise<SanitizerProgramResults> {
  const run = (c: Configuration, s: Sanitizer, options?: readonly string[]): Promise<SanitizedRun> => {
    const f = (): Promise<SanitizedRun> =>
      runSanitized(p.files, sanitizedConfiguration(c, s, options), s, ctx.limits, ctx.temp, ctx.signal);
    return ctx.slots ? ctx.slots.with(f) : f();
  };
  const compilers = [...new Map(ctx.configurations.map((c) => [c.compiler.realPath, c.compiler])).values()];
  const results: FinalResult[] = [];
  const unconfirmed: UnconfirmedMiss[] = [];
  const ub = p.ub;
  if (ub) {
    const s = SANITIZER_OF[ub.kind];
    const refRuns = new Map<string, Promise<SanitizedRun>>();
    const refRun = (ref: Compiler, options: readonly string[]): Promise<SanitizedRun> => {
      const key = `${ref.realPath}\0${options.join(' ')}`;
      let r = refRuns.get(key);
      if (!r)
        refRuns.set(
          key,
          (r = run({ compiler: ref, options, optionsText: options.join(' '), key, slug: ref.name }, s, options)),
        );
      return r;
    };
    const valgrindRun = (c: Configuration): Promise<SanitizedRun> => {
      const f = (): Promise<SanitizedRun> =>
        runSanitized(p.files, valgrindConfiguration(c), s, ctx.limits, ctx.temp, ctx.signal, true);
      return ctx.slots ? ctx.slots.with(f) : f();
    };
    await Promise.all(
      ctx.configurations
        .filter((c) => hasSanitizer(c.compiler.family, s))
        .map(async (c) => {
          const r = await run(c, s);
          if (r.aborted) return;
          ctx.onRun?.(r);
          const failed = compileFailure(r);
          if (failed) return void results.push(final(r, failed));
          if (reportsSite(r.report, ub.kind, ub.location)) return void results.push(final(r, { outcome: 'ok' }));
          if (unclaimed(ub.variant)) {
            const evidence = { reachedBy: 'none', reached: 'not checked', survives: false, note: UNCLAIMED_NOTE };
            unconfirmed.push({ config: c, evidence });
            return void results.push(final(r, { outcome: 'ok', detail: `unconfirmed miss: ${UNCLAIMED_NOTE}` }));
          }
          const ref = referenceCompiler(c.compiler, s, compilers);
          const self = ref.realPath === c.compiler.realPath;
          const o0 = refRun(ref, ['-O0']);
          // Survival at this level: the other compiler's sanitizer at the same options; with no
          // other compiler, for uninitialised reads, valgrind on this compiler's unsanitized build
          // (it checks the conditional jumps the optimiser left in the machine code).
          const level = !self ? refRun(ref, c.options) : ub.kind === 'uninitialised-read' ? valgrindRun(c) : undefined;
          const kept = (ctx.slots ?? { with: <T>(f: () => Promise<T>) => f() }).with(() =>
            keepsLine(p.files, r.config, ub.location.line, ctx.limits, ctx.temp, ctx.signal),
          );
          const [atO0, atLevel, keptLine] = await Promise.all([o0, level, kept]);
          if (atO0.aborted || atLevel?.aborted || ctx.signal?.aborted) return;
          const levelBy = !self
            ? `${ref.name} ${c.optionsText} with ${s}`
            : `valgrind on ${c.compiler.name} ${c.optionsText} without sanitizer`;
          const evidence = survival(
            ub.kind,
            ub.location,
            keptLine,
            { by: `${ref.name} -O0 with ${s}`, run: atO0 },
            atLevel ? { by: levelBy, run: atLevel } : undefined,
          );
          const facts = {
            sanitizer: {
              name: s,
              baseOptions: c.options,
              ub: { kind: ub.kind, variant: ub.variant, line: ub.location.line, column: ub.location.column },
              reported: describeReport(r.report),
              survival: {
                ...evidence,
                referenceCommand: ref.command,
                levelCheck: !self ? 'reference' : atLevel ? 'valgrind' : 'none',
              },
            },
          };
          if (!evidence.survives) {
            unconfirmed.push({ config: c, evidence });
            return void results.push(final(r, { outcome: 'ok', detail: `unconfirmed miss: ${evidence.note}` }));
          }
          const j: Judgement = {
            outcome: 'sanitizer-miss',
            bucket: missBucket(c, s, ub.kind),
            detail: `${s} reported ${describeReport(r.report)}; expected ${ub.kind} at line ${ub.location.line}`,
          };
          results.push({
            ...final(r, j),
            facts,
            repro: sanitizerRepro(p.files, r.config, j, ctx.limits, {
              miss: { kind: ub.kind, line: ub.location.line },
            }),
          });
        }),
    );
  } else {
    await Promise.all(
      ctx.configurations.flatMap((c) =>
        (['asan+ubsan', 'msan'] as const)
          // MSan's known blind spot (msanBlindSpot) would make every such program a false alarm.
          .filter((s) => hasSanitizer(c.compiler.family, s) && !(s === 'msan' && p.msanSkip))
          .map(async (s) => {
            const r = await run(c, s);
            if (r.aborted) return;
            ctx.onRun?.(r);
            const j = judgeUBFree(r, c, p.expected);
            const alarm = j.outcome === 'sanitizer-false-alarm';
            results.push({
              ...final(r, j),
              ...(alarm
                ? {
                    facts: {
                      sanitizer: {
                        name: s,
                        baseOptions: c.options,
                        ub: null,
                        reported: describeReport(r.report),
                        report: { tool: r.report!.tool, kind: r.report!.kind },
                      },
                    },
                    repro: sanitizerRepro(p.files, r.config, j, ctx.limits, { alarm: true }),
                  }
                : {}),
            });
          }),
      ),
    );
  }
  // One order whatever finished first: configuration order, then the sanitizer.
  const order = new Map(ctx.configurations.map((c, i) => [c, i]));
  results.sort(
    (a, b) =>
      (order.get(baseOf(a, ctx.configurations)) ?? 0) - (order.get(baseOf(b, ctx.configurations)) ?? 0) ||
      a.config.slug.localeCompare(b.config.slug),
  );
  return { results, unconfirmed };
}

/**
 * Injected UB a sanitizer does not claim to find every time: ASan puts redzones after globals only,
 * so a store or load just before a global array lands in whatever object the linker placed before
 * it (measured: gcc -O2 puts the array first in .data, after `__dso_handle`, and ASan is silent,
 * while at -O0 another global's redzone precedes it). Misses of these are never findings.
 */
export function unclaimed(variant: string): boolean {
  return /before the start of a global/.test(variant);
}

const UNCLAIMED_NOTE =
  'ASan does not claim underflows of globals (redzones follow globals only; what precedes one depends on ' +
  'the layout): not counted as a miss';

function baseOf(f: FinalResult, configs: readonly Configuration[]): Configuration {
  return configs.find((c) => f.config.slug.startsWith(`${c.slug}-`) && c.compiler === f.config.compiler) ?? f.config;
}

/** A sanitized run as the campaign's result for its configuration. */
function final(r: SanitizedRun, j: Judgement): FinalResult {
  const result = asConfigResult(r, j);
  return {
    config: r.config,
    outcome: j.outcome as FinalResult['outcome'],
    result,
    flaky: false,
    ...(j.outcome !== 'ok' ? { behaviours: [j] } : {}),
  };
}

/**
 * repro.sh of a sanitizer finding: builds `prog.c` with the sanitized configuration's command and
 * runs it as the campaign did; exits 0 when the finding shows again: for a miss, no report of the
 * kind's words at the UB line; for a false alarm, any sanitizer report.
 */
export function sanitizerRepro(
  files: readonly EmittedFile[],
  c: Configuration,
  j: Judgement,
  limits: Limits,
  what: { miss: { kind: string; line: number } } | { alarm: true },
): string {
  const names = files.map((f) => f.name).filter((n) => n.endsWith('.c'));
  const cl = limitsFor(limits.compile, c);
  const rl = limitsFor(limits.run, c, 'run');
  const check =
    'miss' in what
      ? [
          `# A miss: the run must not report the UB at ${names[0]}:${what.miss.line}.`,
          `if grep -Eq '(Sanitizer|runtime error)' run.err && grep -q ':${what.miss.line}:' run.err; then exit 1; fi`,
          'exit 0',
        ]
      : [
          '# A false alarm: any sanitizer report.',
          "grep -Eq '(ERROR: AddressSanitizer|WARNING: MemorySanitizer|runtime error:)' run.err && exit 0",
          'exit 1',
        ];
  const header = [
    commentText(`# Kiln finding: ${j.outcome} with ${c.compiler.name} ${c.optionsText}`),
    ...(j.detail ? [`# observed: ${commentText(j.detail)}`] : []),
    '# Exits 0 when the finding reproduces, 1 when it does not (C-Reduce/C-Vise interestingness test).',
  ];
  const compileShell = sandboxShell(
    { kind: 'compile', timeoutMs: cl.timeoutMs, memoryMb: cl.memoryMb, tag: '', tmpdir: '' },
    compileCommand(c, names),
  );
  const runShell = sandboxShell({ kind: 'run', timeoutMs: rl.timeoutMs, memoryMb: rl.memoryMb, tag: '' }, [
    'env',
    ...SANITIZER_ENV,
    `./${EXE_FILE}`,
  ]);
  const lines = [
    ...reproPrelude(header, names),
    `${compileShell} >compile.log 2>&1 || exit 1`,
    ...runDirShell(),
    `mkdir "$RUN" && mv ${EXE_FILE} "$RUN/${EXE_FILE}" && cd "$RUN" || exit 2`,
    `${runShell} >run.out 2>run.err`,
    ...check,
  ];
  return `${lines.join('\n')}\n`;
}

/** `s` for a `#` comment line of a script: control characters become spaces. */
function commentText(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
  return s.replace(/[\x00-\x1f]/g, ' ');
}
