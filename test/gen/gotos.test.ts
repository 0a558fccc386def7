import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/gen/policy.js';
import { generateRaw } from '../../src/gen/program.js';
import type { Program } from '../../src/ir/nodes.js';
import { walk } from '../../src/ir/visit.js';
import { generateProgram } from '../../src/repair/generate.js';

/** Gotos whose label comes before them in the function's text (jumps backward). */
function backwardGotos(p: Program): number {
  let n = 0;
  for (const f of p.funcs) {
    const at = new Map<number, number>();
    const gotos: { label: number; at: number }[] = [];
    let i = 0;
    walk(f, (x) => {
      i++;
      if (x.kind === 'label') at.set(x.id, i);
      if (x.kind === 'goto') gotos.push({ label: x.label, at: i });
    });
    for (const g of gotos) if ((at.get(g.label) ?? Infinity) < g.at) n++;
  }
  return n;
}

describe('goto labels', () => {
  // With no backward gotos asked for, every label goes after the statement holding its goto, also
  // when one block receives several labels (each one inserted shifts the statements after it).
  // The goto regions of features.cfg have counted backward gotos of their own (test/gen/cfg.test.ts).
  const policy = parsePolicy({ choices: { backwardGoto: 0 }, statements: { goto: 20 }, features: { cfg: false } });

  it('raw programs jump forward only', () => {
    let gotos = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const p = generateRaw(seed, policy);
      walk({ kind: 'block', id: -1, locals: [], stmts: p.funcs.map((f) => f.body) } as never, (x) => {
        if (x.kind === 'goto') gotos++;
      });
      expect(backwardGotos(p), `seed ${seed}`).toBe(0);
    }
    expect(gotos).toBeGreaterThan(100);
  });

  it('programs extended where they ran jump forward only', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const r = generateProgram(seed, policy);
      expect(r.ok).toBe(true);
      if (r.ok) expect(backwardGotos(r.program), `seed ${seed}`).toBe(0);
    }
  });
});
