import { binaryResultType, unaryResultType } from '../c/eval.js';
import { isCompare, isIntegerOnly, isShift } from '../c/ops.js';
import { C, promote, usualArithmetic, type IntType } from '../c/types.js';
import { fieldExprType, isBitfieldAccess, IRTypeError, pointerConvertible } from './build.js';
import {
  isExpr,
  isLvalue,
  type Expr,
  type FuncDecl,
  type Init,
  type Node,
  type Program,
  type VarDecl,
} from './nodes.js';
import {
  isArith,
  isRecord,
  isScalar,
  namedFields,
  pointerTo,
  qualifyMember,
  sameType,
  unqualified,
  type Type,
} from './types.js';
import { vectorExprType, vectorNodeError } from './vector.js';
import { mapChildren, walk } from './visit.js';

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
  const vt = vectorExprType(e);
  if (vt) return vt;
  switch (e.kind) {
    case 'const':
    case 'null':
    case 'cast':
    case 'vec':
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

/**
 * The first place where a program whose expression types are current (see {@link retypeProgram})
 * breaks the typing rules the builder enforces, or undefined. A rewrite that changes a
 * declaration's type (a reducer's `uint64_t g` → `int g`) leaves the expressions that use it
 * retyped but not the contexts they flow into: `&g` is now an `int *`, and a `uint64_t *` field
 * initialised with it is an incompatible-pointer-types error since GCC 14. The interpreter does
 * not see it (byte layout never matters to it), so this check is what keeps such a candidate out.
 * Checked: initialisers (element by element), assignments, arguments, return statements (value
 * and presence), pointer comparisons, conditions, casts, dereferences and addresses.
 */
export function typeError(p: Program): string | undefined {
  const registers = new Set<number>();
  const funcs = new Map<number, FuncDecl>();
  for (const f of p.funcs) {
    funcs.set(f.id, f);
    walk(f, (n) => {
      if (n.kind === 'var-decl' && n.isRegister) registers.add(n.id);
    });
  }
  try {
    for (const g of p.globals) checkDecl(g);
    for (const f of p.funcs) {
      for (const param of f.params)
        if (!isScalar(param.type) && !isRecord(param.type) && param.type.kind !== 'vector')
          fail(`${f.name}: parameter ${param.name} is not a scalar or record`);
      walk(f.body, (n) => checkNode(n, f, funcs, registers));
    }
  } catch (e) {
    if (e instanceof IRTypeError) return e.message;
    throw e;
  }
  return undefined;
}

function checkDecl(d: VarDecl): void {
  if (d.init) checkInit(d.type, d.init, d.name);
}

function checkInit(t: Type, init: Init, what: string): void {
  if (init.kind !== 'init-list') {
    if (t.kind === 'array') fail(`${what}: an array initialised by an expression`);
    assignable(t, init, what);
    return;
  }
  if (t.kind === 'vector') {
    if (init.items.length > t.lanes) fail(`${what}: ${init.items.length} initialisers for ${t.lanes} lanes`);
    for (const [i, item] of init.items.entries()) checkInit(t.of, item, `${what}[${i}]`);
  } else if (t.kind === 'array') {
    if (init.items.length > t.length) fail(`${what}: ${init.items.length} initialisers for ${t.length} elements`);
    for (const [i, item] of init.items.entries()) checkInit(t.of, item, `${what}[${i}]`);
  } else if (t.kind === 'struct') {
    const fields = namedFields(t);
    if (init.items.length > fields.length) fail(`${what}: too many initialisers for struct ${t.name}`);
    for (const [i, item] of init.items.entries()) {
      checkInit(fieldExprType(t, fields[i]!.field), item, `${what}.${fields[i]!.field.name}`);
    }
  } else if (t.kind === 'union') {
    if (init.items.length > 1) fail(`${what}: more than one initialiser for union ${t.name}`);
    if (init.items[0]) checkInit(fieldExprType(t, t.fields[0]!), init.items[0], `${what}.${t.fields[0]!.name}`);
  } else {
    if (init.items.length !== 1 || init.items[0]!.kind === 'init-list') fail(`${what}: a scalar needs one initialiser`);
    checkInit(t, init.items[0]!, what);
  }
}

/**
 * Whether `value` may be stored in an object of type `target` without a diagnostic: the builder's
 * rule, except that the null pointer (printed `(void*)0`) converts to every pointer type.
 */
function assignable(target: Type, value: Expr, what: string): void {
  const t = unqualified(target);
  const vt = unqualified(value.type);
  if (isArith(t)) {
    if (!isArith(vt)) fail(`${what}: ${vt.kind} stored in an arithmetic object`);
  } else if (t.kind === 'ptr') {
    if (vt.kind !== 'ptr') fail(`${what}: ${vt.kind} stored in a pointer`);
    if (!isNullValue(value) && !pointerConvertible(vt, t)) fail(`${what}: incompatible pointer types`);
  } else if (isRecord(t) || t.kind === 'vector') {
    if (vt.kind !== t.kind || !sameType(t, vt)) fail(`${what}: ${t.kind} type mismatch`);
  } else fail(`${what}: cannot store into ${t.kind}`);
}

/** Whether an expression is printed as `(void*)0` (a null pointer constant, in C's terms). */
function isNullValue(e: Expr): boolean {
  return e.kind === 'null' || (e.kind === 'comma' && isNullValue(e.right));
}

function checkNode(n: Node, f: FuncDecl, funcs: ReadonlyMap<number, FuncDecl>, registers: ReadonlySet<number>): void {
  const vectorError = vectorNodeError(n);
  if (vectorError) fail(vectorError);
  if (vectorError === null) return;
  switch (n.kind) {
    case 'var-decl':
      return checkDecl(n);
    case 'return':
      if (f.ret.kind === 'void') {
        if (n.value) fail(`${f.name}: return with a value in a void function`);
      } else if (!n.value) fail(`${f.name}: return without a value in a function returning ${f.ret.kind}`);
      else assignable(f.ret, n.value, `${f.name}: return`);
      return;
    case 'if':
      if (!isScalar(n.cond.type)) fail('if condition is not a scalar');
      return;
    case 'for':
      if (n.cond && !isScalar(n.cond.type)) fail('loop condition is not a scalar');
      return;
    case 'switch':
      if (n.cond.type.kind !== 'int') fail('switch on a non-integer');
      return;
    case 'igoto':
      if (n.index.type.kind !== 'int') fail('indirect goto with a non-integer index');
      return;
    case 'hash':
    case 'check':
      if (!isArith(n.value.type)) fail(`${n.kind} of a non-arithmetic value`);
      return;
    case 'assume':
      if (!isScalar(n.cond.type)) fail('assumption is not a scalar');
      return;
    case 'assign': {
      const tt = n.target.type;
      if (!isLvalue(n.target)) fail('assignment to a non-lvalue');
      if (tt.const) fail('assignment to a const object');
      if (tt.kind === 'array') fail('assignment to an array');
      if (n.op === '=') assignable(tt, n.value, 'assignment');
      else if (!isArith(tt) || !isArith(n.value.type)) fail(`${n.op} on non-arithmetic operands`);
      else if (
        n.op !== '+=' &&
        n.op !== '-=' &&
        n.op !== '*=' &&
        n.op !== '/=' &&
        (tt.kind !== 'int' || n.value.type.kind !== 'int')
      )
        fail(`${n.op} on non-integer operands`);
      return;
    }
    case 'incdec':
      if (!isLvalue(n.target) || n.target.type.kind !== 'int' || n.target.type.const)
        fail(`${n.op} on something other than a modifiable integer`);
      return;
    case 'call': {
      const callee = funcs.get(n.func);
      if (!callee) fail(`call to unknown function ${n.func}`);
      if (callee.params.length !== n.args.length)
        fail(`call to ${callee.name} passes ${n.args.length} arguments to ${callee.params.length} parameters`);
      for (const [i, a] of n.args.entries()) assignable(callee.params[i]!.type, a, `${callee.name}: argument ${i + 1}`);
      return;
    }
    case 'binary': {
      const lt = n.left.type;
      const rt = n.right.type;
      if (n.op === '&&' || n.op === '||') {
        if (!isScalar(lt) || !isScalar(rt)) fail(`${n.op} on non-scalar operands`);
      } else if (lt.kind === 'ptr' || rt.kind === 'ptr') {
        if (n.op !== '==' && n.op !== '!=') fail(`${n.op} on pointers`);
        if (lt.kind !== 'ptr' || rt.kind !== 'ptr') fail('comparison of a pointer with a non-pointer');
        if (!isNullValue(n.left) && !isNullValue(n.right) && !sameType(unqualified(lt.to), unqualified(rt.to)))
          fail('comparison of incompatible pointers');
      } else if (isIntegerOnly(n.op) && (lt.kind !== 'int' || rt.kind !== 'int'))
        fail(`${n.op} on non-integer operands`);
      return;
    }
    case 'unary':
      if (
        n.op === '!'
          ? !isScalar(n.operand.type)
          : !isArith(n.operand.type) || (n.op === '~' && n.operand.type.kind !== 'int')
      )
        fail(`unary ${n.op} on a ${n.operand.type.kind}`);
      return;
    case 'cast':
      if (!isArith(n.operand.type) || !isArith(n.type)) fail('a cast between non-arithmetic types');
      return;
    case 'deref':
      if (n.ptr.type.kind !== 'ptr' || n.ptr.type.to.kind === 'void')
        fail('dereference of a non-pointer or void pointer');
      return;
    case 'addr':
      if (!isLvalue(n.target)) fail('address of a non-lvalue');
      if (isBitfieldAccess(n.target)) fail('address of a bit-field');
      if (n.target.kind === 'var' && registers.has(n.target.decl)) fail('address of a register variable');
      return;
    default:
      return;
  }
}
