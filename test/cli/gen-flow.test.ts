// `kiln gen --json` reports each program's control-flow measure (src/ir/flow.ts) as `flow`:
// whole counts, consistent with each other and with the rest of the line.
import { describe, expect, it } from 'vitest';
import { generateOne } from '../../src/cli/gen-files.js';
import { parsePolicy } from '../../src/gen/policy.js';

const FIELDS = [
  'functions',
  'backEdges',
  'naturalLoops',
  'irreducibleLoops',
  'gotoIntoLoops',
  'maxLoopNesting',
  'gotos',
  'indirectGotos',
  'executedGotos',
  'executedIndirectGotos',
];

describe('kiln gen --json: flow', () => {
  it('gives every figure as a whole count, consistent with the others', () => {
    const policy = parsePolicy({}, 'small');
    let gotos = 0;
    for (let seed = 1n; seed <= 4n; seed++) {
      let out = '';
      const ok = generateOne(seed, policy, 'csmith', undefined, true, { out: (t) => void (out += t), err: () => {} });
      if (!ok) continue;
      const line = JSON.parse(out) as { steps: number; functions: number; flow: Record<string, number> };
      const f = line.flow;
      expect(Object.keys(f).sort()).toEqual([...FIELDS].sort());
      for (const k of FIELDS) {
        expect(Number.isInteger(f[k]), k).toBe(true);
        expect(f[k], k).toBeGreaterThanOrEqual(0);
      }
      // `functions` of the line leaves main out; flow measures every function.
      expect(f.functions).toBe(line.functions + 1);
      const loops = f.naturalLoops! + f.irreducibleLoops!;
      // A graph has a cycle exactly when a depth-first search meets a back edge.
      expect(f.backEdges! > 0).toBe(loops > 0);
      expect(f.maxLoopNesting).toBeLessThanOrEqual(loops);
      expect(f.maxLoopNesting! > 0).toBe(loops > 0);
      // Every goto executed is a step of the run; a program without gotos executes none.
      expect(f.executedGotos! + f.executedIndirectGotos!).toBeLessThanOrEqual(line.steps);
      if (f.gotos === 0) expect(f.executedGotos).toBe(0);
      if (f.indirectGotos === 0) expect(f.executedIndirectGotos).toBe(0);
      gotos += f.gotos!;
    }
    expect(gotos).toBeGreaterThan(0);
  });
});
