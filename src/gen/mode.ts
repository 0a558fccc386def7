import { createHash } from 'node:crypto';

/**
 * Generation modes. `csmith`: whole programs with structs, pointers, loops and calls (Csmith's
 * distribution, plus YARPGen's policies); `yarpgen`: loop-free scalar test functions emitted as
 * separate translation units (YARPGen v1); `arith`: Nagai et al.'s long arithmetic expressions,
 * each assigned once and checked by the program itself.
 */
export const MODES = ['csmith', 'yarpgen', 'arith'] as const;
export type Mode = (typeof MODES)[number];

/** What a campaign asks for: one mode, or `mixed` (a mode drawn per program from its seed). */
export const MODE_CHOICES = [...MODES, 'mixed'] as const;
export type ModeChoice = (typeof MODE_CHOICES)[number];

export function isModeChoice(s: string): s is ModeChoice {
  return (MODE_CHOICES as readonly string[]).includes(s);
}

/**
 * The mode of the program with this seed. `mixed` draws from a hash of the seed (not from the
 * generator's own random stream), so the same seed is the same program whatever mode it was drawn
 * in, and consecutive seeds spread over all modes. Shares: csmith 1/2, yarpgen 1/4, arith 1/4 —
 * whole programs find the most bugs per test (Csmith, YARPGen §5), the two others add variety.
 */
export function modeFor(seed: bigint | number | string, choice: ModeChoice): Mode {
  if (choice !== 'mixed') return choice;
  const h = createHash('sha256')
    .update(`kiln-mode:${String(seed)}`)
    .digest();
  const r = h[0]! & 3;
  return r < 2 ? 'csmith' : r === 2 ? 'yarpgen' : 'arith';
}
