// Live code has one definition: the statements of the test code, blocks, labels and `case` labels
// left out, and those the interpreter ran. `kiln gen --json`, `kiln stats` and the campaign
// report's sample all count through liveStats, so their figures agree.
import { describe, expect, it } from 'vitest';
import { liveStats } from '../../src/interp/live.js';
import { parsePolicy } from '../../src/gen/policy.js';
import type { Program } from '../../src/ir/nodes.js';
import { isStmt, walk } from '../../src/ir/visit.js';
import { generateProgram, type Generated } from '../../src/repair/generate.js';
import { measureSample } from '../../src/report/html/sample.js';

const policy = parsePolicy({}, 'small');
const SEEDS = Array.from({ length: 24 }, (_, i) => BigInt(i + 1));

/** Statement nodes of the test code (main left out) by kind. */
function kindsOf(p: Program): Map<string, number> {
  const kinds = new Map<string, number>();
  for (const f of p.funcs) {
    if (f.id === p.main) continue;
    walk(f.body, (n) => {
      if (!isStmt(n)) return false;
      kinds.set(n.kind, (kinds.get(n.kind) ?? 0) + 1);
    });
  }
  return kinds;
}

describe('live statements', () => {
  const generated = SEEDS.map((s) => ({ seed: s, g: generateProgram(s, policy, 'csmith') })).filter(
    (x): x is { seed: bigint; g: Generated } => x.g.ok,
  );

  it('the report sample counts live code exactly as liveStats does, on programs with switch cases and labels', () => {
    // The comparison only means something where the two definitions could differ.
    const withLabels = generated.filter(({ g }) => {
      const k = kindsOf(g.program);
      return (k.get('case') ?? 0) > 0 || (k.get('label') ?? 0) > 0;
    });
    expect(withLabels.length).toBeGreaterThan(0);
    const sample = measureSample(
      generated.map((x) => x.seed),
      policy,
      'csmith',
    );
    expect(sample.map((m) => m.seed)).toEqual(generated.map((x) => String(x.seed)));
    for (const [i, m] of sample.entries()) {
      const s = liveStats(generated[i]!.g.program, generated[i]!.g.profile);
      expect({ statements: m.statements, live: m.liveStatements }, `seed ${m.seed}`).toEqual({
        statements: s.statements,
        live: s.liveStatements,
      });
    }
  });

  it('leaves out blocks, labels and case labels, and counts every other statement once', () => {
    for (const { seed, g } of generated) {
      const k = kindsOf(g.program);
      const all = [...k.values()].reduce((a, b) => a + b, 0);
      const s = liveStats(g.program, g.profile);
      expect(s.statements, `seed ${seed}`).toBe(
        all - (k.get('block') ?? 0) - (k.get('label') ?? 0) - (k.get('case') ?? 0),
      );
      expect(s.liveStatements).toBeGreaterThan(0);
      expect(s.liveStatements).toBeLessThanOrEqual(s.statements);
    }
  });
});
