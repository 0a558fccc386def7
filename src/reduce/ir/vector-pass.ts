import { IRBuilder } from '../../ir/build.js';
import type { Expr, Program, Stmt } from '../../ir/nodes.js';
import { isCompare } from '../../c/ops.js';
import { unqualified, type VectorT } from '../../ir/types.js';
import { replaceNode, walk } from '../../ir/visit.js';
import type { IRPass } from './candidate.js';

/**
 * Scalarises whole-vector statements: `v = a op b;` becomes `{ v[0] = (T)(a[0] op b[0]); … }`,
 * one lane statement per lane, when the operands are objects, lane lists or broadcast scalars
 * without side effects (a comparison's lane is `-(a[i] < b[i])`, the mask's -1); or, as the
 * engine takes only smaller programs and a statement per lane is rarely smaller, `v[k] = …` for
 * one lane k (the other lanes keep their values: the candidate's output is its own, and the test
 * judges it). A finding that needs the vector operation keeps it (the test fails on the
 * candidate); one that does not loses a vector for scalar code a reader follows more easily. The
 * scalar lanes compute in the promoted type and convert back, which equals the vector's lane for
 * every clean (UB-free) run; the interpreter re-checks every candidate anyway.
 */
export const scalariseVectors: IRPass = {
  name: 'scalarise-vectors',
  candidates({ program }) {
    const out: (() => Program | undefined)[] = [];
    for (const f of program.funcs) {
      walk(f.body, (n) => {
        if (n.kind !== 'expr' || n.expr.kind !== 'assign' || n.expr.op !== '=') return;
        const { target, value } = n.expr;
        if (target.type.kind !== 'vector' || !sideEffectFree(target)) return;
        const t = unqualified(target.type);
        const lanes = (which: readonly number[]) => () => {
          const b = IRBuilder.continuing(program);
          const stmts: Stmt[] = [];
          for (const i of which) {
            const lane = laneValue(b, value, i);
            if (!lane) return undefined;
            const cast = lane.type.kind === 'int' && lane.type.name === t.of.name ? lane : b.cast(t.of, lane);
            stmts.push(b.stmt(b.assign(b.idx(b.copy(target), b.lit(i)), cast)));
          }
          return { ...replaceNode(program, n.id, () => b.block(stmts)), nextId: b.nextId };
        };
        out.push(lanes(Array.from({ length: t.lanes }, (_, i) => i)));
        for (let k = 0; k < t.lanes; k++) out.push(lanes([k]));
      });
    }
    return out;
  },
};

/** Lane `i` of a vector value as a scalar expression, or undefined for a value this pass leaves alone. */
function laneValue(b: IRBuilder, e: Expr, i: number): Expr | undefined {
  if (e.type.kind !== 'vector') return sideEffectFree(e) ? b.copy(e) : undefined;
  switch (e.kind) {
    case 'var':
    case 'field':
    case 'index':
    case 'deref':
      return sideEffectFree(e) ? b.idx(b.copy(e), b.lit(i)) : undefined;
    case 'vec':
      return e.op === 'lanes' && sideEffectFree(e.args[i]!) ? b.copy(e.args[i]!) : undefined;
    case 'unary': {
      const x = laneValue(b, e.operand, i);
      return x && b.un(e.op, x);
    }
    case 'binary': {
      if (e.op === '&&' || e.op === '||') return undefined;
      const l = laneValue(b, e.left, i);
      const r = l && laneValue(b, e.right, i);
      if (!l || !r) return undefined;
      // A shift's count lane has the lane type (no promotion changes its value).
      const x = b.bin(e.op, l, r);
      return isCompare(e.op) ? b.cast((e.type as VectorT).of, b.un('-', x)) : x;
    }
    default:
      return undefined;
  }
}

/** Whether evaluating `e` has no side effect (no assignment, ++/--, call or volatile access). */
function sideEffectFree(e: Expr): boolean {
  let ok = true;
  walk(e, (n) => {
    if (n.kind === 'assign' || n.kind === 'incdec' || n.kind === 'call') ok = false;
    else if ('type' in n && (n.type as { volatile?: boolean } | undefined)?.volatile) ok = false;
    return ok;
  });
  return ok;
}
