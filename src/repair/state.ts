import type { UBKind } from '../c/ub.js';
import type { Program } from '../ir/nodes.js';
import { Rng } from '../random/rng.js';

/** What one repair did: the rewritten program and the rule's name (for statistics). */
export interface Repaired {
  readonly program: Program;
  readonly rule: string;
}

/** A repair result, or undefined when the edit could not be made (its node was already gone). */
export function repaired(program: Program | undefined, rule: string): Repaired | undefined {
  return program ? { program, rule } : undefined;
}

/** Counts of repairs, by rule and by UB kind. */
export interface RepairStats {
  /** Interpreter runs (the last one clean when the program was kept). */
  runs: number;
  /** Repairs applied. */
  repairs: number;
  readonly byRule: Record<string, number>;
  readonly byKind: Partial<Record<UBKind, number>>;
}

/**
 * Per-program repair state: attempts per site (so each site is repaired a bounded number of times), a private RNG,
 * statistics.
 */
export class RepairState {
  private readonly attemptsAt = new Map<number, number>();
  readonly rng: Rng;
  readonly stats: RepairStats = { runs: 0, repairs: 0, byRule: {}, byKind: {} };

  constructor(
    seed: string,
    /** Rewrites tried at one site before the strongest repair. */
    readonly rewritesPerSite: number,
  ) {
    // A stream separate from the generator's, so repair choices never perturb generation.
    this.rng = Rng.seeded(`repair:${seed}`);
  }

  /** How many repairs were already applied at a site. */
  attempts(site: number): number {
    return this.attemptsAt.get(site) ?? 0;
  }

  /** Records a repair at a site. */
  record(site: number, kind: UBKind, rule: string): void {
    this.attemptsAt.set(site, this.attempts(site) + 1);
    this.stats.repairs++;
    this.stats.byRule[rule] = (this.stats.byRule[rule] ?? 0) + 1;
    this.stats.byKind[kind] = (this.stats.byKind[kind] ?? 0) + 1;
  }

  /** Counts an attempt at a site without recording a repair (when the rule acted elsewhere than the reported node). */
  touch(site: number): void {
    this.attemptsAt.set(site, this.attempts(site) + 1);
  }

  /** Carries attempts over to a node that replaced another (so a rewritten site keeps its history). */
  inherit(from: number, to: number): void {
    this.attemptsAt.set(to, Math.max(this.attempts(to), this.attempts(from)));
  }
}
