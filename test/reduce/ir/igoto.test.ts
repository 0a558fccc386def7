// The IR reducer's passes for computed gotos (`goto *tbl[i]`): plain-gotos turns one into a goto to
// the label its executions took (keeping the index's side effects when they matter), and
// drop-table-entries shrinks a table; the interpreter rejects every candidate that jumps elsewhere.
import { describe, expect, it } from 'vitest';
import { C } from '../../../src/c/types.js';
import { interpret } from '../../../src/interp/interpret.js';
import type { Program, Stmt } from '../../../src/ir/nodes.js';
import { indexProgram, walkProgram } from '../../../src/ir/visit.js';
import { reduceIR } from '../../../src/reduce/ir/engine.js';
import { irPasses } from '../../../src/reduce/ir/passes.js';
import { dispatchProgram } from '../../support/igoto.js';

function expectedOf(p: Program): string {
  const r = interpret(p);
  if (!r.ok) throw new Error(`UB: ${r.ub.kind}`);
  return r.output.trimEnd();
}

function statements(p: Program, kind: 'goto' | 'igoto'): Stmt[] {
  const out: Stmt[] = [];
  walkProgram(p, (n) => {
    if (n.kind === kind) out.push(n);
  });
  return out;
}

const only = (name: string) => irPasses().filter((x) => x.name === name);

describe('reducing computed gotos', () => {
  it('plain-gotos: a dispatch whose executions all went one way becomes a goto there', async () => {
    // ops 1 2 1 2 2 0: the first dispatch goes to add (once), the add handler's to double (twice),
    // the double handler's three ways. The index ops[pc++] has a side effect the output needs.
    const d = dispatchProgram([1, 2, 1, 2, 2, 0], 36n);
    const want = expectedOf(d.program);
    const r = await reduceIR(d.program, async (c) => c.expected === want, { jobs: 1, passes: only('plain-gotos') });
    const p = r.best.program;
    expect(expectedOf(p)).toBe(want);
    expect(statements(p, 'igoto').map((s) => s.id)).toEqual([d.igotos[2]!.id]);
    const labels = indexProgram(p).nodes;
    const targets = statements(p, 'goto').map((s) => s.kind === 'goto' && labels.get(s.label));
    expect(targets.map((l) => l && l.kind === 'label' && l.name)).toEqual(['lbl_add', 'lbl_double']);
    // The index still runs, as a statement before each goto.
    expect(r.best.source).toMatch(/g_ops\[\(?g_pc\+\+\)?\];\s*goto lbl_add;/);
  });

  it('drop-table-entries: one entry at index 0 where the executions took one; else what is never taken', async () => {
    // The first dispatch's index is the constant 1 (add); the add handler's reads ops[0] = 2 (double).
    const d = dispatchProgram([2, 0], 6n, (b) => b.lit(1, C.int32));
    const want = expectedOf(d.program);
    const r = await reduceIR(d.program, async (c) => c.expected === want && c.source.includes('goto *'), {
      jobs: 1,
      passes: only('drop-table-entries'),
    });
    const p = r.best.program;
    expect(expectedOf(p)).toBe(want);
    const [first, second, third] = statements(p, 'igoto').map((s) => (s.kind === 'igoto' ? s : undefined)!);
    const [end, add, dbl] = d.igotos[0]!.labels;
    expect(first!.labels).toEqual([add]);
    expect(first!.index).toMatchObject({ kind: 'const', value: 0n });
    // ops[pc++] must still advance pc (pc is hashed), so its index stays, and it takes entry 2:
    // no entry can go without moving that one.
    expect(second!.labels).toEqual([end, add, dbl]);
    expect(second!.index.kind).toBe('index');
    // The double handler's dispatch reads ops[1] = 0 (end): the entries after it go, the index stays.
    expect(third!.labels).toEqual([end]);
    expect(third!.index.kind).toBe('index');
  });
});
