// The version line of a finding: its program (the reduced one when there is one), with its own
// option set, on every installed version of its compiler's family for the same target (GCC: gcc-11,
// gcc-12, gcc-14 … gcc-16, gcc-snapshot; LLVM: clang-13 … clang-22), oldest first. It answers a
// compiler engineer's first question, "does it still happen on trunk?":
//   live        the newest installed version fails, and no older one passes
//   regression  the newest fails, and an older version passes (named: the last one that passes)
//   fixed       the newest passes (named: the first version after the last failing one that passes)
//   untested    the family has one installed version (or the finding's own compiler is gone)
// A version that fails some other way (rejects an option it does not know, crashes elsewhere) is
// neither: it is listed as `other` and does not count.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { versionKey, type Compiler } from '../harness/compilers.js';
import { testConfiguration } from '../harness/execute.js';
import { rejectedOption } from '../harness/preflight.js';
import type { TempRoot } from '../harness/tempdir.js';
import { isFindingDir, readFinding, type StoredFinding } from './finding.js';
import { findingConfiguration, judgeProbe, TriageAborted, type Verdict } from './predicate.js';

/**
 * The file `kiln fuzz --reduce` writes a finding's version line into before reducing it (triage writes it into
 * triage.json).
 */
export const VERSIONS_FILE = 'versions.json';

/** Labels of a version line (see the top of this file). */
const VERSION_LABELS = ['live', 'regression', 'fixed', 'untested'] as const;
export type VersionLabel = (typeof VERSION_LABELS)[number];

/** One version tried. */
export interface VersionTry {
  /** Compiler name (`gcc-16`, `gcc-snapshot`, `clang-22`). */
  readonly compiler: string;
  /** First line of its `--version`. */
  readonly version: string;
  /** `fails`: the finding's failure shows; `passes`: the expected output; `other`: another failure. */
  readonly result: 'fails' | 'passes' | 'other';
  /** The outcome seen, for `other` (`rejected-valid`, `binary-crash`, …). */
  readonly detail?: string;
  /** Whether this is the finding's own compiler. */
  readonly own: boolean;
  /** Options of the finding this version does not have, dropped for its try (a swarm flag newer than it). */
  readonly dropped?: readonly string[];
}

