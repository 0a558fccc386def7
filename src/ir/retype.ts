import { binaryResultType, unaryResultType } from '../c/eval.js';
import { isCompare, isShift } from '../c/ops.js';
import { C, promote, usualArithmetic, type IntType } from '../c/types.js';
import { fieldExprType, IRTypeError } from './build.js';
import { isExpr, type Expr, type FuncDecl, type Node, type Program, type VarDecl } from './nodes.js';
import { isArith, isRecord, pointerTo, qualifyMember, sameType, unqualified, type Type } from './types.js';
import { mapChildren } from './visit.js';

/**
 * Recomputes every expression's type bottom-up from the declarations (after a rewrite changed a
 * variable's or function's type), with the builder's typing rules. Throws {@link IRTypeError}
 * when the program no longer type-checks (callers treat that candidate as invalid).
 */
export function retypeProgram(p: Program): Program {
  const decls = new Map<number, Type>();
  const funcs = new Map<number, FuncDecl>();
  const collect = (n: Node): void => {
    if (n.kind === 'var-decl') decls.set(n.id, n.type);
    mapChildren(n, (c) => {
      collect(c);
      return c;
    });
  };
  for (const g of p.globals) collect(g);
  for (const f of p.funcs) {
    funcs.set(f.id, f);
    collect(f);
  }
  const rec = (n: Node): Node => {
    const m = mapChildren(n, rec);
    return isExpr(m) ? ({ ...m, type: typeOf(m, decls, funcs) } as Expr) : m;
  };
  return {
    ...p,
    globals: p.globals.map((g) => rec(g) as VarDecl),
    funcs: p.funcs.map((f) => rec(f) as FuncDecl),
  };
}

function fail(message: string): never {
  throw new IRTypeError(message);
}

/** The type of an expression whose children already carry correct types. */
function typeOf(e: Expr, decls: ReadonlyMap<number, Type>, funcs: ReadonlyMap<number, FuncDecl>): Type {
  switch (e.kind) {
    case 'const':
    case 'null':
    case 'cast':
      return e.type;
    case 'var': {
      const t = decls.get(e.decl);
      if (!t) fail(`variable ${e.decl} is not declared`);
      return t;
    }
    case 'index': {
      const bt = e.base.type;
      if (bt.kind !== 'array') fail('indexing a non-array');
      return qualifyMember(bt.of, { const: !!bt.const, volatile: !!bt.volatile });
    }
    case 'field': {
      const bt = e.base.type;
      if (!isRecord(bt)) fail('member access on a non-record');
      const f = bt.fields[e.field];
      if (!f) fail('no such field');
      return fieldExprType(bt, f);
    }
    case 'deref':
      if (e.ptr.type.kind !== 'ptr') fail('dereferencing a non-pointer');
      return e.ptr.type.to;
    case 'addr':
      return pointerTo(e.target.type);
    case 'unary':
      if (e.op === '!') return C.int;
      if (!isArith(e.operand.type)) fail(`unary ${e.op} on a non-arithmetic operand`);
      return unaryResultType(e.op, unqualified(e.operand.type));
    case 'binary': {
      if (e.op === '&&' || e.op === '||' || isCompare(e.op)) return C.int;
      if (!isArith(e.left.type) || !isArith(e.right.type)) fail(`operator ${e.op} on non-arithmetic operands`);
      return binaryResultType(e.op, unqualified(e.left.type), unqualified(e.right.type));
    }
    case 'cond': {
      const a = e.then.type;
      const b = e.else.type;
      if (isArith(a) && isArith(b)) return usualArithmetic(unqualified(a), unqualified(b));
      if (sameType(unqualified(a), unqualified(b))) return unqualified(a);
      return fail('?: arms have incompatible types');
    }
    case 'call': {
      const f = funcs.get(e.func);
      if (!f) fail(`call to unknown function ${e.func}`);
      if (f.params.length !== e.args.length) fail('argument count mismatch');
      return unqualified(f.ret);
    }
    case 'assign':
    case 'incdec':
      return unqualified(e.target.type);
    case 'comma':
      return e.right.type;
    case 'safe': {
      const lt = unqualified(e.left.type);
      if (lt.kind !== 'int') fail('safe-math on a non-integer');
      if (e.op === 'neg' || isShift(e.op as '<<')) return promote(lt as IntType);
      const rt = unqualified(e.right!.type);
      if (rt.kind !== 'int') fail('safe-math on a non-integer');
      return usualArithmetic(lt as IntType, rt as IntType);
    }
  }
}
