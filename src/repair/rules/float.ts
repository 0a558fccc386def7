import type { Expr, Node } from '../../ir/nodes.js';
import { isExpr, sameAccess } from '../../ir/nodes.js';
import { sameType, unqualified, type Type } from '../../ir/types.js';
import { isFloatVector } from '../../ir/vector.js';
import type { UBReport } from '../../interp/interpret.js';
import { zeroOf, type Editor } from '../edit.js';
import { repaired, type Repaired } from '../state.js';

/**
 * Floating-point sites (csmith mode with `features.floats`). The interpreter holds floating values
 * to Nagai et al.'s exactness rule: every value an integer the type represents exactly, so the
 * expected output needs no tolerance. A site that breaks it (an inexact result or conversion, a
 * conversion to an integer type out of range, a division by zero) is rewritten:
 * an arithmetic operation becomes its operand of the same type (exact by induction), anything
 * else becomes zero of its type. Vectors of floating lanes alike: `a * b` becomes `a` (or `b`),
 * a `__builtin_convertvector` a vector of zeros. Arith mode avoids these sites while building instead (B3/B4).
 */
export function repairFloat(ed: Editor, ub: UBReport): Repaired | undefined {
  let n: Node | undefined = ed.find(ub.node);
  if (!n || !isExpr(n)) return undefined;
  // An assignment's target cannot become a value: rewrite the assignment itself.
  const parent = ed.parent(n.id);
  if (parent?.kind === 'assign' && parent.target === n) n = parent;
  const e = n as Expr;
  if (e.kind === 'binary' && floating(e.type)) {
    // Not the operand an assignment stores to: `x = x` is clang's -Wself-assign.
    const target = parent?.kind === 'assign' && parent.value === e ? parent.target : undefined;
    for (const operand of [e.left, e.right]) {
      if (sameType(unqualified(operand.type), unqualified(e.type)) && !(target && sameAccess(target, operand)))
        return repaired(
          ed.replace(e.id, () => operand),
          'float-keep-operand',
        );
    }
  }
  const t = unqualified(e.type);
  if (t.kind !== 'int' && t.kind !== 'float' && t.kind !== 'vector') return undefined;
  return repaired(
    ed.replace(e.id, () => zeroOf(ed, t)),
    'float-replace-with-zero',
  );
}

/** Whether a report is about floating-point arithmetic or conversion, which `repairFloat` handles. */
export function isFloatSite(ed: Editor, ub: UBReport): boolean {
  if (ub.kind === 'float-inexact' || ub.kind === 'float-to-int-overflow') return true;
  if (ub.kind !== 'division-by-zero') return false;
  const n = ed.find(ub.node);
  return !!n && n.kind === 'binary' && (floating(n.left.type) || floating(n.right.type));
}

/** A floating type, or a vector of floating lanes. */
function floating(t: Type): boolean {
  return t.kind === 'float' || (t.kind === 'vector' && isFloatVector(t));
}
