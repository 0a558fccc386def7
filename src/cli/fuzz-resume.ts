// `kiln fuzz --resume`: the latest campaign's stored settings (src/campaign/settings.ts), with
// the few flags a resumed campaign may change.
import { availableParallelism } from 'node:os';
import { resumable, type FuzzSettings } from '../campaign/settings.js';
import { errBadOption } from '../diag/errors.js';
import { maxJobs } from '../harness/config.js';
import { campaignMatrix } from '../harness/configure.js';
import type { FuzzFlags } from './fuzz-flags.js';

/** Flags a resumed campaign takes from its stored settings instead. */
const FIXED_ON_RESUME: readonly (keyof FuzzFlags)[] = [
  'config',
  'compilers',
  'opts',
  'seedStart',
  'policy',
  'size',
  'mode',
  'compileTimeout',
  'runTimeout',
  'memory',
  'ubShare',
  'emi',
  'sanitizers',
];

/** The settings of a resumed campaign: its stored ones, and the flags a resume may give. */
export async function resolveResume(
  flags: FuzzFlags,
  jobs: number | undefined,
  timeMs: number | undefined,
  tests: number | undefined,
  maxPerBucket: number | null | undefined,
): Promise<FuzzSettings> {
  for (const k of FIXED_ON_RESUME) {
    const v = flags[k];
    if (v !== undefined)
      throw errBadOption(
        `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
        String(v),
        'no value with --resume (a resumed campaign keeps its own settings)',
      );
  }
  const out = flags.out ?? 'kiln-out';
  const { campaign, stored, compilers } = await resumable(out);
  return {
    out,
    compilers,
    configurations: await campaignMatrix(compilers, stored.optionSets),
    ...stored,
    rerun: flags.rerun === false ? false : stored.rerun,
    maxPerBucket: maxPerBucket !== undefined ? (maxPerBucket ?? undefined) : stored.maxPerBucket,
    // The campaign's own -j, unless given again; a smaller machine runs as many as it can.
    jobs: jobs ?? Math.min(stored.jobs ?? availableParallelism(), maxJobs()),
    timeMs,
    maxTests: tests ?? campaign.maxTests ?? undefined,
    seedStart: undefined,
    resume: campaign,
    reduce: flags.reduce === true,
  };
}
