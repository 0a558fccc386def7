// `kiln gen --relax`: the seed's program relaxed as CsmithEdge does (src/repair/relax.ts), as text.
import { emitC } from '../emit/c.js';
import type { Policy } from '../gen/policy.js';
import { generateProgram } from '../repair/generate.js';
import { drawRelaxations, relaxProgram, relaxRng, type Relaxed } from '../repair/relax.js';

/** A relaxed program of a seed, as text. */
export type RelaxedProgram =
  | {
      readonly ok: true;
      readonly seed: string;
      readonly text: string;
      readonly relaxed: Relaxed;
      readonly genMs: number;
    }
  | { readonly ok: false; readonly seed: string; readonly reason: string };

/**
 * The seed's csmith-mode program, relaxed per the policy's `relax` section. Its first line states
 * the expected output when the interpreter found its executed path UB-free, and says that only
 * compiler crashes and hangs count otherwise.
 */
export function generateRelaxedProgram(seed: bigint, policy: Policy, header: readonly string[] = []): RelaxedProgram {
  const t0 = performance.now();
  const g = generateProgram(seed, policy, 'csmith');
  if (!g.ok) return { ok: false, seed: String(seed), reason: `the UB-free program was discarded: ${g.reason}` };
  const rng = relaxRng(seed);
  const relaxed = relaxProgram(g.program, drawRelaxations(policy, rng), rng);
  const v = relaxed.verdict;
  const body = emitC(relaxed.program, v.ok ? { expected: v.output, header } : { header });
  const text = v.ok
    ? body
    : `/* kiln: relaxed program with undefined behaviour (${v.reason}): test compilers for crashes and hangs ` +
      `only */\n${body}`;
  return { ok: true, seed: String(seed), text, relaxed, genMs: performance.now() - t0 };
}
