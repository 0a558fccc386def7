// Verdicts of sanitizer testing. A UB program's sanitized run either reports its injected UB (the
// kind, at the line `kiln gen --ub` names) or is a candidate miss; a candidate becomes a
// `sanitizer-miss` only when a reference build shows that the UB site survives: the reference
// compiler's same sanitizer reports it at -O0 (the program reaches the UB and the sanitizer can
// see it) and at the configuration's own options (the site survives an optimiser at that level).
// A UB-free program's sanitized run that reports anything is a `sanitizer-false-alarm`.
import type { Compiler } from '../harness/compilers.js';
import type { ConfigResult } from '../harness/execute.js';
import type { Configuration } from '../harness/matrix.js';
import { judgeCompile, judgeRun, outputLine, type Judgement } from '../harness/oracle.js';
import type { RunResult } from '../harness/process.js';
import { refutedByOperands } from './refute.js';
import type { ToolReport } from './reports.js';
import { hasSanitizer, type Sanitizer, type SanitizedKind, type SanitizedRun } from './sanitize.js';
import type { SiteLocation } from './inject.js';

/**
 * Whether a report is the injected UB: its kind, at its line (or at a line the report does not know, in a frame of the
 * program).
 */
export function reportsSite(r: ToolReport | undefined, kind: SanitizedKind, at: SiteLocation): boolean {
  if (r === undefined || r.kind !== kind) return false;
  // A report of the kind whose innermost frame is in the program but has no line (inlined code
  // whose line the debug information lost) may well be the site: never a miss to claim.
  if (r.line === undefined && r.file !== undefined) return true;
  return r.line === at.line;
}

/** A report in one line (`asan out-of-bounds at line 40: AddressSanitizer: …`), or `nothing`. */
export function describeReport(r: ToolReport | undefined): string {
  return r ? `${r.tool} ${r.kind} at line ${r.line ?? '?'}: ${r.message}` : 'nothing';
}

/** The step record of a compile as the campaign oracle reads it. */
function asRunResult(s: SanitizedRun['compile']): RunResult {
  return {
    status: s.status,
    signal: s.signal,
    stdout: s.stdout,
    stderr: s.stderr,
    timedOut: s.timedOut,
    aborted: false,
    truncated: false,
    durationMs: s.durationMs,
  };
}

/**
 * A compile that failed (crash, hang, rejection), judged as every campaign judges compiles; undefined when it built.
 */
export function compileFailure(r: SanitizedRun): Judgement | undefined {
  if (r.run) return undefined;
  return (
    judgeCompile(asRunResult(r.compile), r.config, false) ?? {
      outcome: 'rejected-valid',
      bucket: `rejected-valid:${r.config.compiler.name}:no executable`,
      detail: 'exit status 0 but no executable was written',
    }
  );
}

/** The sanitized run as a campaign result (what finding folders and the store record). */
export function asConfigResult(r: SanitizedRun, judgement: Judgement): ConfigResult {
  const normal = r.run !== undefined && !r.run.timedOut && r.run.signal === null && r.run.status === 0;
  return {
    config: r.config,
    judgement,
    compile: r.compile,
    ...(r.run ? { run: r.run } : {}),
    ...(normal ? { output: outputLine(r.run!.stdout) } : {}),
    durationMs: r.durationMs,
    aborted: r.aborted,
  };
}

/** The bucket of a miss: `sanitizer-miss:<compiler>:<sanitizer>:<kind>:<options>`. */
export function missBucket(base: Configuration, s: Sanitizer, kind: SanitizedKind): string {
  return `sanitizer-miss:${base.compiler.name}:${s}:${kind}:${base.optionsText}`;
}

/** The bucket of a false alarm: `sanitizer-false-alarm:<compiler>:<sanitizer>:<reported kind>:<options>`. */
function falseAlarmBucket(base: Configuration, s: Sanitizer, r: ToolReport): string {
  return `sanitizer-false-alarm:${base.compiler.name}:${s}:${r.kind}:${base.optionsText}`;
}