/** A finding's version line. */
export interface VersionLine {
  readonly label: VersionLabel;
  /** Every version tried, oldest first. */
  readonly tried: readonly VersionTry[];
  /** `fixed`: the first version that passes after the last failing one. */
  readonly firstFixed?: string;
  /**
   * `regression` (and a `fixed` finding that once passed): the last version that passes before the first failing one.
   */
  readonly lastPassing?: string;
  /** The program tried: `reduced` when the finding has a reduced program, else `original`. */
  readonly program: 'reduced' | 'original';
  /** One line for people. */
  readonly summary: string;
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The installed versions of `own`'s family for its target, oldest first, `own` included. Two
 * compilers of one major version keep the one that is `own`, else the first found.
 */
export function familyLine(own: Compiler, installed: readonly Compiler[]): Compiler[] {
  const same = installed.filter(
    (c) => c.family === own.family && (c.target ?? '') === (own.target ?? '') && c.realPath !== own.realPath,
  );
  const byMajor = new Map<string, Compiler>();
  const majorOf = (c: Compiler): string => {
    const k = versionKey(c);
    return `${k[0]}${k[3] ? '-snapshot' : ''}`;
  };
  byMajor.set(majorOf(own), own);
  for (const c of same) if (!byMajor.has(majorOf(c))) byMajor.set(majorOf(c), c);
  return [...byMajor.values()].sort((a, b) => compareKeys(versionKey(a), versionKey(b)));
}

/** What a version line needs besides the finding. */
export interface VersionLineContext {
  readonly temp: TempRoot;
  readonly signal?: AbortSignal;
  readonly onProgress?: (line: string) => void;
}

/** The finding whose program the version line runs: the reduced one (`DIR/reduced/`) when there is one. */
function versionLineFinding(f: StoredFinding): { finding: StoredFinding; program: 'reduced' | 'original' } {
  const reduced = join(f.dir, 'reduced');
  if (existsSync(reduced) && isFindingDir(reduced)) {
    try {
      return { finding: readFinding(reduced), program: 'reduced' };
    } catch {
      // a damaged reduced folder: the original program still answers
    }
  }
  return { finding: f, program: 'original' };
}

/** Runs the finding on every version of its family and labels it. */
export async function versionLine(
  f: StoredFinding,
  own: Compiler,
  installed: readonly Compiler[],
  ctx: VersionLineContext,
): Promise<VersionLine> {
  const { finding, program } = versionLineFinding(f);
  const line = familyLine(own, installed);
  const tried: VersionTry[] = [];
  for (const c of line) {
    if (ctx.signal?.aborted) throw new TriageAborted();
    // A flag this version lacks (it refuses it) is dropped, and the try says so; at most 8.
    let options = [...finding.options];
    const dropped: string[] = [];
    let r;
    for (;;) {
      const config = findingConfiguration({ ...finding, options }, c);
      // A crash or hang shows in the compile: the binary of a version that compiles it is not run
      // (a reduced crash case need not be free of undefined behaviour).
      const compileSide = finding.outcome === 'compiler-crash' || finding.outcome === 'compiler-hang';
      r = await testConfiguration(
        finding.sources,
        finding.expected,
        config,
        finding.limits,
        ctx.temp,
        ctx.signal,
        compileSide,
      );
      if (r.aborted) throw new TriageAborted();
      const refused = r.judgement.outcome === 'rejected-valid' ? rejectedOption(config, r.compile.stderr) : undefined;
      if (refused === undefined || dropped.length >= 8 || /^-O/.test(refused)) break;
      const next = withoutOption(options, refused);
      if (next.length === options.length) break;
      dropped.push(options.length - next.length === 2 ? `-mllvm ${refused}` : refused);
      options = next;
    }
    const v: Verdict = judgeProbe(finding, r);
    const result = v === 'shows' ? 'fails' : v === 'hidden' ? 'passes' : 'other';
    tried.push({
      compiler: c.name,
      version: c.version,
      result,
      ...(result === 'other' ? { detail: r.judgement.outcome } : {}),
      own: c === own,
      ...(dropped.length ? { dropped } : {}),
    });
    const note = dropped.length ? ` (without ${dropped.join(' ')}, which it lacks)` : '';
    ctx.onProgress?.(`${f.id}: ${c.name} → ${result}${result === 'other' ? ` (${r.judgement.outcome})` : ''}${note}`);
  }
  return { ...labelLine(tried), tried, program };
}

/** The options without one token (and the `-mllvm` before it, when it is an LLVM option). */
function withoutOption(options: readonly string[], token: string): string[] {
  const i = options.lastIndexOf(token);
  if (i < 0) return [...options];
  const from = i > 0 && options[i - 1] === '-mllvm' ? i - 1 : i;
  return [...options.slice(0, from), ...options.slice(i + 1)];
}

/** The label of a list of tries, oldest first (exported for tests). */
export function labelLine(tried: readonly VersionTry[]): {
  label: VersionLabel;
  firstFixed?: string;
  lastPassing?: string;
  summary: string;
} {
  const counted = tried.filter((t) => t.result !== 'other');
  const own = tried.find((t) => t.own);
  if (own && own.result !== 'fails')
    return {
      label: 'untested',
      summary:
        `did not reproduce on its own compiler ${own.compiler} ` +
        `(${own.result === 'passes' ? 'it passed' : (own.detail ?? 'another failure')})`,
    };
  // Only the finding's own result counts, and a newer version gave none: nothing to compare.
  const onlyOwn = counted.length === 1 && counted[0]!.own && tried[tried.length - 1] !== counted[0];
  if (tried.length < 2 || counted.length === 0 || onlyOwn) {
    return {
      label: 'untested',
      summary:
        tried.length < 2
          ? 'one installed version of this compiler: nothing to compare'
          : 'no other version gave a comparable result',
    };
  }
  const newest = counted[counted.length - 1]!;
  const firstFail = counted.findIndex((t) => t.result === 'fails');
  const lastFail = counted.map((t) => t.result).lastIndexOf('fails');
  const passedBefore =
    firstFail > 0
      ? counted
          .slice(0, firstFail)
          .filter((t) => t.result === 'passes')
          .pop()
      : undefined;
  if (newest.result === 'passes') {
    const firstFixed = lastFail >= 0 ? counted.slice(lastFail + 1).find((t) => t.result === 'passes') : newest;
    return {
      label: 'fixed',
      ...(firstFixed ? { firstFixed: firstFixed.compiler } : {}),
      ...(passedBefore ? { lastPassing: passedBefore.compiler } : {}),
      summary:
        lastFail >= 0 && firstFixed
          ? `fixed: fails up to ${counted[lastFail]!.compiler}, passes ` +
            `from ${firstFixed.compiler}` +
            `${passedBefore ? ` (and passed on ${passedBefore.compiler}, before it broke)` : ''}`
          : `passes on ${newest.compiler}, the newest installed version`,
    };
  }
  // A version between the first failure and the newest that passes (gcc-16 at -O2, where its
  // optimiser happens not to reach the bug) is named: the line is not one unbroken run.
  const gaps = counted
    .slice(firstFail + 1)
    .filter((t) => t.result === 'passes')
    .map((t) => t.compiler);
  const except = gaps.length ? ` except ${gaps.join(', ')}, which pass${gaps.length === 1 ? 'es' : ''}` : '';
  const older = ', and on every older one that gave a result';
  if (passedBefore)
    return {
      label: 'regression',
      lastPassing: passedBefore.compiler,
      summary:
        `regression: passes on ${passedBefore.compiler}, fails from ${counted[firstFail]!.compiler} ` +
        `to ${newest.compiler} (the newest installed)${except}`,
    };
  return {
    label: 'live',
    summary:
      `live: fails on ${newest.compiler}, the newest installed ` +
      `version${counted.length > 1 ? (gaps.length ? `, and on the older ones${except}` : older) : ''}`,
  };
}

/** The heading of the version line's section in report.md. */
const SECTION = '## Versions tried';

/** The version line as a section of report.md: the label, then every version tried with its result. */
export function versionSection(v: VersionLine): string {
  const rows = v.tried.map(
    (t) =>
      `| ${t.compiler}${t.own ? ' (found with)' : ''} | \`${t.version}\` ` +
      `| ${t.result === 'other' ? `other: ${t.detail ?? 'another failure'}` : t.result}` +
      `${t.dropped?.length ? ` (without ${t.dropped.map((d) => `\`${d}\``).join(', ')}, which it lacks)` : ''} |`,
  );
  return [
    SECTION,
    '',
    `**${v.label}**: ${v.summary}. The ${v.program === 'reduced' ? 'reduced' : 'original'} program, with ` +
      `the same options, on every installed version (oldest first):`,
    '',
    '| compiler | version | result |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** A report.md with its version section put in (replacing an earlier one), before its Notes. */
export function withVersionSection(report: string, v: VersionLine): string {
  const section = versionSection(v);
  const start = report.indexOf(`\n${SECTION}\n`);
  if (start >= 0) {
    const next = report.indexOf('\n## ', start + 1 + SECTION.length);
    return report.slice(0, start + 1) + section + (next >= 0 ? report.slice(next) : '\n');
  }
  const notes = report.indexOf('\n## Notes\n');
  return notes >= 0
    ? `${report.slice(0, notes + 1)}${section}\n${report.slice(notes + 1)}`
    : `${report.trimEnd()}\n\n${section}`;
}
