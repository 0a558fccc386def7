// The generator's side of a campaign. The store keeps seeds, not programs, so the report
// regenerates a sample of the campaign's programs from their seeds (the same seed, policy and
// mode give the same program byte for byte) and measures them: size, live code, feature census.
// The mode mix needs no sample: a program's mode is a function of its seed.
import { createHash } from 'node:crypto';
import { modeFor, type Mode, type ModeChoice } from '../../gen/mode.js';
import type { Policy } from '../../gen/policy.js';
import { campaignFiles } from '../../harness/program.js';
import { liveStats } from '../../interp/live.js';
import { censusOf, FEATURES, type Feature } from '../../ir/census.js';
import { generateProgram } from '../../repair/generate.js';

/** What one regenerated program measured. */
export interface SampledProgram {
  readonly seed: string;
  readonly mode: Mode;
  /** Lines of C the campaign compiled (all translation units). */
  readonly lines: number;
  /** Statements of the program's own functions (main's checksum code left out), counted as `liveStats` counts them. */
  readonly statements: number;
  /** Those the reference interpreter executed at least once. */
  readonly liveStatements: number;
  readonly features: readonly Feature[];
}

/** Regenerated programs, by seed, kept between refreshes of a running campaign's report. */
export type SampleCache = Map<string, SampledProgram | null>;

/** Programs per mode among the seeds (exact: the mode is drawn from the seed's hash). */
export function modeMix(
  seeds: Iterable<bigint>,
  choice: ModeChoice,
  findingsBySeed: ReadonlyMap<bigint, number>,
): Record<Mode, { programs: number; findings: number }> {
  const mix: Record<Mode, { programs: number; findings: number }> = {
    csmith: { programs: 0, findings: 0 },
    yarpgen: { programs: 0, findings: 0 },
    arith: { programs: 0, findings: 0 },
  };
  for (const s of seeds) {
    const m = mix[modeFor(s, choice)];
    m.programs++;
    m.findings += findingsBySeed.get(s) ?? 0;
  }
  return mix;
}

/**
 * Picks `n` seeds spread over the campaign: those with the smallest hash. The choice does not
 * depend on the order seeds finished in, and a growing campaign mostly keeps its earlier picks,
 * so a cache makes each refresh regenerate only a few programs.
 */
export function sampleSeeds(seeds: Iterable<bigint>, n: number): bigint[] {
  if (n <= 0) return [];
  const keyed: { seed: bigint; key: string }[] = [];
  for (const seed of seeds)
    keyed.push({ seed, key: createHash('sha1').update(`kiln-sample:${seed}`).digest('hex').slice(0, 12) });
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed
    .slice(0, n)
    .map((k) => k.seed)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Regenerates and measures the sampled programs (discarded ones, which the campaign never tested
 * either, are skipped). At most `maxNew` programs missing from the cache are generated: a running
 * campaign's refresh grows its sample a few programs at a time instead of pausing for all of them.
 */
export function measureSample(
  seeds: readonly bigint[],
  policy: Policy,
  choice: ModeChoice,
  cache: SampleCache = new Map(),
  maxNew = Infinity,
): SampledProgram[] {
  const out: SampledProgram[] = [];
  let fresh = 0;
  for (const seed of seeds) {
    const key = String(seed);
    let m = cache.get(key);
    if (m === undefined) {
      if (fresh >= maxNew) continue;
      fresh++;
      m = measureOne(seed, policy, modeFor(seed, choice));
      cache.set(key, m);
    }
    if (m) out.push(m);
  }
  return out;
}

function measureOne(seed: bigint, policy: Policy, mode: Mode): SampledProgram | null {
  const g = generateProgram(seed, policy, mode);
  if (!g.ok) return null;
  const lines = campaignFiles(g, policy).reduce((n, f) => n + lineCount(f.content), 0);
  // One definition of live code for the report, `kiln gen --json` and `kiln stats`.
  const { statements, liveStatements } = liveStats(g.program, g.profile);
  return { seed: String(seed), mode, lines, statements, liveStatements, features: [...censusOf(g.program).features] };
}

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}

/** Share of sampled programs using each census feature, in the census's own order. */
export function featureShares(
  sample: readonly SampledProgram[],
): { feature: Feature; description: string; share: number }[] {
  const counts = new Map<Feature, number>();
  for (const p of sample) for (const f of p.features) counts.set(f, (counts.get(f) ?? 0) + 1);
  return (Object.keys(FEATURES) as Feature[]).map((f) => ({
    feature: f,
    description: FEATURES[f],
    share: sample.length ? (counts.get(f) ?? 0) / sample.length : 0,
  }));
}