/** `; the report's own operands refute it: 8 << 0 is 8, …` for a UBSan report false on its face. */
function refutation(r: ToolReport): string {
  const why = r.tool === 'ubsan' ? refutedByOperands(r.message) : undefined;
  return why ? `; the report's own operands refute it: ${why}` : '';
}

/**
 * Judges a UB-free program's sanitized run: any report is a false alarm; otherwise the run is
 * judged as any campaign run (a sanitized build that prints another line is wrong code).
 */
export function judgeUBFree(r: SanitizedRun, base: Configuration, expected: string): Judgement {
  const failed = compileFailure(r);
  if (failed) return failed;
  if (r.report)
    return {
      outcome: 'sanitizer-false-alarm',
      bucket: falseAlarmBucket(base, r.sanitizer, r.report),
      detail: `${describeReport(r.report)} (the interpreter proved the program UB-free${refutation(r.report)})`,
    };
  return judgeRun(asRunResult(r.run!), expected, r.config);
}

/**
 * The compiler whose sanitizer checks that a missed UB site survives: another compiler of the
 * matrix with the same sanitizer, of the other family first (gcc for clang, clang for gcc: two
 * independent optimisers and sanitizer implementations); the compiler itself when it is alone.
 */
export function referenceCompiler(c: Compiler, s: Sanitizer, all: readonly Compiler[]): Compiler {
  const others = all.filter((o) => o.realPath !== c.realPath && hasSanitizer(o.family, s));
  return others.find((o) => o.family !== c.family) ?? others[0] ?? c;
}

/** What the survival check found, recorded in the finding (why the miss is believed). */
export interface SurvivalEvidence {
  /** Whether the build that missed keeps code at the UB's line (its own line table). */
  readonly kept?: boolean;
  /** The build that shows the program reaches the UB (`gcc -O0 with asan`). */
  readonly reachedBy: string;
  readonly reached: string;
  /** The build that shows the site survives optimisation at the configuration's options, if one was run. */
  readonly survivesBy?: string;
  readonly atLevel?: string;
  readonly survives: boolean;
  readonly note: string;
}

/**
 * Decides whether a candidate miss is a finding: the build that missed must keep code at the UB's
 * line (`kept`; false when its optimiser deleted the statement, which the UB allows); `atO0` (the
 * reference compiler's same sanitizer at -O0) must report the site; and `atLevel` (the reference
 * at the configuration's options, or valgrind on the compiler's own unsanitized build at those
 * options) too, when there is one.
 */
export function survival(
  kind: SanitizedKind,
  at: SiteLocation,
  kept: boolean | undefined,
  o0: { by: string; run: SanitizedRun },
  level: { by: string; run: SanitizedRun } | undefined,
): SurvivalEvidence {
  const reached = reportsSite(o0.run.report, kind, at);
  const lv = level === undefined || reportsSite(level.run.report, kind, at);
  const survives = kept !== false && reached && lv;
  const note =
    kept === false
      ? `the build that missed has no code at line ${at.line} (its optimiser deleted the statement, which the ` +
        `UB allows): not counted as a miss`
      : !reached
        ? `${o0.by} does not report the site either: not counted as a miss`
        : !lv
          ? `${level!.by} does not report the site: the optimiser may have removed the UB legally; not ` +
            `counted as a miss`
          : level === undefined
            ? `the build that missed keeps code at line ${at.line}; ${o0.by} reports the site (no independent ` +
              `build checks its survival at this level: no second compiler has this sanitizer)`
            : `the build that missed keeps code at line ${at.line}; ${o0.by} reports the site, so the program ` +
              `reaches the UB; ${level.by} reports it too, so the site survives optimisation at these options`;
  return {
    ...(kept !== undefined ? { kept } : {}),
    reachedBy: o0.by,
    reached: describeReport(o0.run.report),
    ...(level ? { survivesBy: level.by, atLevel: describeReport(level.run.report) } : {}),
    survives,
    note,
  };
}
