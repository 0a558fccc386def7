// The steps between a campaign's option sets and its tests: the matrix, the default option sets of
// a campaign on the newest compilers, and the per-compiler probes that complete a configuration
// (swarm catalogues, whether this machine runs an ISA's binaries).
import { versionKey, type Compiler } from './compilers.js';
import { probeIsa, withIsaProbes } from './isa.js';
import { buildMatrix, DEFAULT_OPTION_SETS, type Configuration } from './matrix.js';
import { withSwarmCatalogues } from './swarm.js';

/**
 * Option sets a campaign adds to the plain `-O` levels when every compiler is one of the newest
 * gcc or clang ({@link isNewest}): ISA levels (the x86-64-v4 one only where this machine runs its
 * binaries), a swarm of flags at two levels, and LTO. docs/config.md says how the share was chosen.
 */
export const NEWEST_OPTION_SETS: readonly string[] = [
  '-O2 -march=x86-64-v3',
  '-O3 -march=x86-64-v4 -mprefer-vector-width=512',
  '-O3 -march=native +swarm',
  '-O2 +swarm',
  '-O2 -flto',
];

/** The newest compilers: GCC 13 and later (trunk included) and clang 19 and later, for x86-64. */
export function isNewest(c: Compiler): boolean {
  if (c.target !== undefined) return false;
  const major = versionKey(c)[0] ?? 0;
  return (c.family === 'gcc' && major >= 13) || (c.family === 'clang' && major >= 19);
}

/**
 * The option sets of a campaign that names none: the plain levels, and on the newest compilers
 * also {@link NEWEST_OPTION_SETS}, less an ISA level some compiler's binaries cannot run here.
 */
export async function defaultOptionSets(compilers: readonly Compiler[]): Promise<string[]> {
  if (compilers.length === 0 || !compilers.every(isNewest)) return [...DEFAULT_OPTION_SETS];
  const out = [...DEFAULT_OPTION_SETS];
  for (const set of NEWEST_OPTION_SETS) {
    const march = /-march=(x86-64-v\d)/.exec(set)?.[1];
    if (march) {
      const runs = await Promise.all(compilers.map((c) => probeIsa(c, [`-march=${march}`])));
      if (!runs.every((r) => r.kind === 'runs')) continue;
    }
    out.push(set);
  }
  return out;
}

/**
 * The matrix of compilers × option sets with every per-compiler probe done: each swarm
 * configuration gets its compiler's catalogue, and an ISA this machine does not run makes a
 * configuration compile-only. Refuses `+swarm` for tcc or pcc and an ISA the compiler rejects
 * (`KILN_BAD_OPTION`).
 */
export async function campaignMatrix(
  compilers: readonly Compiler[],
  optionSets: readonly string[],
): Promise<Configuration[]> {
  return withIsaProbes(await withSwarmCatalogues(buildMatrix(compilers, optionSets)));
}
