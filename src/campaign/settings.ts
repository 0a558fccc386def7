import type { ModeChoice } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';
import type { Compiler } from '../harness/compilers.js';
import type { Configuration, Limits } from '../harness/matrix.js';
import type { CampaignRow } from '../store/store.js';

/** The settings of a campaign as stored with it (and reused by `--resume`). */
export interface StoredSettings {
  readonly optionSets: readonly string[];
  readonly limits: Limits;
  readonly policy: Policy;
  readonly mode: ModeChoice;
  readonly rerun: boolean;
  /** Concurrent jobs the campaign was started with (a default for --resume). */
  readonly jobs?: number;
  /** Findings stored per bucket (the first N and the smallest); undefined: no cap. */
  readonly maxPerBucket?: number | undefined;
  /** `--ub-share F`: the share of csmith-mode programs relaxed as CsmithEdge does (0: none). */
  readonly ubShare?: number;
  /** `--emi K`: each base program is tested with K EMI variants (0 or absent: off). */
  readonly emi?: number;
  /** `--sanitizers`: the campaign tests the sanitizers of its gcc and clang configurations (src/edge/sancampaign.ts). */
  readonly sanitizers?: boolean;
}

/** Fully resolved settings of one `kiln fuzz` session. */
export interface FuzzSettings extends StoredSettings {
  readonly out: string;
  readonly compilers: readonly Compiler[];
  readonly configurations: readonly Configuration[];
  readonly jobs: number;
  readonly timeMs: number | undefined;
  /** Programs to test in all (for a resumed campaign: including those already done). */
  readonly maxTests: number | undefined;
  /** First seed of a new campaign; undefined: after every seed the store has used. */
  readonly seedStart: bigint | undefined;
  /** The campaign being resumed. */
  readonly resume: CampaignRow | undefined;
  /** Reduce each new bucket's first finding in the background. */
  readonly reduce: boolean;
}
