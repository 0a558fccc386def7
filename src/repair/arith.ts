import { generateArithRaw } from '../gen/arith.js';
import type { Policy } from '../gen/policy.js';
import { CompiledProgram } from '../interp/interpret.js';
import type { Discarded, Generated } from './generate.js';
import { RepairState } from './state.js';

/**
 * The `arith` mode (see src/gen/mode.ts): Nagai et al.'s self-checking arithmetic programs. The
 * generator removes UB while it computes the expected values, so no repair run is needed; the
 * reference interpreter still runs the program once, as an independent check of the generator:
 * a program with any UB left, or whose checks do not all pass in the interpreter, is discarded
 * (a generator bug, counted like any discard, never emitted). Repairing it with the generic rules
 * would change values the checks have already fixed.
 */
export function generateArithProgram(seed: number | bigint | string, policy: Policy): Generated | Discarded {
  const t0 = performance.now();
  const seedText = String(seed);
  const st = new RepairState(seedText, policy.repair.rewritesPerSite);
  const raw = generateArithRaw(seed, policy);
  const r = CompiledProgram.compile(raw.program, { limits: { maxSteps: policy.repair.maxSteps } }).run();
  st.stats.runs++;
  if (!r.ok) {
    return {
      ok: false,
      seed: seedText,
      reason: `arith generator left ${r.ub.kind} at node ${r.ub.node}`,
      lastUB: r.ub,
      stats: st.stats,
      genMs: performance.now() - t0,
    };
  }
  const expected = r.output.trimEnd();
  if (expected.includes('@NG@')) {
    return {
      ok: false,
      seed: seedText,
      reason: 'arith generator computed a value the interpreter disagrees with',
      lastUB: undefined,
      stats: st.stats,
      genMs: performance.now() - t0,
    };
  }
  return {
    ok: true,
    seed: seedText,
    program: raw.program,
    expected,
    checksum: r.checksum,
    profile: r.profile,
    stats: st.stats,
    genMs: performance.now() - t0,
  };
}
