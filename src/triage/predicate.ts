// "Does the bug still show with these extra options?" — the one question every fingerprint
// search asks. It compiles and runs the finding's program exactly as the campaign did (same
// compiler, options, limits, oracle), with extra options appended.
import type { Compiler } from '../harness/compilers.js';
import { testConfiguration, type ConfigResult } from '../harness/execute.js';
import { optionKey, slugify, splitCpuToken, type Configuration } from '../harness/matrix.js';
import type { TempRoot } from '../harness/tempdir.js';
import { profileToken, splitProfileToken } from '../harness/profile.js';
import type { StoredFinding } from './finding.js';

/**
 * What one probe showed: `shows` — the finding's failure (for wrong code: an output other than
 * the expected one); `hidden` — the program compiled, ran and printed the expected line;
 * `other` — some other failure (the extra options broke the compile, the binary crashed or hung),
 * which says nothing about the bug and counts as "not hidden".
 */
export type Verdict = 'shows' | 'hidden' | 'other';

/** One probe's verdict, with the harness result it came from. */
export interface Probe {
  readonly extra: readonly string[];
  readonly verdict: Verdict;
  readonly result: ConfigResult;
}

/** The predicate: runs the finding with extra options appended to its own. */
export type BugPredicate = (extra: readonly string[]) => Promise<Probe>;

/** What a predicate needs besides the finding. */
export interface PredicateContext {
  /** The compiler to run (resolved from the finding's compilerPath; its name must be the finding's). */
  readonly compiler: Compiler;
  readonly temp: TempRoot;
  readonly signal?: AbortSignal;
  /** Called after every probe (for step counting and progress). */
  readonly onProbe?: (p: Probe) => void;
}

/** Thrown when the caller's signal aborted a probe: the search stops and nothing is concluded. */
export class TriageAborted extends Error {
  constructor() {
    super('triage aborted');
    this.name = 'TriageAborted';
  }
}

/** The configuration of a finding with extra options appended. */
export function findingConfiguration(
  f: StoredFinding,
  compiler: Compiler,
  extra: readonly string[] = [],
): Configuration {
  // A profile configuration's pseudo-option (+profile) stays a profile, not a compiler option:
  // each probe builds its profile with the extra options too (src/harness/profile.ts).
  // A cross configuration's qemu CPU (+cpu=NAME) stays the CPU its binaries run under.
  const { tokens, cpu } = splitCpuToken(f.options);
  const { options: own, profile } = splitProfileToken(tokens);
  const options = [...own, ...extra];
  const optionsText = [...options, ...(profile ? [profileToken(profile)] : []), ...(cpu ? [`+cpu=${cpu}`] : [])].join(
    ' ',
  );
  return {
    compiler: { ...compiler, name: f.compilerName },
    options,
    optionsText,
    key:
      `${compiler.realPath}\0${optionKey(options)}${profile ? `\0profile=${profile}` : ''}` +
      (cpu ? `\0cpu=${cpu}` : ''),
    slug: slugify(`${f.compilerName} ${optionsText}`),
    ...(profile ? { profile } : {}),
    ...(cpu ? { qemuCpu: cpu } : {}),
  };
}

/**
 * Judges one harness result against the finding's failure (the campaign's oracle decided the
 * outcome); a nondeterministic finding shows when any of its behaviours does.
 */
export function judgeProbe(f: StoredFinding, r: ConfigResult): Verdict {
  const j = r.judgement;
  if (j.outcome === 'ok') return 'hidden';
  const behaviours = f.behaviours.length > 0 ? f.behaviours : [{ outcome: f.outcome, bucket: f.bucket }];
  return behaviours.some((b) => showsSame(b.outcome, b.bucket, j.outcome, j.bucket)) ? 'shows' : 'other';
}

function showsSame(outcome: string, bucket: string | undefined, got: string, gotBucket: string | undefined): boolean {
  switch (outcome) {
    case 'wrong-code':
    case 'binary-crash':
    case 'binary-hang':
    case 'compiler-hang':
      return got === outcome;
    case 'compiler-crash':
    case 'rejected-valid':
      // A different crash is a different bug.
      return got === outcome && gotBucket === bucket;
    default:
      return false;
  }
}

/** Builds the predicate of a finding: each call is one compile (and run) in fresh folders. */
export function bugPredicate(f: StoredFinding, ctx: PredicateContext): BugPredicate {
  return async (extra) => {
    if (ctx.signal?.aborted) throw new TriageAborted();
    const result = await testConfiguration(
      f.sources,
      f.expected,
      findingConfiguration(f, ctx.compiler, extra),
      f.limits,
      ctx.temp,
      ctx.signal,
    );
    if (result.aborted) throw new TriageAborted();
    const probe: Probe = { extra, verdict: judgeProbe(f, result), result };
    ctx.onProbe?.(probe);
    return probe;
  };
}
