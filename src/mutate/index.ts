import { emitFiles, type EmittedFile } from '../emit/files.js';
import type { Mode } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';
import { Rng } from '../random/rng.js';
import { generateProgram, type Discarded, type Generated } from '../repair/generate.js';
import { brokenContracts, contractAttr } from './attrs.js';
import { diffLines } from './diff.js';
import { profileBase } from './env.js';
import { emiHeader, isVariant, makeVariant, MUTATION_KINDS, type Strategies } from './variant.js';

/** One emitted member of an EMI family: the base (variant 0) or a proven variant. */
interface EmiMember {
  readonly variant: number;
  readonly files: readonly EmittedFile[];
  readonly strategies: Strategies;
  /** Lines added plus removed against the base's text (0 for the base). */
  readonly diffLines: number;
  /** Lines of the member's text. */
  readonly lines: number;
  /** The member's `pure`/`const` attributes, checked on its final program. */
  readonly contracts: ContractAudit;
}

/** The `pure` and `const` attributes of an EMI member, checked against its final program. */
interface ContractAudit {
  readonly pure: number;
  readonly const: number;
  /** Drawn by the attributes pass, then removed because the final program breaks them. */
  readonly removed: number;
  /** Drawn as `const`, kept as `pure`: the final program reads memory it did not create. */
  readonly weakened: number;
  /** Attributes that `contractsOf` does not grant on the final program: a Kiln bug when not 0. */
  readonly broken: number;
}

/** A base program and its variants 1…K (those whose proof failed are only counted). */
export interface EmiFamily {
  readonly base: Generated;
  readonly members: readonly EmiMember[];
  readonly rejected: readonly { readonly variant: number; readonly reason: string }[];
}

/**
 * Generates the program of `seed` and its EMI variants with indices in `indices` (0 is the base
 * itself). Same seed, policy, mode and index: same bytes. Undefined result when the seed is
 * discarded by generation.
 */
export function emiFamily(seed: string, policy: Policy, mode: Mode, indices: readonly number[]): EmiFamily | Discarded {
  const base = generateProgram(seed, policy, mode);
  if (!base.ok) return base;
  const emit = (p: Generated['program'], variant: number): EmittedFile[] =>
    emitFiles(p, { expected: base.expected, header: [emiHeader(seed, p.meta.mode ?? mode, policy.name, variant)] });
  const baseFiles = emit(base.program, 0);
  const baseText = joined(baseFiles);
  const zero = Object.fromEntries(MUTATION_KINDS.map((k) => [k, 0])) as Strategies;
  const audit = (
    p: Generated['program'],
    dropped?: { readonly removed: number; readonly weakened: number },
  ): ContractAudit => {
    const promised = p.funcs.map(contractAttr);
    return {
      pure: promised.filter((c) => c === 'pure').length,
      const: promised.filter((c) => c === 'const').length,
      removed: dropped?.removed ?? 0,
      weakened: dropped?.weakened ?? 0,
      broken: brokenContracts(p).length,
    };
  };
  const members: EmiMember[] = [];
  const rejected: { variant: number; reason: string }[] = [];
  const needProfile = indices.some((i) => i > 0);
  const profile = needProfile ? profileBase(base.program, Rng.seeded(`kiln-emi-profile:${seed}`)) : undefined;
  for (const i of indices) {
    if (i === 0) {
      members.push({
        variant: 0,
        files: baseFiles,
        strategies: zero,
        diffLines: 0,
        lines: lineCount(baseText),
        contracts: audit(base.program),
      });
      continue;
    }
    const v = makeVariant(profile!, `${base.expected}\n`, seed, i);
    if (!isVariant(v)) {
      rejected.push({ variant: i, reason: v.reason });
      continue;
    }
    const files = emit(v.program, i);
    const text = joined(files);
    // The header line names the variant: not a difference of the program.
    members.push({
      variant: i,
      files,
      strategies: v.strategies,
      diffLines: Math.max(0, diffLines(baseText, text) - 2),
      lines: lineCount(text),
      contracts: audit(v.program, v.contractsDropped),
    });
  }
  return { base, members, rejected };
}

function joined(files: readonly EmittedFile[]): string {
  return files.map((f) => f.content).join('\n');
}

function lineCount(s: string): number {
  return s.split('\n').length;
}
