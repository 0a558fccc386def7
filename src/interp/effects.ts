import type { Expr } from '../ir/nodes.js';

/**
 * Static facts that decide where the interpreter must record accesses for the sequencing checks
 * (ARCHITECTURE.md, "The interpreter", Sequencing). Checking costs time, so only operator nodes
 * whose operands could conflict are checked: one operand has a side effect (assignment, ++/--, a
 * call, or a volatile access) and the other touches memory at all.
 */
export class EffectAnalysis {
  private readonly effect = new WeakMap<Expr, boolean>();
  private readonly access = new WeakMap<Expr, boolean>();

  /** Whether evaluating `e` may have a side effect (including volatile reads and anything a call does). */
  hasEffect(e: Expr): boolean {
    let r = this.effect.get(e);
    if (r !== undefined) return r;
    switch (e.kind) {
      case 'assign':
      case 'incdec':
      case 'call':
        r = true;
        break;
      case 'const':
      case 'null':
        r = false;
        break;
      case 'var':
        r = !!e.type.volatile;
        break;
      case 'index':
        r = !!e.type.volatile || this.hasEffect(e.base) || this.hasEffect(e.index);
        break;
      case 'field':
        r = !!e.type.volatile || this.hasEffect(e.base);
        break;
      case 'deref':
        r = !!e.type.volatile || this.hasEffect(e.ptr);
        break;
      case 'addr':
        r = this.addressEffect(e.target);
        break;
      case 'unary':
      case 'cast':
        r = this.hasEffect(e.operand);
        break;
      case 'binary':
      case 'comma':
        r = this.hasEffect(e.left) || this.hasEffect(e.right);
        break;
      case 'cond':
        r = this.hasEffect(e.cond) || this.hasEffect(e.then) || this.hasEffect(e.else);
        break;
      case 'safe':
        r = this.hasEffect(e.left) || (e.right !== undefined && this.hasEffect(e.right));
        break;
      case 'vec':
        r = e.args.some((a) => this.hasEffect(a));
        break;
    }
    this.effect.set(e, r);
    return r;
  }

  /** Whether evaluating `e` reads or writes any object. */
  hasAccess(e: Expr): boolean {
    let r = this.access.get(e);
    if (r !== undefined) return r;
    switch (e.kind) {
      case 'const':
      case 'null':
        r = false;
        break;
      case 'addr':
        r = this.addressAccess(e.target);
        break;
      case 'var':
      case 'index':
      case 'field':
      case 'deref':
      case 'assign':
      case 'incdec':
      case 'call':
        r = true;
        break;
      case 'unary':
      case 'cast':
        r = this.hasAccess(e.operand);
        break;
      case 'binary':
      case 'comma':
        r = this.hasAccess(e.left) || this.hasAccess(e.right);
        break;
      case 'cond':
        r = this.hasAccess(e.cond) || this.hasAccess(e.then) || this.hasAccess(e.else);
        break;
      case 'safe':
        r = this.hasAccess(e.left) || (e.right !== undefined && this.hasAccess(e.right));
        break;
      case 'vec':
        r = e.args.some((a) => this.hasAccess(a));
        break;
    }
    this.access.set(e, r);
    return r;
  }

  /** Whether computing the address of lvalue `lv` (not accessing it) touches memory. */
  addressAccess(lv: Expr): boolean {
    switch (lv.kind) {
      case 'var':
        return false;
      case 'field':
        return this.addressAccess(lv.base);
      case 'index':
        return this.addressAccess(lv.base) || this.hasAccess(lv.index);
      case 'deref':
        return this.hasAccess(lv.ptr);
      default:
        return this.hasAccess(lv);
    }
  }

