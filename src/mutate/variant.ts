import { IRBuilder } from '../ir/build.js';
import type { Program } from '../ir/nodes.js';
import { interpret } from '../interp/interpret.js';
import { Rng } from '../random/rng.js';
import { attributes, keepHeldContracts } from './attrs.js';
import { athena } from './athena.js';
import type { BaseProfile, Site } from './env.js';
import { deadFacts, siteFacts } from './facts.js';
import { fcb } from './fcb.js';
import { orion } from './orion.js';
import type { PassContext } from './pass.js';
import { tcb } from './tcb.js';
import { tg } from './tg.js';

/** The mutation kinds, in the order the driver applies them. */
export const MUTATION_KINDS = ['attributes', 'orion', 'athena', 'fcb', 'tg', 'tcb', 'facts'] as const;
/** One mutation kind. */
type MutationKind = (typeof MUTATION_KINDS)[number];
/** How many mutations of each kind a variant carries. */
export type Strategies = Record<MutationKind, number>;

/** Kinds that place a snippet at a profiled site (each site gets one, Hermes-style). */
const SITE_KINDS: readonly MutationKind[] = ['fcb', 'tg', 'tcb', 'facts'];

/** A proven variant. */
export interface Variant {
  readonly index: number;
  readonly program: Program;
  readonly strategies: Strategies;
  /** Draws of this variant that failed their proof before this one (0 almost always). */
  readonly redrawn: number;
  /** Contracts drawn that the final program does not grant: removed, or `const` weakened to `pure`. */
  readonly contractsDropped: { readonly removed: number; readonly weakened: number };
}

/** A variant that failed its proof: a Kiln bug, counted as internal and never emitted. */
export interface RejectedVariant {
  readonly index: number;
  readonly reason: string;
}

/**
 * Draws variant `index` (1, 2, …) of a profiled base and proves it by execution: the
 * interpreter must run it without UB (reaching `__builtin_unreachable()` or a false assume is
 * UB) and print exactly `expected`. The variant's random stream depends only on the seed
 * text and the index, so the same seed, index and options give the same variant.
 *
 * Each kind is switched on with probability 1/2 per variant (at least one); Orion, Athena and
 * the dead-code facts draw their own per-variant probability; every profiled site gets one
 * snippet of an enabled site kind.
 */
export function makeVariant(
  base: BaseProfile,
  expected: string,
  seed: string,
  index: number,
): Variant | RejectedVariant {
  // A snippet placed inside a function can meet an access of its caller's full expression: the
  // call is indeterminately sequenced with the caller's other operands, so a TCB's save and
  // restore of a global, or a predicate's read of it, makes the output depend on an order C
  // leaves open (the interpreter's `order-dependence`). The profile cannot see it (the base
  // made no such access there); the proof does. Such a draw is redrawn from a stream of its
  // own, so a variant stays a function of seed and index (4% of draws failed so before).
  let last: RejectedVariant | undefined;
  for (let attempt = 0; attempt < MAX_DRAWS; attempt++) {
    const v = drawVariant(base, expected, seed, index, attempt);
    if (isVariant(v)) return v;
    last = v;
  }
  return { index, reason: `${last!.reason} (in each of ${MAX_DRAWS} draws; the last is shown)` };
}

/** Draws of one variant before it counts as failed (internal). */
const MAX_DRAWS = 4;

/** One draw of variant `index`: attempt 0 is the variant's own stream, later attempts redraw it. */
function drawVariant(
  base: BaseProfile,
  expected: string,
  seed: string,
  index: number,
  attempt: number,
): Variant | RejectedVariant {
  const rng = Rng.seeded(attempt === 0 ? `kiln-emi:${seed}:${index}` : `kiln-emi:${seed}:${index}:redraw-${attempt}`);
  let on = MUTATION_KINDS.filter(() => rng.chance(0.5));
  if (!on.length) on = [rng.pick(MUTATION_KINDS)];
  const enabled = new Set<MutationKind>(on);
  const cx: PassContext = { b: IRBuilder.continuing(base.program), rng, base };
  const strategies = Object.fromEntries(MUTATION_KINDS.map((k) => [k, 0])) as Strategies;
  let p = base.program;
  if (enabled.has('attributes')) {
    const r = attributes(p, cx, 0.2 + 0.6 * rng.float());
    p = r.program;
    strategies.attributes += r.applied;
  }
  if (enabled.has('orion')) {
    const r = orion(p, cx, rng.float());
    p = r.program;
    strategies.orion += r.applied;
  }
  if (enabled.has('athena')) {
    const r = athena(p, cx, 0.1 + 0.5 * rng.float());
    p = r.program;
    strategies.athena += r.applied;
  }
  const siteKinds = SITE_KINDS.filter((k) => enabled.has(k));
  if (siteKinds.length) {
    const bySite = new Map<MutationKind, Site[]>(siteKinds.map((k) => [k, []]));
    for (const s of base.sites) bySite.get(rng.pick(siteKinds))!.push(s);
    // Insertions before TG: TG wraps a site's statement, the others go before it.
    if (enabled.has('fcb')) {
      const r = fcb(p, cx, bySite.get('fcb')!, enabled.has('facts'));
      p = r.program;
      strategies.fcb += r.applied;
      strategies.facts += r.facts;
    }
    if (enabled.has('tcb')) {
      const r = tcb(p, cx, bySite.get('tcb')!);
      p = r.program;
      strategies.tcb += r.applied;
    }
    if (enabled.has('facts')) {
      const r = siteFacts(p, cx, bySite.get('facts')!);
      p = r.program;
      strategies.facts += r.applied;
    }
    if (enabled.has('tg')) {
      const r = tg(p, cx, bySite.get('tg')!);
      p = r.program;
      strategies.tg += r.applied;
    }
  }
  if (enabled.has('facts')) {
    const r = deadFacts(p, cx, 0.1 + 0.4 * rng.float());
    p = r.program;
    strategies.facts += r.applied;
  }
  // Contracts were drawn on the program before the insertions above, which may write or read
  // memory inside the same functions: the final program decides which of them stay.
  const held = keepHeldContracts(p);
  p = held.program;
  strategies.attributes -= held.removed;
  p = { ...p, nextId: Math.max(p.nextId, cx.b.nextId) };
  // The run also holds every call of a `pure` or `const` function to its contract.
  const run = interpret(p);
  if (!run.ok)
    return {
      index,
      reason:
        `undefined behaviour: ${run.ub.kind} at ` +
        `node ${run.ub.node}${run.ub.detail?.message ? ` (${run.ub.detail.message})` : ''}`,
    };
  if (run.output !== expected)
    return {
      index,
      reason: `prints ${JSON.stringify(run.output.trim())}, its base ${JSON.stringify(expected.trim())}`,
    };
  return {
    index,
    program: p,
    strategies,
    redrawn: attempt,
    contractsDropped: { removed: held.removed, weakened: held.weakened },
  };
}

/** Whether a variant outcome is a proven variant. */
export function isVariant(v: Variant | RejectedVariant): v is Variant {
  return 'program' in v;
}

/** The header line each member's files carry (variant 0 is the base itself). */
export function emiHeader(seed: string, mode: string, policy: string, variant: number): string {
  return (
    `Generated by Kiln (mode ${mode}, policy ${policy}), ` + `seed ${seed}${variant ? `, EMI variant ${variant}` : ''}.`
  );
}
