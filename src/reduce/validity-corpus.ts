import { emitFiles, type EmittedFile } from '../emit/files.js';
import type { Mode } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';
import { campaignFiles } from '../harness/program.js';
import { EmiBases } from '../mutate/recipes.js';
import { generateProgram } from '../repair/generate.js';
import { drawRelaxations, relaxProgram, relaxRng } from '../repair/relax.js';

// The programs a campaign compiles, per seed, for the validity check of the generator itself: a
// reduced test case can only be as valid as the program it came from.

/** Which programs of a seed the corpus holds. */
type CorpusKind = 'base' | 'emi' | 'relaxed';

/** One program of the corpus, as the campaign compiles it. */
export interface CorpusCase {
  readonly mode: Mode;
  readonly seed: number;
  readonly kind: CorpusKind;
  readonly files: readonly EmittedFile[];
}

/**
 * What the corpus could not produce for a seed (a discarded program, a variant that failed its proof, a relaxed program
 * with UB).
 */
export interface CorpusGap {
  readonly mode: Mode;
  readonly seed: number;
  readonly kind: CorpusKind;
  readonly reason: string;
}

/**
 * The programs of one seed in one mode: the program itself, its first EMI variant (as
 * `kiln fuzz --emi 1` compiles it for campaign seed 2 × seed + 1), and, in csmith mode, the
 * program relaxed as `--ub-share` does, when the interpreter found its executed path UB-free (a
 * relaxed program with UB is for crash testing only and is not expected to be clean). `kinds`:
 * only these (the program is generated in any case).
 */
export function corpusOfSeed(
  mode: Mode,
  seed: number,
  policy: Policy,
  kinds: ReadonlySet<CorpusKind> = new Set(['base', 'emi', 'relaxed']),
): { cases: CorpusCase[]; gaps: CorpusGap[] } {
  const cases: CorpusCase[] = [];
  const gaps: CorpusGap[] = [];
  const g = generateProgram(seed, policy, mode);
  if (!g.ok) {
    gaps.push({ mode, seed, kind: 'base', reason: g.reason });
    return { cases, gaps };
  }
  if (kinds.has('base'))
    cases.push({
      mode,
      seed,
      kind: 'base',
      files: 'files' in g ? (g.files as readonly EmittedFile[]) : campaignFiles(g, policy),
    });
  if (kinds.has('emi'))
    try {
      const v = new EmiBases(policy, mode, 1).program(String(2 * seed + 1), 1);
      if (v.ok) cases.push({ mode, seed, kind: 'emi', files: v.files });
      else gaps.push({ mode, seed, kind: 'emi', reason: v.reason });
    } catch (e) {
      gaps.push({ mode, seed, kind: 'emi', reason: (e as Error).message });
    }
  if (mode === 'csmith' && kinds.has('relaxed')) {
    const rng = relaxRng(BigInt(seed));
    const x = relaxProgram(g.program, drawRelaxations(policy, rng), rng);
    if (x.verdict.ok)
      cases.push({ mode, seed, kind: 'relaxed', files: emitFiles(x.program, { expected: x.verdict.output }) });
    else gaps.push({ mode, seed, kind: 'relaxed', reason: x.verdict.reason });
  }
  return { cases, gaps };
}
