import type { Program } from '../ir/nodes.js';
import { generateRaw } from '../gen/program.js';
import type { Policy } from '../gen/policy.js';
import type { Mode } from '../gen/mode.js';
import { generateArithProgram } from './arith.js';
import { generateYarpgenProgram } from './yarpgen.js';
import { CompiledProgram, type Profile, type UBReport } from '../interp/interpret.js';
import { Editor } from './edit.js';
import { repairOnce } from './repair.js';
import { RepairState, type RepairStats } from './state.js';

/** A UB-free program and everything known about it. */
export interface Generated {
  readonly ok: true;
  readonly seed: string;
  readonly program: Program;
  /** The exact line the program prints. */
  readonly expected: string;
  readonly checksum: bigint;
  readonly profile: Profile;
  readonly stats: RepairStats;
  readonly genMs: number;
}

/** A program that could not be repaired within the budget (counted, never emitted). */
export interface Discarded {
  readonly ok: false;
  readonly seed: string;
  readonly reason: string;
  readonly lastUB: UBReport | undefined;
  readonly stats: RepairStats;
  readonly genMs: number;
}

/**
 * Generate, execute, repair: draws a program for `seed` in the given mode, runs it with the
 * reference interpreter, and rewrites each site that would hit UB until a run is clean
 * (DESIGN.md, "the central idea"). The same seed, policy and mode give the same program.
 */
export function generateProgram(seed: number | bigint | string, policy: Policy, mode: Mode = 'csmith'): Generated | Discarded {
  switch (mode) {
    case 'csmith':
      return generateCsmithProgram(seed, policy);
    case 'arith':
      return generateArithProgram(seed, policy);
    case 'yarpgen':
      return generateYarpgenProgram(seed, policy);
  }
}

/** The `csmith` mode: whole programs drawn from the policy's distributions, repaired site by site. */
function generateCsmithProgram(seed: number | bigint | string, policy: Policy): Generated | Discarded {
  const t0 = performance.now();
  return repairProgram(seed, policy, generateRaw(seed, policy), t0);
}

/**
 * The generate-execute-repair loop for a raw program of any mode: runs it with the reference
 * interpreter in collect mode, repairs every reported site, and runs again until a run is clean
 * or the repair budget is spent. `t0` is when generation of the raw program began (for `genMs`).
 */
export function repairProgram(seed: number | bigint | string, policy: Policy, raw: Program, t0: number = performance.now()): Generated | Discarded {
  const seedText = String(seed);
  const st = new RepairState(seedText, policy.repair.rewritesPerSite);
  let p = raw;
  let last: UBReport | undefined;
  // Collect mode: one run reports every UB site it meets; all are repaired before the next run.
  // The compiled program and the editor live across runs: each update recompiles only the
  // functions the repairs changed, and the editor's index is updated edit by edit.
  const compiled = CompiledProgram.compile(p, { limits: { maxSteps: policy.repair.maxSteps }, collect: true });
  let ed: Editor | undefined; // made at the first repair: many programs need none
  for (;;) {
    const r = compiled.run();
    st.stats.runs++;
    if (r.ok) {
      return { ok: true, seed: seedText, program: p, expected: r.output.trimEnd(), checksum: r.checksum, profile: r.profile, stats: st.stats, genMs: performance.now() - t0 };
    }
    last = r.ub;
    ed ??= new Editor(p);
    let repaired = 0;
    for (const ub of r.reports) {
      if (st.stats.repairs >= policy.repair.maxRepairs) return discard(`more than ${policy.repair.maxRepairs} repairs`);
      // An earlier repair of this batch may have removed the node (e.g. a whole loop).
      if (ub.node >= 0 && !ed.find(ub.node)) continue;
      if (repairOnce(ed, ub, r.profile, st)) repaired++;
    }
    if (repaired === 0) return discard(`no repair rule for ${r.ub.kind} at node ${r.ub.node}`);
    p = ed.program;
    compiled.update(p);
  }
  function discard(reason: string): Discarded {
    return { ok: false, seed: seedText, reason, lastUB: last, stats: st.stats, genMs: performance.now() - t0 };
  }
}
