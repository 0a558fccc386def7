// Wrong-code fingerprints for clang: LLVM numbers every pass execution it may skip, and
// `-mllvm -opt-bisect-limit=N` runs only the first N. The smallest N at which the bug shows names
// the pass execution that introduces it (pass N), printed on stderr as
//   BISECT: running pass (N) InstCombinePass on func_3               (new pass manager, clang ≥ 13)
//   BISECT: running pass (N) Machine Common Subexpression Elimination on function (func_3)   (codegen)
//   BISECT: running pass (N) LICMPass on Loop at depth 1 containing: %7<header>…
//   BISECT: running pass (N) InlinerPass on (func_3)                  (call-graph SCC)
// Passes that must always run print no number (clang 15: `running pass  RecomputeGlobalsAAPass`).
// Each translation unit numbers its passes from 1.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileCommand } from '../harness/execute.js';
import { runProcess, SpawnError } from '../harness/process.js';
import type { BugPredicate, PredicateContext } from './predicate.js';
import { findingConfiguration } from './predicate.js';
import type { StoredFinding } from './finding.js';
import type { SearchOutcome } from './search.js';

/** One numbered line of LLVM's opt-bisect output. */
export interface BisectLine {
  readonly number: number;
  /** The pass, without what it ran on (`InstCombinePass`, `X86 LEA Fixup`). */
  readonly pass: string;
  /** What it ran on: `[module]`, a function name, `function (f)`, a loop, an SCC. */
  readonly target: string;
  readonly running: boolean;
}

const BISECT_LINE = /^BISECT: (NOT )?running pass \((\d+)\) (.+)$/;
/** Targets LLVM prints after the last " on ": module, function, loop, call-graph SCC. */
const TARGET = /^(?:\[module\]|module|function \(.*\)|Loop at depth .*|loop|\(.*\)|[^\s]+)$/;

/** Parses one stderr line of opt-bisect output; undefined for any other line (including unnumbered passes). */
export function parseBisectLine(line: string): BisectLine | undefined {
  const m = BISECT_LINE.exec(line.trim());
  if (!m) return undefined;
  const rest = m[3]!;
  // The pass name may itself contain " on " ("… Reduction on loop"): take the first split whose
  // remainder looks like a target.
  let at = rest.indexOf(' on ');
  while (at >= 0) {
    const target = rest.slice(at + 4);
    if (TARGET.test(target)) return { number: Number(m[2]), pass: rest.slice(0, at).trim(), target, running: !m[1] };
    at = rest.indexOf(' on ', at + 1);
  }
  return { number: Number(m[2]), pass: rest.trim(), target: '', running: !m[1] };
}

/** Every numbered pass of a compile's stderr: number → the lines with that number (one per translation unit). */
export function parseBisectOutput(stderr: string): Map<number, BisectLine[]> {
  const out = new Map<number, BisectLine[]>();
  for (const line of stderr.split('\n')) {
    const b = parseBisectLine(line);
    if (b) out.set(b.number, [...(out.get(b.number) ?? []), b]);
  }
  return out;
}

/** The extra options that limit LLVM to its first N skippable passes (-1: no limit). */
function optBisectOptions(limit: number): string[] {
  return ['-mllvm', `-opt-bisect-limit=${limit}`];
}

/** Stderr of a compile holding more than this may have been cut by the harness: list the passes separately. */
const HARNESS_STDERR_SAFE = 200_000;

/**
 * Binary search for the smallest opt-bisect limit at which the bug shows. The bug must show with
 * no limit and hide at limit 0; otherwise no pass is to blame (a front-end or mandatory-pass bug).
 */
export async function clangOptBisect(
  f: StoredFinding,
  test: BugPredicate,
  ctx: PredicateContext,
): Promise<SearchOutcome> {
  const full = await test(optBisectOptions(-1));
  if (full.verdict !== 'shows')
    return {
      kind: 'not-reproduced',
      detail: `with -opt-bisect-limit=-1 the bug did not show (${full.result.judgement.outcome})`,
    };
  let passes =
    full.result.compile.stderr.length < HARNESS_STDERR_SAFE ? parseBisectOutput(full.result.compile.stderr) : undefined;
  if (!passes || passes.size === 0) passes = await listPasses(f, ctx);
  if (passes.size === 0)
    return {
      kind: 'no-culprit',
      detail: 'the compiler printed no opt-bisect lines (not an LLVM compiler, or no skippable passes)',
    };
  const none = await test(optBisectOptions(0));
  if (none.verdict !== 'hidden') {
    return {
      kind: 'no-culprit',
      detail:
        `the bug shows even with every skippable LLVM pass disabled ` +
        `(-opt-bisect-limit=0: ${none.result.judgement.outcome}): not caused by an optional pass`,
    };
  }
  // Invariant: hidden at lo, not hidden at hi (a failure other than the bug counts as not hidden).
  let lo = 0;
  let hi = Math.max(...passes.keys());
  let others = 0;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const p = await test(optBisectOptions(mid));
    if (p.verdict === 'hidden') lo = mid;
    else {
      if (p.verdict === 'other') others++;
      hi = mid;
    }
  }
  const lines = passes.get(hi) ?? [];
  if (lines.length === 0)
    return {
      kind: 'no-culprit',
      detail: `the bug first shows at -opt-bisect-limit=${hi}, but the compiler printed no pass with that number`,
    };
  const names = [...new Set(lines.map((l) => l.pass))];
  const where = lines.map((l) => l.target).filter((t) => t.length > 0);
  return {
    kind: 'culprit',
    name: names.join('+'),
    detail:
      `pass (${hi}) ${names.join(' / ')}${where.length ? ` on ${where.join(', ')}` : ''}: ` +
      `-opt-bisect-limit=${hi - 1} hides the bug, ${hi} shows it` +
      (others ? ` (${others} probe${others > 1 ? 's' : ''} failed otherwise and counted as showing)` : ''),
    culpritOptions: optBisectOptions(hi),
  };
}

/** Compiles the finding once with no limit, keeping all of stderr, to number its passes. */
async function listPasses(f: StoredFinding, ctx: PredicateContext): Promise<Map<number, BisectLine[]>> {
  const dir = await ctx.temp.dir('bisect');
  try {
    for (const s of f.sources) await writeFile(join(dir, s.name), s.content);
    const config = findingConfiguration(f, ctx.compiler, optBisectOptions(-1));
    const argv = compileCommand(
      config,
      f.sources.map((s) => s.name),
    );
    const r = await runProcess(argv[0]!, argv.slice(1), {
      cwd: dir,
      timeoutMs: f.limits.compile.timeoutMs,
      env: { LC_ALL: 'C', LANG: 'C', TMPDIR: dir },
      maxOutputBytes: 64 << 20,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    }).catch((e: unknown) => {
      if (e instanceof SpawnError) return undefined;
      throw e;
    });
    return r ? parseBisectOutput(r.stderr) : new Map();
  } finally {
    await ctx.temp.remove(dir);
  }
}
