import { generateYarpgenRaw } from '../gen/yarpgen.js';
import type { Policy } from '../gen/policy.js';
import { repairProgram, type Discarded, type Generated } from './generate.js';

/**
 * The `yarpgen` mode (see src/gen/mode.ts and src/gen/yarpgen.ts): loop-free scalar test
 * functions, made UB-free by the same generate-execute-repair loop as every mode. YARPGen tracks
 * values while it builds each expression; here the interpreter runs the finished program and the
 * repair rules apply YARPGen's Table 1 rewrites at the sites it reports.
 */
export function generateYarpgenProgram(seed: number | bigint | string, policy: Policy): Generated | Discarded {
  const t0 = performance.now();
  return repairProgram(seed, policy, generateYarpgenRaw(seed, policy), t0);
}
