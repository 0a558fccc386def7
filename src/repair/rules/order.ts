import type { CallExpr, Expr, Node } from '../../ir/nodes.js';
import { isExpr } from '../../ir/nodes.js';
import { hasConstMember, isRecord, unqualified } from '../../ir/types.js';
import type { UBReport } from '../../interp/interpret.js';
import { childExprs, pure, zeroOf, type Editor } from '../edit.js';
import { repaired, type Repaired } from '../state.js';
import { globalOfType } from './memory.js';

/**
 * Evaluation-order UB and unspecified order (ARCHITECTURE.md, "The interpreter", Sequencing): two
 * unsequenced operands conflict, or a call's effects make the result depend on the order the
 * compiler picks.
 *
 * First choice: hoist a call out of the conflicting operand into a temporary assigned just
 * before the statement (`t = g(); x = t + h();`). Otherwise the operand with the side effect is
 * replaced by a side-effect-free value of its type.
 */
export function repairOrder(ed: Editor, ub: UBReport): Repaired | undefined {
  const n = ed.find(ub.node);
  if (!n || !isExpr(n)) return undefined;
  const ops = (ub.detail?.operands ?? []).map((id) => ed.find(id)).filter((x): x is Node => !!x && isExpr(x)) as Expr[];
  // Prefer the right operand: the left usually reads what the right writes.
  const candidates = [...ops].reverse();
  for (const op of candidates) {
    const call = outermostCall(op);
    if (call) {
      const hoisted = hoistCall(ed, n.id, call);
      if (hoisted) return hoisted;
    }
  }
  // Operands in lvalue position (an assignment's target, the base of a[i]) cannot become values;
  // their index and pointer subexpressions can.
  const parts = candidates.flatMap((op) => rvalueParts(op, inLvaluePosition(ed, op)));
  for (const part of [...parts.filter((p) => !pure(p)), ...parts]) {
    const replacement = pureValue(ed, part);
    if (replacement)
      return repaired(
        ed.replace(part.id, () => replacement),
        'replace-effectful-operand',
      );
  }
  return undefined;
}

/** Whether an expression is used as an object (not a value) by its parent. */
function inLvaluePosition(ed: Editor, e: Expr): boolean {
  const p = ed.parent(e.id);
  if (!p) return false;
  switch (p.kind) {
    case 'assign':
    case 'incdec':
    case 'addr':
      return p.target.id === e.id;
    case 'index':
    case 'field':
      return p.base.id === e.id;
    default:
      return false;
  }
}

/** The subexpressions of `e` that are evaluated as values (all of `e` unless it designates an object). */
function rvalueParts(e: Expr, lvalue: boolean): Expr[] {
  if (!lvalue) return [e];
  switch (e.kind) {
    case 'index':
      return [...rvalueParts(e.base, true), e.index];
    case 'field':
      return rvalueParts(e.base, true);
    case 'deref':
      return [e.ptr];
    default:
      return [];
  }
}

/** The first call met in a pre-order walk that is not inside another call (its arguments are evaluated with it). */
function outermostCall(e: Expr): CallExpr | undefined {
  if (e.kind === 'call') return e;
  for (const c of childExprs(e)) {
    const r = outermostCall(c);
    if (r) return r;
  }
  return undefined;
}

/**
 * `S(… call …)` → `t = call; S(… t …)`, with `t` a new local of the block holding S. Only for
 * statements whose expression runs once per execution of the statement: expression statements,
 * returns, if conditions, checksum statements, computed gotos' indices, and for-loop initialisers.
 */
function hoistCall(ed: Editor, at: number, call: CallExpr): Repaired | undefined {
  const stmt = ed.statementOf(at);
  if (!stmt) return undefined;
  const inOnceEvaluatedPart = (() => {
    switch (stmt.kind) {
      case 'expr':
      case 'return':
      case 'hash':
      case 'check':
      case 'igoto':
        return true;
      case 'if':
      case 'switch':
        return contains(stmt.cond, call.id);
      case 'for':
        return stmt.init !== undefined && contains(stmt.init, call.id);
      default:
        return false;
    }
  })();
  if (!inOnceEvaluatedPart) return undefined;
  const t = unqualified(call.type);
  if (t.kind === 'void' || t.kind === 'array') return undefined;
  // A record with const members cannot be assigned to a temporary.
  if (isRecord(t) && hasConstMember(t)) return undefined;
  const tmp = ed.b.local(`t_${ed.b.nextId}`, t);
  const assign = ed.b.stmt(ed.b.assign(ed.b.v(tmp), call));
  const program = ed.insertBefore(stmt.id, [assign], [tmp], new Map([[call.id, () => ed.b.v(tmp)]]));
  return program ? repaired(program, 'hoist-call-to-temporary') : undefined;
}

function contains(e: Expr, id: number): boolean {
  if (e.id === id) return true;
  return childExprs(e).some((c) => contains(c, id));
}

/** A side-effect-free stand-in for an operand: a zero of its scalar type, or a global of its record type. */
function pureValue(ed: Editor, e: Expr): Expr | undefined {
  const t = e.type;
  if (t.kind === 'int' || t.kind === 'float' || t.kind === 'ptr' || t.kind === 'vector') return zeroOf(ed, t);
  if (isRecord(t)) {
    const g = globalOfType(ed, t);
    return g ? ed.b.v(g) : undefined;
  }
  return undefined;
}
