import { constants } from 'node:os';
import { crashMessage, errorMessage, looksLikeCrash } from './bucket.js';
import type { Configuration } from './matrix.js';
import { crashFamily, crashSignature } from './signature.js';
import type { RunResult } from './process.js';

/** Every verdict a (program, configuration) pair can get. The strings are stable: they are stored. */
export const OUTCOMES = [
  'ok',
  'wrong-code',
  'compiler-crash',
  'compiler-hang',
  'rejected-valid',
  'binary-crash',
  'binary-hang',
  'sanitizer-miss',
  'sanitizer-false-alarm',
  'internal',
  // The configuration's compiler does not accept the program's types (src/harness/capabilities.ts):
  // not compiled, never a finding.
  'skipped',
] as const;

/** A stored outcome (see ARCHITECTURE.md, "Campaigns"). */
export type Outcome = (typeof OUTCOMES)[number];

/** Outcomes that blame the compiler and make a finding. */
export const FINDING_OUTCOMES: ReadonlySet<Outcome> = new Set([
  'wrong-code',
  'compiler-crash',
  'compiler-hang',
  'rejected-valid',
  'binary-crash',
  'binary-hang',
  'sanitizer-miss',
  'sanitizer-false-alarm',
]);

/** Finding outcomes of the binary's run (the others are the compiler's): repro.sh runs the binary only for these. */
export const RUN_SIDE_OUTCOMES: ReadonlySet<string> = new Set(['wrong-code', 'binary-crash', 'binary-hang']);

/** What the oracle concluded about one configuration, with what a repro script needs to check it. */
export interface Judgement {
  readonly outcome: Outcome;
  /** Bucket key for failures (same bug → same key); undefined for `ok`. */
  readonly bucket?: string;
  /** One line for people: "internal compiler error: Segmentation fault", "SIGSEGV", "printed X". */
  readonly detail?: string;
  /** Text that occurs verbatim in the compiler's diagnostics (crash and rejection repro checks). */
  readonly match?: string;
  /**
   * A gcc or clang crash's signature as verbatim pieces of its report, in order (src/harness/signature.ts):
   * repro.sh counts the crash as this bug only when all of them show.
   */
  readonly signature?: readonly string[];
  /** The terminating signal, when the compiler or the binary was killed by one. */
  readonly signal?: NodeJS.Signals;
  /** The non-zero exit status of a crashed binary. */
  readonly exitStatus?: number;
}

/** Judges a compile: undefined when it produced an executable, a failure judgement otherwise. */
export function judgeCompile(r: RunResult, c: Configuration, exeExists: boolean): Judgement | undefined {
  const name = c.compiler.name;
  if (r.timedOut)
    return { outcome: 'compiler-hang', bucket: `compiler-hang:${name}`, detail: 'the compiler did not finish in time' };
  // gcc and clang crashes are keyed by their report, per family (one bug, one bucket across
  // versions and options); other compilers by their message, per compiler.
  const family = crashFamily(c.compiler);
  if (r.signal) {
    // A clang driver may die of the signal after printing the stack dump: the report still names the bug.
    const reported = family && looksLikeCrash(r.stderr) ? crashJudgement(r.stderr, c, family) : undefined;
    if (reported) return { ...reported, signal: r.signal };
    return {
      outcome: 'compiler-crash',
      bucket: `compiler-crash:${family ?? name}:${r.signal}`,
      detail: `the compiler was killed by ${r.signal}`,
      signal: r.signal,
    };
  }
  if (looksLikeCrash(r.stderr)) {
    const reported = family ? crashJudgement(r.stderr, c, family) : undefined;
    if (reported) return reported;
    const m = crashMessage(r.stderr);
    return {
      outcome: 'compiler-crash',
      bucket: `compiler-crash:${family ?? name}:${m.key}`,
      detail: m.raw,
      match: m.raw,
    };
  }
  if (r.status !== 0) {
    const conflict = c.swarm?.drawn?.length ? swarmConflict(r.stderr) : undefined;
    if (conflict) return { outcome: 'skipped', detail: `the drawn flags conflict: ${conflict}` };
    const m = errorMessage(r.stderr);
    return { outcome: 'rejected-valid', bucket: `rejected-valid:${name}:${m.key}`, detail: m.raw, match: m.raw };
  }
  if (!exeExists)
    return {
      outcome: 'rejected-valid',
      bucket: `rejected-valid:${name}:no executable`,
      detail: 'exit status 0 but no executable was written',
    };
  return undefined;
}

/**
 * The driver's refusal of two options together (`error: '-fipa-ra' is incompatible with
 * '-flive-patching=inline-clone'`, `clang: error: invalid argument '-fx' not allowed with '-fy'`):
 * about the command line, never the program, so a swarm test that meets it is skipped. The
 * catalogue excludes the flags known to do this (src/harness/swarm.ts); this catches the rest.
 */
