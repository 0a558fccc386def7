import { errDatabase, errState } from '../diag/errors.js';
import { isModeChoice, type ModeChoice } from '../gen/mode.js';
import { parsePolicy, PolicyError, type Policy } from '../gen/policy.js';
import { compilerCapabilities, policyFor, type CompilerCapabilities } from '../harness/capabilities.js';
import { resolveCompilers, type Compiler } from '../harness/compilers.js';
import type { Configuration, Limits } from '../harness/matrix.js';
import { DEFAULT_MAX_PER_BUCKET } from '../store/cap.js';
import { KilnStore, type CampaignRow } from '../store/store.js';

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
  /**
   * `--sanitizers`: the campaign tests the sanitizers of its gcc and clang configurations (src/edge/sancampaign.ts).
   */
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
  /** A file of known bugs named by the configuration (`known:`), besides the output folder's known.yaml. */
  readonly known?: string;
  /** What each compiler accepts beyond C11, probed at the session's start ({@link withCapabilities}). */
  readonly capabilities?: ReadonlyMap<string, CompilerCapabilities>;
}

/**
 * Probes every compiler of the session once for `__int128`, `_BitInt`, labels as values and vectors
 * (src/harness/capabilities.ts).
 * A new campaign's policy then draws only what its compilers accept ({@link policyFor}): with
 * `some`, what one of them accepts (`_BitInt` widths up to the largest limit among them, so every
 * program has a compiler; the scheduler skips the others); with `every`, what all of them accept,
 * for runners that test every program on every compiler (sanitizer campaigns, queued campaigns,
 * whose workers do not skip). The policy is stored with the campaign, so `--resume` and `kiln
 * reduce` generate the same programs; a resumed session only probes again (each test still goes
 * only to compilers that accept its program). `among`: the compilers whose answers count (a
 * sanitizer campaign's gcc and clang drivers).
 */
export async function withCapabilities(
  s: FuzzSettings,
  need: 'some' | 'every' = 'some',
  among: (c: Compiler) => boolean = () => true,
): Promise<FuzzSettings> {
  const caps = new Map<string, CompilerCapabilities>();
  for (const c of s.compilers) caps.set(c.name, await compilerCapabilities(c));
  if (s.resume) return { ...s, capabilities: caps };
  const tested = s.compilers.filter(among).map((c) => caps.get(c.name)!);
  return { ...s, policy: policyFor(s.policy, tested, need), capabilities: caps };
}

/** The settings a new campaign stores with it, for `--resume` ({@link storedSettings} reads them back). */
export function settingsToStore(s: FuzzSettings): Omit<StoredSettings, 'maxPerBucket'> & Record<string, unknown> {
  return {
    optionSets: s.optionSets,
    limits: s.limits,
    policy: s.policy,
    mode: s.mode,
    rerun: s.rerun,
    jobs: s.jobs,
    timeMs: s.timeMs ?? null,
    maxPerBucket: s.maxPerBucket ?? null,
    ...(s.ubShare ? { ubShare: s.ubShare } : {}),
    ...(s.emi ? { emi: s.emi } : {}),
    ...(s.sanitizers ? { sanitizers: true } : {}),
  };
}

/**
 * The latest campaign of an output folder, to resume: its row, its stored settings, and its
 * compilers resolved again under their stored names. Reads the store only: nothing is written
 * until the stored settings and compilers check out.
 */
export async function resumable(
  out: string,
): Promise<{ campaign: CampaignRow; stored: StoredSettings; compilers: Compiler[] }> {
  const store = KilnStore.open(out, 'read');
  let campaign: CampaignRow | undefined;
  try {
    campaign = store.latestCampaign();
  } finally {
    store.close();
  }
  if (!campaign) throw errState(`no campaign to resume in ${out}`, "start one with 'kiln fuzz'");
  const stored = storedSettings(campaign, store.path);
  const storedCompilers = campaign.compilers as { command: string; name: string; version: string }[];
  const compilers = await resolveCompilers(storedCompilers.map((c) => c.command));
  return { campaign, stored, compilers: compilers.map((c, i) => ({ ...c, name: storedCompilers[i]?.name ?? c.name })) };
}

/** A campaign's stored settings, decoded and checked (KILN_DATABASE when unusable). */
function storedSettings(c: CampaignRow, dbPath: string): StoredSettings {
  const s = c.config as Partial<StoredSettings> | null;
  if (!s || !Array.isArray(s.optionSets) || !s.limits || !s.policy || !Array.isArray(c.compilers)) {
    throw errDatabase(dbPath, `campaign ${c.id} has no usable settings to resume`);
  }
  let policy: Policy;
  try {
    policy = parsePolicy(s.policy);
  } catch (e) {
    if (e instanceof PolicyError) throw errDatabase(dbPath, `campaign ${c.id}: stored policy: ${e.message}`);
    throw e;
  }
  const step = (x: { timeoutMs: number; memoryMb?: number | null }) => ({
    timeoutMs: x.timeoutMs,
    memoryMb: x.memoryMb ?? undefined,
  });
  const jobs = typeof s.jobs === 'number' && Number.isInteger(s.jobs) && s.jobs >= 1 ? s.jobs : undefined;
  // Campaigns from before the cap have none stored: they keep the default, as a new one would.
  const cap =
    s.maxPerBucket === null
      ? undefined
      : typeof s.maxPerBucket === 'number' && s.maxPerBucket >= 1
        ? s.maxPerBucket
        : DEFAULT_MAX_PER_BUCKET;
  return {
    optionSets: s.optionSets,
    limits: { compile: step(s.limits.compile), run: step(s.limits.run) },
    policy,
    mode: typeof s.mode === 'string' && isModeChoice(s.mode) ? s.mode : 'csmith',
    rerun: s.rerun ?? true,
    maxPerBucket: cap,
    ...(jobs !== undefined ? { jobs } : {}),
    ...(typeof s.ubShare === 'number' && s.ubShare > 0 && s.ubShare <= 1 ? { ubShare: s.ubShare } : {}),
    ...(typeof s.emi === 'number' && Number.isInteger(s.emi) && s.emi > 0 ? { emi: s.emi } : {}),
    ...(s.sanitizers === true ? { sanitizers: true } : {}),
  };
}
