import { errUnsupported } from '../diag/errors.js';
import type { Policy } from '../gen/policy.js';
import type { Discarded, Generated } from './generate.js';

/** The `yarpgen` mode (see src/gen/mode.ts). Not available yet: generation in this mode is being built. */
export function generateYarpgenProgram(seed: number | bigint | string, policy: Policy): Generated | Discarded {
  void seed;
  void policy;
  throw errUnsupported('generation mode yarpgen is not available yet', 'use --mode csmith');
}
