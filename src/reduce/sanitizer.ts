// Reducing the findings of `kiln fuzz --sanitizers` with the IR reducer. A false alarm's program is
// UB-free, so it reduces like any finding: a candidate is interesting when the sanitized build
// still reports the same tool and kind. A miss's program has one UB on purpose, which the IR
// reducer (every candidate must run UB-free in the interpreter) cannot hold: the reducer works on a
// twin where the injected statement is an empty block of the same id, and each candidate is
// restored (the statement and its globals put back) and must then (1) still reach the marker,
// (2) hit the injected UB first in the interpreter, at the same node, of the same kind, (3) still
// be missed by the sanitized build and (4) still pass the survival check of the finding.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { errState, KilnError } from '../diag/errors.js';
import { emitC } from '../emit/c.js';
import { MAIN_SOURCE, type EmittedFile } from '../emit/files.js';
import type { Policy } from '../gen/policy.js';
import { resolveCompiler } from '../harness/compilers.js';
import { buildMatrix, type Configuration, type Limits } from '../harness/matrix.js';
import { TempRoot } from '../harness/tempdir.js';
import type { Program } from '../ir/nodes.js';
import { replaceNode, walkProgram } from '../ir/visit.js';
import { interpret } from '../interp/interpret.js';
import { generateProgram } from '../repair/generate.js';
import { siteLocation, type Injection } from '../edge/inject.js';
import { asConfigResult, reportsSite, survival } from '../edge/sanjudge.js';
import { sanitizerRepro } from '../edge/sancampaign.js';
import {
  keepsLine,
  runSanitized,
  sanitizedConfiguration,
  sanitizerProgram,
  valgrindConfiguration,
  type Sanitizer,
  type SanitizedKind,
  type SanitizedRun,
} from '../edge/sanitize.js';
import type { Candidate } from './ir/candidate.js';
import { NotInterestingError, reduceIR } from './ir/engine.js';
import { stopFields, type FindingManifest, type FindingReduceOptions, type FindingReduction } from './finding-types.js';

/** What `finding.json` records about a sanitizer finding (src/edge/sancampaign.ts). */
interface SanitizerFacts {
  readonly name: Sanitizer;
  readonly baseOptions: readonly string[];
  readonly ub: { readonly kind: SanitizedKind } | null;
  readonly report?: { readonly tool: string; readonly kind: string };
  readonly survival?: { readonly referenceCommand: string; readonly levelCheck: 'reference' | 'valgrind' | 'none' };
}

function readFacts(dir: string): SanitizerFacts {
  const j = JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as { sanitizer?: SanitizerFacts };
  const s = j.sanitizer;
  if (!s || typeof s.name !== 'string' || !Array.isArray(s.baseOptions))
    throw errState(`${dir}: finding.json has no sanitizer section`, 'was it written by another version of Kiln?');
  return s;
}

