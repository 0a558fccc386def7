import type { FinalResult, HangConfirmation, ProgramReport } from './runner.js';
import { compileCommand, testOptionsText, type ConfigResult } from './execute.js';
import type { Policy } from '../gen/policy.js';
import { emiRecipe } from '../mutate/recipes.js';
import { configTarget, type Limits } from './matrix.js';
import { FINDING_OUTCOMES, type Behaviour } from './oracle.js';
import { reproScript } from './repro.js';

/** Characters of compiler or binary stderr kept with a finding. */
const STDERR_EXCERPT = 4000;
/**
 * Characters of a compiler's crash report kept whole (from its first line to the end of stderr):
 * a clang stack dump with its `Running pass` pipelines is 10-15 KB, and a report cut in the middle
 * loses the frames that name the bug.
 */
const CRASH_REPORT_MAX = 64 << 10;

/** A file to write into a finding folder. */
interface DraftFile {
  readonly name: string;
  readonly content: string;
  readonly mode?: number;
}

/** A finding ready to be stored: its row and the files of its folder. */
interface FindingDraft {
  readonly id: string;
  readonly outcome: string;
  readonly bucket: string;
  readonly compiler: string;
  readonly compilerVersion: string;
  readonly options: string;
  readonly command: readonly string[];
  readonly expected: string;
  readonly actual: string;
  readonly stderr: string;
  /** `suspected` for a hang seen only under the short limit (its check may follow); undefined otherwise. */
  readonly hangStatus?: HangStatus;
  /** True when the failure behaved differently on its two tests. */
  readonly nondeterministic: boolean;
  /** Every failing behaviour seen (one, or several for a nondeterministic finding). */
  readonly behaviours: readonly Behaviour[];
  readonly files: readonly DraftFile[];
  /** The note of the known bug it matches (set by the campaign, src/triage/known.ts). */
  readonly known?: string;
  /** A newer compiler of its family that compiled the same program without the bug. */
  readonly knownFixed?: string;
}

/**
 * Where a hang finding stands: seen under the short limit only, hung again under the long one, or finished within it.
 */
export type HangStatus = 'suspected' | 'confirmed' | 'cleared';

/** A program on which all configurations agreed against the interpreter, ready to be stored. */
interface InternalDraft {
  readonly id: string;
  readonly expected: string;
  readonly actual: string;
  readonly files: readonly DraftFile[];
}

/** One stored (program, configuration) outcome. */
interface TestDraft {
  readonly compiler: string;
  readonly compilerVersion: string;
  readonly options: string;
  readonly outcome: string;
  readonly durationMs: number;
  readonly bucket?: string;
  readonly flaky: boolean;
  readonly findingId?: string;
}

/** Everything a finished program adds to the store (the shape `KilnStore.recordProgram` takes). */
export interface ProgramDraft {
  readonly seed: bigint;
  readonly status: 'tested' | 'discarded' | 'error';
  readonly genMs: number;
  readonly reason?: string;
  readonly tests: readonly TestDraft[];
  readonly findings: readonly FindingDraft[];
  readonly internal?: InternalDraft;
}

/** Context of the campaign a program belongs to. */
export interface DraftContext {
  readonly campaignId: number;
  readonly limits: Limits;
  /** The generation policy: with the seed, it regenerates the program's IR (for the IR reducer). */
  readonly policy: Policy;
  /** `kiln fuzz --emi K`: seeds are EMI variants, and each finding records its recipe. */
  readonly emi?: number;
}

/** Turns a finished program into rows and folders: one finding per failing configuration. */
export function draftProgram(r: ProgramReport, ctx: DraftContext): ProgramDraft {
  const findings: FindingDraft[] = [];
  const tests: TestDraft[] = [];
  for (const f of r.results) {
    const finding = FINDING_OUTCOMES.has(f.outcome) ? draftFinding(r, f, ctx) : undefined;
    if (finding) findings.push(finding);
    tests.push({
      compiler: f.config.compiler.name,
      compilerVersion: f.config.compiler.version,
      options: f.config.optionsText,
      outcome: f.outcome,
      durationMs: f.result.durationMs + (f.rerun?.durationMs ?? 0),
      ...(f.outcome !== 'ok' && f.outcome !== 'internal' && f.result.judgement.bucket
        ? { bucket: f.result.judgement.bucket }
        : {}),
      ...(f.outcome === 'internal' ? { bucket: 'internal' } : {}),
      flaky: f.flaky,
      ...(finding ? { findingId: finding.id } : {}),
    });
  }
  return {
    seed: r.seed,
    status: r.status,
    genMs: r.genMs,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    tests,
    findings,
    ...(r.internal ? { internal: draftInternal(r, r.internal.agreed, ctx) } : {}),
  };
}

