// The IR reducer's straighten-gotos pass: `goto L` (its label's only jump, nothing falling into
// `L`) becomes the code from `L` to the next statement that jumps away. Every candidate must be
// the same program as far as its run goes: valid IR, UB-free, the same output, one goto fewer.
import { describe, expect, it } from 'vitest';
import { interpret } from '../../../src/interp/interpret.js';
import { parsePolicy } from '../../../src/gen/policy.js';
import { programFlow } from '../../../src/ir/flow.js';
import type { Program } from '../../../src/ir/nodes.js';
import { structuralError } from '../../../src/ir/validate.js';
import { reduceIR } from '../../../src/reduce/ir/engine.js';
import { irPasses } from '../../../src/reduce/ir/passes.js';
import { generateProgram } from '../../../src/repair/generate.js';
import { plainC } from '../../support/cc.js';

// Goto regions everywhere; small programs (no entry regions) keep the candidates few.
const REGIONS = plainC(parsePolicy({ statements: { region: 30 }, policies: { swarm: 0 } }, 'small'));
const straighten = irPasses().find((p) => p.name === 'straighten-gotos')!;

function outputOf(p: Program): string {
  const r = interpret(p);
  if (!r.ok) throw new Error(`UB: ${r.ub.kind}`);
  return r.output.trimEnd();
}

describe('straighten-gotos', () => {
  it('gives candidates that keep the program, with one goto fewer each', () => {
    let candidates = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const g = generateProgram(seed, REGIONS);
      if (!g.ok) continue;
      const gotos = programFlow(g.program).gotos;
      const run = interpret(g.program);
      const cands = straighten.candidates({ program: g.program, profile: run.profile } as never);
      for (const make of cands) {
        const p = make();
        if (!p) continue;
        candidates++;
        expect(structuralError(p), `seed ${seed}`).toBeUndefined();
        expect(outputOf(p), `seed ${seed}`).toBe(g.expected.trimEnd());
        expect(programFlow(p).gotos, `seed ${seed}`).toBe(gotos - 1);
      }
    }
    expect(candidates).toBeGreaterThan(10);
  });

  it('turns a region back into structured code when only the output matters', async () => {
    let before = 0;
    let after = 0;
    for (let seed = 1; seed <= 3; seed++) {
      const g = generateProgram(seed, REGIONS);
      if (!g.ok) continue;
      const r = await reduceIR(g.program, async (c) => c.expected === g.expected, {
        jobs: 1,
        passes: [straighten],
      });
      expect(outputOf(r.best.program)).toBe(g.expected.trimEnd());
      before += programFlow(g.program).gotos;
      after += programFlow(r.best.program).gotos;
    }
    expect(after).toBeLessThan(before * 0.8);
  });
});