/** Reduces a `sanitizer-miss` or `sanitizer-false-alarm` finding (see the file comment). */
export async function reduceSanitizerFinding(
  dir: string,
  f: FindingManifest,
  policy: Policy,
  limits: Limits,
  opts: FindingReduceOptions,
): Promise<FindingReduction> {
  const facts = readFacts(dir);
  const fallback =
    `reduce the C file with its own test instead: kiln reduce ${join(dir, 'prog.c')} ` +
    `--test ${join(dir, 'repro.sh')}`;
  const p = sanitizerProgram(BigInt(f.seed), policy, facts.ub?.kind ?? null);
  if (!p.ok) throw errState(`${dir}: seed ${f.seed} no longer generates a program (${p.reason})`, fallback);
  if (p.files[0]!.content !== f.sources.find((x) => x.name === MAIN_SOURCE)?.content)
    throw errState(`${dir}: this version of Kiln generates another program for seed ${f.seed}`, fallback);
  const compiler = await resolveCompiler(f.compilerPath);
  const config = buildMatrix([compiler], [f.options.join(' ')])[0]!;
  const base = buildMatrix([compiler], [facts.baseOptions.join(' ')])[0]!;
  const header = [
    `Reduced by Kiln from finding ${f.id}: ${f.outcome} with ${f.compilerName} ${f.options.join(' ')}; seed ${f.seed}.`,
  ];
  const temp = TempRoot.create();
  const run = (
    files: readonly EmittedFile[],
    c: Configuration,
    signal: AbortSignal,
    valgrind = false,
  ): Promise<SanitizedRun> => runSanitized(files, c, facts.name, limits, temp, signal, valgrind);
  try {
    let program: Program;
    let toFiles: (c: Candidate) => { files: EmittedFile[]; program: Program; expected: string } | undefined;
    let test: (c: Candidate, signal: AbortSignal) => Promise<boolean>;
    if (facts.ub === null) {
      const g = generateProgram(f.seed, policy, 'csmith');
      if (!g.ok) throw errState(`${dir}: seed ${f.seed} no longer generates a program`, fallback);
      program = g.program;
      const want = facts.report;
      toFiles = (c) => ({
        files: [{ name: MAIN_SOURCE, content: emitC(c.program, { expected: c.expected, header }) }],
        program: c.program,
        expected: c.expected,
      });
      test = async (c, signal) => {
        const r = await run(toFiles(c)!.files, config, signal);
        return (
          !r.aborted &&
          r.report !== undefined &&
          (want === undefined || (r.report.tool === want.tool && r.report.kind === want.kind))
        );
      };
    } else {
      const inj = p.ub!.injection;
      const kind = facts.ub.kind;
      const ref = facts.survival ? await resolveCompiler(facts.survival.referenceCommand) : compiler;
      const check = facts.survival?.levelCheck ?? 'none';
      const twin = twinOf(inj, generateProgram(f.seed, policy, 'csmith'));
      program = twin.program;
      toFiles = (c) => {
        if (!hasNode(c.program, inj.stmt) || (c.profile.stmtCounts.get(inj.stmt) ?? 0) === 0) return undefined;
        const q = twin.restore(c.program);
        const r = interpret(q);
        if (r.ok || r.ub.node !== inj.site || r.ub.kind !== inj.interpKind) return undefined;
        return { files: [{ name: MAIN_SOURCE, content: emitC(q, { header }) }], program: q, expected: '' };
      };
      test = async (c, signal) => {
        const t = toFiles(c);
        if (!t) return false;
        const restored: Injection = { ...inj, program: t.program };
        const at = siteLocation(t.files[0]!.content, restored);
        const r = await run(t.files, config, signal);
        if (r.aborted || !r.run || reportsSite(r.report, kind, at)) return false;
        const [kept, o0, level] = await Promise.all([
          keepsLine(t.files, config, at.line, limits, temp, signal),
          run(t.files, refConfig(ref, ['-O0'], facts.name), signal),
          check === 'reference'
            ? run(t.files, refConfig(ref, base.options, facts.name), signal)
            : check === 'valgrind'
              ? run(t.files, valgrindConfiguration(base), signal, true)
              : undefined,
        ]);
        if (o0.aborted || level?.aborted) return false;
        return survival(
          kind,
          at,
          kept,
          { by: 'reference -O0', run: o0 },
          level ? { by: 'reference', run: level } : undefined,
        ).survives;
      };
    }
    opts.onProgress?.(
      `reducing ${f.id} (${f.outcome}, ${f.bucket}) with ${config.compiler.name} ${config.optionsText}`,
    );
    let r;
    try {
      r = await reduceIR(program, test, {
        jobs: Math.max(1, opts.jobs ?? cpus().length),
        ...(opts.maxTimeMs !== undefined ? { maxTimeMs: opts.maxTimeMs } : {}),
        ...(opts.maxCandidates !== undefined ? { maxCandidates: opts.maxCandidates } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } catch (e) {
      if (e instanceof NotInterestingError)
        throw new KilnError(
          'KILN_NOT_INTERESTING',
          `${dir}: the ${f.outcome} does not show any more with ${config.compiler.name} ${config.optionsText}`,
          'is the compiler the same version? compare its --version with finding.json',
        );
      throw e;
    }
    const best = toFiles(r.best)!;
    const failingRun = await run(best.files, config, new AbortController().signal);
    const original = p.files[0]!.content;
    const judgement = {
      outcome: f.outcome as 'sanitizer-miss',
      bucket: f.bucket,
      ...(failingRun.report ? { detail: failingRun.report.message } : {}),
    };
    const what =
      facts.ub === null
        ? { alarm: true as const }
        : {
            miss: {
              kind: facts.ub.kind,
              line: siteLocation(best.files[0]!.content, { ...p.ub!.injection, program: best.program }).line,
            },
          };
    const source = best.files[0]!.content;
    return {
      dir,
      finding: f,
      config,
      original: { lines: countLines(original), bytes: original.length },
      program: best.program,
      expected: best.expected,
      files: best.files,
      source,
      lines: countLines(source),
      failing: asConfigResult(failingRun, judgement),
      repro: sanitizerRepro(best.files, config, judgement, limits, what),
      stats: r.stats,
      ...stopFields(opts.signal, opts.maxTimeMs, opts.maxCandidates, r.stats),
    };
  } finally {
    temp.dispose();
  }
}

/** The reference's build at some options with the finding's sanitizer. */
function refConfig(ref: Configuration['compiler'], options: readonly string[], s: Sanitizer): Configuration {
  return sanitizedConfiguration(buildMatrix([ref], [options.join(' ')])[0]!, s);
}

function hasNode(p: Program, id: number): boolean {
  let found = false;
  walkProgram(p, (n) => {
    if (n.id === id) found = true;
    return !found;
  });
  return found;
}

/**
 * The UB-free twin of an injected program (the injected statement an empty block of its id, its
 * globals removed) and the way back: `restore` puts the statement and its globals into a reduced twin.
 */
function twinOf(
  inj: Injection,
  base: ReturnType<typeof generateProgram>,
): { program: Program; restore: (p: Program) => Program } {
  if (!base.ok) throw new Error('the base program of an injection no longer generates');
  const baseIds = new Set(base.program.globals.map((g) => g.id));
  const injected = inj.program.globals.filter((g) => !baseIds.has(g.id));
  const injectedIds = new Set(injected.map((g) => g.id));
  let stmt: import('../ir/nodes.js').Node | undefined;
  walkProgram(inj.program, (n) => {
    if (n.id === inj.stmt) stmt = n;
    return stmt === undefined;
  });
  const marked = replaceNode(inj.program, inj.stmt, () => ({ kind: 'block', id: inj.stmt, locals: [], stmts: [] }));
  const program: Program = { ...marked, globals: marked.globals.filter((g) => !injectedIds.has(g.id)) };
  return {
    program,
    restore: (p) => {
      const q = replaceNode(p, inj.stmt, () => stmt!);
      return {
        ...q,
        globals: [...q.globals.filter((g) => !injectedIds.has(g.id)), ...injected],
        nextId: Math.max(q.nextId, inj.program.nextId),
      };
    },
  };
}

function countLines(src: string): number {
  return src.split('\n').filter((l) => l.trim() !== '').length;
}