/** What the background check of a suspected hang changes: the finding's id, status, and facts for finding.json. */
export function hangCheckUpdate(
  campaignId: number,
  c: HangConfirmation,
  limits: Limits,
): { id: string; status: HangStatus; facts: Record<string, unknown> } {
  const step = c.result.judgement.outcome === 'compiler-hang' || c.result.run === undefined ? 'compile' : 'run';
  const limitMs = step === 'compile' ? limits.compile.timeoutMs : limits.run.timeoutMs;
  const took = step === 'compile' ? c.result.compile.durationMs : c.result.run!.durationMs;
  return {
    id: findingId(campaignId, c.seed, c),
    status: c.verdict,
    facts: {
      hangCheck: {
        verdict: c.verdict,
        limitMs,
        outcome: c.result.judgement.outcome,
        detail: c.result.judgement.detail ?? null,
        durationMs: Math.round(took),
        note:
          c.verdict === 'confirmed'
            ? `it hung again under the configured limit of ${limitMs / 1000} s`
            : `it finished within the configured limit (${c.result.judgement.outcome}): slow, not a hang`,
      },
    },
  };
}

/** The id of a finding: campaign, seed and configuration (`3-1042-clang-15-O2`). */
function findingId(campaignId: number, seed: bigint, f: Pick<FinalResult, 'config'>): string {
  return `${campaignId}-${seed}-${f.config.slug}`;
}

function draftFinding(r: ProgramReport, f: FinalResult, ctx: DraftContext): FindingDraft {
  const id = findingId(ctx.campaignId, r.seed, f);
  const j = f.result.judgement;
  // A campaign over several targets: the program of this configuration's target.
  const expected = f.program?.expected ?? r.expected!;
  const actual = actualText(f.result);
  const stderr = excerpt(
    f.result.run && isRunOutcome(f.outcome) ? f.result.run.stderr : f.result.compile.stderr,
    f.outcome === 'compiler-crash',
  );
  const sources = f.program?.files ?? r.files!;
  const names = sources.map((s) => s.name);
  // The configuration the test ran: a swarm test's drawn flags are part of its command.
  const ran = f.result.config;
  const command = compileCommand(ran, names);
  const others = r.results
    .filter((o) => o !== f)
    .map((o) => ({
      compiler: o.config.compiler.name,
      options: o.config.optionsText,
      outcome: o.outcome,
      ...(o.result.output !== undefined ? { output: o.result.output } : {}),
    }));
  const json = {
    id,
    outcome: f.outcome,
    bucket: j.bucket,
    compiler: f.config.compiler.name,
    compilerVersion: f.config.compiler.version,
    compilerPath: f.config.compiler.command,
    options: testOptionsText(ran),
    // A swarm test: its option set, and the flags it drew (triage minimises them first).
    ...(ran.swarm?.drawn ? { swarm: { set: f.config.optionsText, drawn: ran.swarm.drawn } } : {}),
    ...(ran.compileOnly ? { compileOnly: ran.compileOnly } : {}),
    command: command.join(' '),
    seed: String(r.seed),
    mode: f.program?.mode ?? r.mode ?? 'csmith',
    target: configTarget(ran).name,
    files: names,
    campaign: ctx.campaignId,
    policyName: ctx.policy.name,
    expected,
    actual,
    detail: j.detail ?? null,
    stderr,
    compile: {
      status: f.result.compile.status,
      signal: f.result.compile.signal,
      timedOut: f.result.compile.timedOut,
      durationMs: f.result.compile.durationMs,
    },
    run: f.result.run
      ? {
          status: f.result.run.status,
          signal: f.result.run.signal,
          timedOut: f.result.run.timedOut,
          durationMs: f.result.run.durationMs,
        }
      : null,
    limits: ctx.limits,
    // A profile configuration: which build failed, and where its perturbed profile is stored.
    ...(f.config.profile
      ? {
          profile: {
            kind: f.config.profile,
            stage: f.result.profile?.stage ?? 'use',
            files: (f.result.profile?.files ?? []).map((p) => p.name),
          },
        }
      : {}),
    reproduced: f.rerun !== undefined,
    hangStatus: f.hang ?? null,
    nondeterministic: f.nondeterministic ?? false,
    behaviours: (f.behaviours ?? []).map(publicBehaviour),
    others,
    // The policy regenerates the program: with the target model it was generated for.
    policy: f.program ? { ...ctx.policy, target: f.program.target } : ctx.policy,
    // `--ub-share`: the program is the seed's program relaxed as CsmithEdge does; with `ub` it has
    // undefined behaviour and only a compiler crash or hang counted.
    ...(r.relaxed ? { relaxed: r.relaxed } : {}),
    ...(ctx.emi ? { emi: emiRecipe(r.seed, ctx.emi) } : {}),
    ...(f.facts ?? {}),
  };
  return {
    id,
    outcome: f.outcome,
    bucket: j.bucket!,
    compiler: f.config.compiler.name,
    compilerVersion: f.config.compiler.version,
    options: f.config.optionsText,
    command,
    expected,
    actual,
    stderr,
    ...(f.hang ? { hangStatus: f.hang } : {}),
    nondeterministic: f.nondeterministic ?? false,
    behaviours: f.behaviours ?? [j],
    files: [
      ...sources,
      ...(f.result.profile?.files ?? []),
      { name: 'finding.json', content: `${JSON.stringify(json, null, 2)}\n` },
      {
        name: 'repro.sh',
        content:
          f.repro ??
          reproScript({
            id,
            config: ran,
            judgement: j,
            ...(f.nondeterministic ? { alternatives: f.behaviours!.slice(1) } : {}),
            expected,
            limits: ctx.limits,
            files: names,
            ...(f.result.profile ? { profile: f.result.profile } : {}),
          }),
        mode: 0o755,
      },
    ],
  };
}