function swarmConflict(stderr: string): string | undefined {
  const line = stderr
    .split('\n')
    .find((l) => /error: .*'-[^']+'.* (is incompatible with|not allowed with|cannot be used with) '-[^']+'/.test(l));
  return line?.replace(/^.*?error: /, '').trim();
}

/**
 * A gcc or clang crash judged by its signature; undefined when the report names nothing (the
 * message key is used) or when the compiler ran out of memory (one key for every blow-up).
 */
function crashJudgement(stderr: string, c: Configuration, family: string): Judgement | undefined {
  const m = crashMessage(stderr);
  if (m.key === 'out of memory') return undefined;
  const sig = crashSignature(stderr, c.compiler.family === 'gcc' ? 'gcc' : 'clang', family);
  if (!sig) return undefined;
  return {
    outcome: 'compiler-crash',
    bucket: `compiler-crash:${family}:${sig.key}`,
    detail: sig.detail,
    match: m.raw,
    signature: sig.needles,
  };
}

/** Judges a binary's run against the interpreter's expected line. */
export function judgeRun(r: RunResult, expected: string, c: Configuration): Judgement {
  const name = c.compiler.name;
  if (r.timedOut)
    return {
      outcome: 'binary-hang',
      bucket: `binary-hang:${name}:${c.optionsText}`,
      detail: 'the binary did not finish in time',
    };
  if (r.signal)
    return {
      outcome: 'binary-crash',
      bucket: `binary-crash:${name}:${r.signal}`,
      detail: `killed by ${r.signal}`,
      signal: r.signal,
    };
  if (r.status !== 0) {
    // A shell-script "binary" (or a runtime) may report a signal as 128+N.
    const sig = r.status !== null && r.status > 128 ? signalName(r.status - 128) : undefined;
    return {
      outcome: 'binary-crash',
      bucket: `binary-crash:${name}:${sig ?? `exit ${r.status}`}`,
      detail: `exit status ${r.status}`,
      exitStatus: r.status ?? undefined,
    };
  }
  const actual = outputLine(r.stdout);
  if (actual === expected) return { outcome: 'ok' };
  return {
    outcome: 'wrong-code',
    bucket: wrongCodeBucket(c),
    detail: `printed '${abbreviate(actual)}', expected '${expected}'`,
  };
}

/** The campaign-time wrong-code bucket; src/triage refines it later. */
function wrongCodeBucket(c: Configuration): string {
  return `wrong-code:${c.compiler.name}:${c.optionsText}`;
}

/** A binary's output as compared: trailing whitespace dropped. */
export function outputLine(stdout: string): string {
  return stdout.trimEnd();
}

/** One configuration's result as the program-level oracle sees it. */
export interface ObservedRun {
  readonly judgement: Judgement;
  /** The binary's output line, when it ran to a normal exit. */
  readonly output?: string;
}

/**
 * The program-level verdict: when at least two configurations ran normally, all print the same
 * line, and that line is not the interpreter's, the interpreter is the odd one out — a Kiln bug
 * (`internal`), never a compiler finding. Returns the line they agree on, or undefined.
 */
export function internalDisagreement(expected: string, runs: readonly ObservedRun[]): string | undefined {
  const outputs = runs
    .filter((r) => r.output !== undefined && (r.judgement.outcome === 'ok' || r.judgement.outcome === 'wrong-code'))
    .map((r) => r.output!);
  if (outputs.length < 2) return undefined;
  const first = outputs[0]!;
  if (first === expected || !outputs.every((o) => o === first)) return undefined;
  return first;
}

/** One failing behaviour of a configuration on a program: the judgement, and the line printed for wrong code. */
export interface Behaviour extends Judgement {
  readonly output?: string;
}

/**
 * Whether two failures behaved the same: the same outcome and bucket, and for wrong code the same
 * printed line. Two failures that differ make a nondeterministic finding (both are kept).
 */
export function sameBehaviour(a: Behaviour, b: Behaviour): boolean {
  return a.outcome === b.outcome && a.bucket === b.bucket && (a.outcome !== 'wrong-code' || a.output === b.output);
}

/**
 * Whether a result shows one of a finding's behaviours, as the reducer and triage ask it: the same
 * outcome, and for crashes, hangs and rejections the same bucket (a different crash is a different
 * bug); for wrong code any output other than the expected one.
 */
export function showsBehaviour(accepted: readonly Behaviour[], j: Judgement): boolean {
  // A binary hang's bucket names the options; the reducer and triage vary them (swarm draws,
  // minimised command lines), so like wrong code it is the same bug by its outcome alone.
  return accepted.some(
    (a) =>
      a.outcome === j.outcome && (j.outcome === 'wrong-code' || j.outcome === 'binary-hang' || a.bucket === j.bucket),
  );
}

function signalName(n: number): NodeJS.Signals | undefined {
  return (Object.entries(constants.signals) as [NodeJS.Signals, number][]).find(([, v]) => v === n)?.[0];
}

function abbreviate(s: string): string {
  const one = s.replace(/\n/g, '\\n');
  return one.length > 120 ? `${one.slice(0, 117)}...` : one;
}