  /** Whether computing the address of lvalue `lv` has a side effect. */
  addressEffect(lv: Expr): boolean {
    switch (lv.kind) {
      case 'var':
        return false;
      case 'field':
        return this.addressEffect(lv.base);
      case 'index':
        return this.addressEffect(lv.base) || this.hasEffect(lv.index);
      case 'deref':
        return this.hasEffect(lv.ptr);
      default:
        return this.hasEffect(lv);
    }
  }

  /** Whether two unsequenced operands could conflict. */
  mayConflict(a: { effect: boolean; access: boolean }, b: { effect: boolean; access: boolean }): boolean {
    return (a.effect && b.access) || (b.effect && a.access);
  }

  /** Effect/access summary of an rvalue operand. */
  summary(e: Expr): { effect: boolean; access: boolean } {
    return { effect: this.hasEffect(e), access: this.hasAccess(e) };
  }

  /** Effect/access summary of an lvalue's address computation. */
  addressSummary(lv: Expr): { effect: boolean; access: boolean } {
    return { effect: this.addressEffect(lv), access: this.addressAccess(lv) };
  }

  /**
   * Whether the node itself performs a sequencing check when evaluated (its operands are unsequenced and may conflict).
   */
  checkAt(e: Expr): boolean {
    switch (e.kind) {
      case 'binary':
        if (e.op === '&&' || e.op === '||') return false;
        return this.mayConflict(this.summary(e.left), this.summary(e.right));
      case 'safe':
        return e.right !== undefined && this.mayConflict(this.summary(e.left), this.summary(e.right));
      case 'index':
        return this.mayConflict(this.addressSummary(e.base), this.summary(e.index));
      case 'assign': {
        const target = { effect: this.addressEffect(e.target), access: e.op !== '=' || this.addressAccess(e.target) };
        return this.mayConflict(target, this.summary(e.value)) || this.storeCheck(e);
      }
      case 'call':
      case 'vec':
        for (let i = 0; i < e.args.length; i++) {
          for (let j = i + 1; j < e.args.length; j++) {
            if (this.mayConflict(this.summary(e.args[i]!), this.summary(e.args[j]!))) return true;
          }
        }
        return false;
      default:
        return false;
    }
  }

  /** Whether an assignment's store must be checked against direct side effects of its operands. */
  storeCheck(e: Expr & { kind: 'assign' }): boolean {
    return this.addressEffect(e.target) || directWrite(e.value);
  }

  /** Whether a full expression contains any node that performs a sequencing check. */
  needsCheck(e: Expr): boolean {
    let r = this.full.get(e);
    if (r !== undefined) return r;
    r = this.checkAt(e);
    if (!r) {
      const kids = subexprs(e);
      for (const k of kids) {
        if (this.needsCheck(k)) {
          r = true;
          break;
        }
      }
    }
    this.full.set(e, r);
    return r;
  }

  private readonly full = new WeakMap<Expr, boolean>();
}

/**
 * Whether an expression writes memory other than inside a call (assignment or ++/--). Side
 * effects of a call's arguments are complete before the call returns, so they are sequenced
 * before any enclosing store.
 */
function directWrite(e: Expr): boolean {
  if (e.kind === 'assign' || e.kind === 'incdec') return true;
  if (e.kind === 'call') return false;
  return subexprs(e).some(directWrite);
}

function subexprs(e: Expr): Expr[] {
  switch (e.kind) {
    case 'const':
    case 'null':
    case 'var':
      return [];
    case 'index':
      return [e.base, e.index];
    case 'field':
      return [e.base];
    case 'deref':
      return [e.ptr];
    case 'addr':
      return [e.target];
    case 'unary':
    case 'cast':
      return [e.operand];
    case 'binary':
    case 'comma':
      return [e.left, e.right];
    case 'cond':
      return [e.cond, e.then, e.else];
    case 'call':
    case 'vec':
      return [...e.args];
    case 'assign':
      return [e.target, e.value];
    case 'incdec':
      return [e.target];
    case 'safe':
      return e.right ? [e.left, e.right] : [e.left];
  }
}