function draftInternal(r: ProgramReport, agreed: string, ctx: DraftContext): InternalDraft {
  const id = `${ctx.campaignId}-${r.seed}`;
  const json = {
    id,
    seed: String(r.seed),
    mode: r.mode ?? 'csmith',
    campaign: ctx.campaignId,
    policyName: ctx.policy.name,
    expected: r.expected,
    agreed,
    note:
      'every configuration that ran printed the same line and the interpreter expected another: a Kiln bug ' +
      '(interpreter, repair or emitter), not a compiler bug',
    configurations: r.results.map((o) => ({
      compiler: o.config.compiler.name,
      compilerVersion: o.config.compiler.version,
      options: o.config.optionsText,
      outcome: o.outcome,
      output: o.result.output ?? null,
    })),
    policy: ctx.policy,
  };
  return {
    id,
    expected: r.expected!,
    actual: agreed,
    files: [...r.files!, { name: 'internal.json', content: `${JSON.stringify(json, null, 2)}\n` }],
  };
}

/** A behaviour as finding.json records it (what the reducer and triage read back). */
function publicBehaviour(b: Behaviour): Record<string, unknown> {
  return {
    outcome: b.outcome,
    bucket: b.bucket ?? null,
    detail: b.detail ?? null,
    ...(b.match !== undefined ? { match: b.match } : {}),
    ...(b.signature !== undefined ? { signature: b.signature } : {}),
    ...(b.signal ? { signal: b.signal } : {}),
    ...(b.exitStatus !== undefined ? { exitStatus: b.exitStatus } : {}),
    ...(b.output !== undefined ? { output: b.output } : {}),
  };
}

function isRunOutcome(o: string): boolean {
  return (
    o === 'wrong-code' ||
    o === 'binary-crash' ||
    o === 'binary-hang' ||
    o === 'sanitizer-miss' ||
    o === 'sanitizer-false-alarm'
  );
}

/** What the configuration did instead of printing the expected line. */
function actualText(r: ConfigResult): string {
  const j = r.judgement;
  switch (j.outcome) {
    case 'wrong-code':
      return r.output ?? '';
    case 'binary-hang':
    case 'compiler-hang':
      return (
        `timeout after ` +
        `${Math.round((j.outcome === 'binary-hang' ? r.run!.durationMs : r.compile.durationMs) / 100) / 10} s`
      );
    case 'binary-crash':
      return j.signal ?? `exit ${j.exitStatus}`;
    default:
      return j.detail ?? j.outcome;
  }
}

/**
 * The stderr a finding keeps: all of it when short; else the head and the tail (a compiler's
 * decisive line often comes last), or for a crash the head and the whole crash report.
 */
export function excerpt(s: string, crash = false): string {
  if (s.length <= STDERR_EXCERPT) return s;
  const report = crash ? crashReportStart(s) : -1;
  if (report >= 0 && s.length - report <= CRASH_REPORT_MAX) {
    const head = Math.min(report, STDERR_EXCERPT / 4);
    return report === 0
      ? s
      : `${s.slice(0, head)}${head < report ? `\n[... ${report - head} more characters ...]\n` : ''}${s.slice(report)}`;
  }
  const tail = STDERR_EXCERPT / 4;
  const cut = `\n[... ${s.length - STDERR_EXCERPT} more characters ...]\n`;
  return `${s.slice(0, STDERR_EXCERPT - tail)}${cut}${s.slice(-tail)}`;
}

/** Text that opens a compiler's crash report: GCC's pass and ICE lines, LLVM's assertion, error and stack dump. */
const REPORT_MARKS = ['internal compiler error', 'Assertion `', 'LLVM ERROR:', 'UNREACHABLE executed'];

/**
 * Where the crash report starts (the start of its first line), or -1. Looks at the last
 * CRASH_REPORT_MAX characters only, line by line with plain substring tests (linear in the text).
 */
function crashReportStart(s: string): number {
  const from = Math.max(0, s.length - CRASH_REPORT_MAX);
  let at = from === 0 ? 0 : s.indexOf('\n', from) + 1;
  if (from > 0 && at === 0) return -1;
  while (at < s.length) {
    const end = s.indexOf('\n', at);
    const line = s.slice(at, end < 0 ? s.length : end);
    if (
      /^(?:during [A-Z]+ pass:|PLEASE submit a bug report|Stack dump:)/.test(line) ||
      REPORT_MARKS.some((m) => line.includes(m))
    )
      return at;
    if (end < 0) break;
    at = end + 1;
  }
  return -1;
}
