import { errUnsupported } from '../diag/errors.js';
import type { Policy } from '../gen/policy.js';
import type { Discarded, Generated } from './generate.js';

/** The `arith` mode (see src/gen/mode.ts). Not available yet: generation in this mode is being built. */
export function generateArithProgram(seed: number | bigint | string, policy: Policy): Generated | Discarded {
  void seed;
  void policy;
  throw errUnsupported('generation mode arith is not available yet', 'use --mode csmith');
}
