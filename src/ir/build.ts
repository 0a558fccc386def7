import { binaryResultType, unaryResultType } from '../c/eval.js';
import { isCompare, isIntegerOnly, isShift, type BinaryOp, type UnaryOp } from '../c/ops.js';
import { C, bitIntField, bitfieldType, fits, promote, usualArithmetic, type CTypes } from '../c/types.js';
import type {
  AssignExpr,
  AssignOp,
  Block,
  CallExpr,
  Expr,
  ForStmt,
  FuncDecl,
  IfStmt,
  IndirectGotoStmt,
  Init,
  InitList,
  Node,
  Program,
  ProgramMeta,
  SafeOp,
  Stmt,
  VarDecl,
} from './nodes.js';
import { isLvalue } from './nodes.js';
import { switchCases, transform } from './visit.js';
import {
  isArith,
  isRecord,
  isScalar,
  pointerTo,
  qualifyMember,
  sameType,
  unqualified,
  type Field,
  type FloatT,
  type IntT,
  type PointerT,
  type RecordT,
  type StructT,
  type Type,
  type UnionT,
} from './types.js';

/** A function's signature, enough to build calls before its body exists. */
export interface FuncSig {
  readonly id: number;
  readonly ret: Type;
  readonly params: readonly { readonly type: Type }[];
}

/** Thrown for an ill-typed IR construction (a programming error in a generator or rewrite). */
export class IRTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IRTypeError';
  }
}

function fail(message: string): never {
  throw new IRTypeError(message);
}

/**
 * Builds IR nodes with fresh ids and computed types, validating as it goes. One builder per
 * program: it owns the id counter (and the record id counter), so no state is global.
 */
export class IRBuilder {
  private next: number;
  private nextRecord: number;
  readonly types: CTypes;

  constructor(opts: { firstId?: number; firstRecordId?: number; types?: CTypes } = {}) {
    this.next = opts.firstId ?? 1;
    this.nextRecord = opts.firstRecordId ?? 0;
    this.types = opts.types ?? C;
  }

  /** A builder continuing the id space of an existing program (for rewrites). */
  static continuing(p: Program): IRBuilder {
    const maxRecord = p.records.reduce((m, r) => Math.max(m, r.id + 1), 0);
    return new IRBuilder({ firstId: p.nextId, firstRecordId: maxRecord });
  }

  /** Takes a fresh node id. */
  id(): number {
    return this.next++;
  }

  /** A copy of a subtree with fresh node ids (IR nodes are never shared). */
  copy<T extends Node>(n: T): T {
    return transform(n, (m) => ({ ...m, id: this.id() })) as T;
  }

  /** The next id this builder would hand out. */
  get nextId(): number {
    return this.next;
  }

  // ---- types --------------------------------------------------------------------------------

  /** A new struct type. */
  struct(name: string, fields: readonly Field[], packed = false): StructT {
    checkFields(name, fields, true);
    return Object.freeze({ kind: 'struct', id: this.nextRecord++, name, fields, ...(packed ? { packed: true } : {}) });
  }

  /** A new union type. */
  union(name: string, fields: readonly Field[]): UnionT {
    checkFields(name, fields, false);
    return Object.freeze({ kind: 'union', id: this.nextRecord++, name, fields });
  }

  // ---- declarations -------------------------------------------------------------------------

  /** A global variable. */
  global(name: string, type: Type, init?: Init, isStatic = true): VarDecl {
    return { kind: 'var-decl', id: this.id(), name, type, storage: 'global', init, isStatic };
  }

  /** A block-scope local. */
  local(name: string, type: Type, init?: Init): VarDecl {
    return { kind: 'var-decl', id: this.id(), name, type, storage: 'local', init };
  }

  /** A function parameter. */
  param(name: string, type: Type): VarDecl {
    if (!isScalar(type) && !isRecord(type) && type.kind !== 'vector')
      fail(`parameter ${name} must have scalar, record or vector type`);
    return { kind: 'var-decl', id: this.id(), name, type, storage: 'param', init: undefined };
  }

  /** An initialiser list. */
  list(items: readonly Init[]): InitList {
    return { kind: 'init-list', id: this.id(), items };
  }

  /** A function definition; pass `id` to define a function whose signature was reserved earlier. */
  func(
    name: string,
    ret: Type,
    params: readonly VarDecl[],
    body: Block,
    id?: number,
    isStatic = true,
    isInline = false,
  ): FuncDecl {
    return { kind: 'func', id: id ?? this.id(), name, ret, params, body, isStatic, ...(isInline ? { isInline } : {}) };
  }

  // ---- expressions --------------------------------------------------------------------------

  /** An integer constant of type `t` (the value must be representable). */
  lit(value: bigint | number, t: IntT | FloatT = this.types.int): Expr {
    if (t.kind === 'int') {
      const v = typeof value === 'bigint' ? value : BigInt(value);
      if (!fits(v, t)) fail(`constant ${v} does not fit ${t.name}`);
      return { kind: 'const', id: this.id(), type: unqualified(t), value: v };
    }
    const n = Number(value);
    return { kind: 'const', id: this.id(), type: unqualified(t), value: n };
  }

  /** The null pointer of a pointer type. */
  nullptr(t: PointerT): Expr {
    return { kind: 'null', id: this.id(), type: unqualified(t) };
  }

  /** A reference to a declared variable. */
  v(decl: VarDecl): Expr {
    return { kind: 'var', id: this.id(), type: decl.type, decl: decl.id };
  }

  /** `base[index]`. */
  idx(base: Expr, index: Expr): Expr {
    if (base.type.kind === 'vector') {
      // A lane of a vector object (src/ir/vector.ts): an lvalue whose address is never taken.
      if (!isLvalue(base)) fail('lane subscript of a vector that is not an object');
      if (index.type.kind !== 'int') fail('lane index must be an integer');
      const type = qualifyMember(base.type.of, { const: !!base.type.const, volatile: !!base.type.volatile });
      return { kind: 'index', id: this.id(), type, base, index };
    }
    if (base.type.kind !== 'array') fail(`indexing a non-array (${base.type.kind})`);
    if (index.type.kind !== 'int') fail('array index must be an integer');
    // Qualifiers on an array object apply to its elements.
    const type = qualifyMember(base.type.of, { const: !!base.type.const, volatile: !!base.type.volatile });
    return { kind: 'index', id: this.id(), type, base, index };
  }

  /** `base.field` (by index or name). */
  fld(base: Expr, field: number | string): Expr {
    const t = base.type;
    if (!isRecord(t)) fail(`member access on a non-record (${t.kind})`);
    const index = typeof field === 'number' ? field : t.fields.findIndex((f) => f.name === field);
    const f = t.fields[index];
    if (!f) fail(`no field ${field} in ${t.name}`);
    if (f.bits === 0) fail(`cannot access the unnamed :0 field of ${t.name}`);
    return { kind: 'field', id: this.id(), type: fieldExprType(t, f, this.types), base, field: index };
  }

  /** `*ptr`. */
  deref(ptr: Expr): Expr {
    if (ptr.type.kind !== 'ptr') fail('dereferencing a non-pointer');
    if (ptr.type.to.kind === 'void') fail('dereferencing a void pointer');
    return { kind: 'deref', id: this.id(), type: ptr.type.to, ptr };
  }

  /** `&target`. */
  addr(target: Expr): Expr {
    if (!isLvalue(target)) fail('address of a non-lvalue');
    if (isBitfieldAccess(target)) fail('address of a bit-field');
    if (target.kind === 'index' && target.base.type.kind === 'vector') fail('address of a vector lane');
    return { kind: 'addr', id: this.id(), type: pointerTo(target.type), target };
  }

  /** `op operand`. */
  un(op: UnaryOp, operand: Expr): Expr {
    const t = operand.type;
    if (op === '!') {
      if (!isScalar(t)) fail('! needs a scalar operand');
      return { kind: 'unary', id: this.id(), type: this.types.int, op, operand };
    }
    if (!isArith(t)) fail(`unary ${op} needs an arithmetic operand`);
    if (op === '~' && t.kind !== 'int') fail('~ needs an integer operand');
    return { kind: 'unary', id: this.id(), type: unaryResultType(op, unqualified(t), this.types), op, operand };
  }

  /** `left op right`. */
  bin(op: BinaryOp, left: Expr, right: Expr): Expr {
    const lt = left.type;
    const rt = right.type;
    if (op === '&&' || op === '||') {
      if (!isScalar(lt) || !isScalar(rt)) fail(`${op} needs scalar operands`);
      return { kind: 'binary', id: this.id(), type: this.types.int, op, left, right };
    }
    if (lt.kind === 'ptr' || rt.kind === 'ptr') {
      if (op !== '==' && op !== '!=') fail(`operator ${op} on pointers (only == and != are allowed)`);
      if (lt.kind !== 'ptr' || rt.kind !== 'ptr' || !sameType(unqualified(lt), unqualified(rt))) {
        fail('pointer comparison needs two pointers of the same type');
      }
      return { kind: 'binary', id: this.id(), type: this.types.int, op, left, right };
    }
    if (!isArith(lt) || !isArith(rt)) fail(`operator ${op} needs arithmetic operands`);
    if (isIntegerOnly(op) && (lt.kind !== 'int' || rt.kind !== 'int')) fail(`operator ${op} needs integer operands`);
    const type = binaryResultType(op, unqualified(lt), unqualified(rt), this.types);
    return { kind: 'binary', id: this.id(), type: isCompare(op) ? this.types.int : type, op, left, right };
  }

  /** `cond ? then : else`. */
  cond(c: Expr, a: Expr, b: Expr): Expr {
    if (!isScalar(c.type)) fail('?: condition must be scalar');
    let type: Type;
    if (isArith(a.type) && isArith(b.type))
      type = usualArithmetic(unqualified(a.type), unqualified(b.type), this.types);
    else if (a.type.kind === 'ptr' && b.type.kind === 'ptr' && sameType(unqualified(a.type), unqualified(b.type)))
      type = unqualified(a.type);
    else if (isRecord(a.type) && isRecord(b.type) && sameType(a.type, b.type)) type = unqualified(a.type);
    else fail('?: arms have incompatible types');
    return { kind: 'cond', id: this.id(), type, cond: c, then: a, else: b };
  }

  /** `(t) operand` between arithmetic types. */
  cast(t: IntT | FloatT, operand: Expr): Expr {
    if (!isArith(operand.type)) fail('casts are only between arithmetic types');
    return { kind: 'cast', id: this.id(), type: unqualified(t), operand };
  }

  /** A call; arguments must be assignable to the parameters. */
  call(sig: FuncSig, args: readonly Expr[]): CallExpr {
    if (args.length !== sig.params.length)
      fail(`call passes ${args.length} arguments to ${sig.params.length} parameters`);
    for (const [i, a] of args.entries()) checkAssignable(sig.params[i]!.type, a, `argument ${i + 1}`);
    return { kind: 'call', id: this.id(), type: unqualified(sig.ret), func: sig.id, args };
  }

  /** `target op value`. */
  assign(target: Expr, value: Expr, op: AssignOp = '='): AssignExpr {
    if (!isLvalue(target)) fail('assignment to a non-lvalue');
    if (target.type.const) fail('assignment to a const object');
    if (target.type.kind === 'array') fail('assignment to an array');
    if (op === '=') {
      checkAssignable(target.type, value, 'assignment');
      if (isRecord(target.type) && hasConstField(target.type)) fail('assignment to a record with const members');
    } else {
      if (!isArith(target.type) || !isArith(value.type)) fail(`${op} needs arithmetic operands`);
      if (
        ['%=', '<<=', '>>=', '&=', '|=', '^='].includes(op) &&
        (target.type.kind !== 'int' || value.type.kind !== 'int')
      ) {
        fail(`${op} needs integer operands`);
      }
    }
    return { kind: 'assign', id: this.id(), type: unqualified(target.type), op, target, value };
  }

  /** `++x`, `x++`, `--x`, `x--` on an integer lvalue. */
  incdec(op: '++' | '--', target: Expr, prefix: boolean): Expr {
    if (!isLvalue(target)) fail(`${op} on a non-lvalue`);
    if (target.type.kind !== 'int') fail(`${op} needs an integer lvalue`);
    if (target.type.const) fail(`${op} on a const object`);
    return { kind: 'incdec', id: this.id(), type: unqualified(target.type), op, prefix, target };
  }

  /** `left, right`. */
  comma(left: Expr, right: Expr): Expr {
    return { kind: 'comma', id: this.id(), type: right.type, left, right };
  }

  /** A safe-math wrapper around `left op right` (or `-left` for `neg`). */
  safe(op: SafeOp, left: Expr, right?: Expr): Expr {
    if (left.type.kind !== 'int' || (right && right.type.kind !== 'int'))
      fail('safe-math wrappers take integer operands');
    let type: Type;
    if (op === 'neg') type = promote(unqualified(left.type) as IntT, this.types);
    else if (!right) fail(`safe ${op} needs two operands`);
    else if (isShift(op)) type = promote(unqualified(left.type) as IntT, this.types);
    else type = usualArithmetic(unqualified(left.type) as IntT, unqualified(right.type) as IntT, this.types);
    return { kind: 'safe', id: this.id(), type, op, left, right: op === 'neg' ? undefined : right };
  }

  // ---- statements ---------------------------------------------------------------------------

  /** `{ locals; stmts }`. */
  block(stmts: readonly Stmt[], locals: readonly VarDecl[] = []): Block {
    return { kind: 'block', id: this.id(), locals, stmts };
  }

  /** An expression statement. */
  stmt(expr: Expr): Stmt {
    return { kind: 'expr', id: this.id(), expr };
  }

  /** `if (cond) then else`. */
  if(cond: Expr, then: Block, otherwise?: Block): IfStmt {
    if (!isScalar(cond.type)) fail('if condition must be scalar');
    return { kind: 'if', id: this.id(), cond, then, else: otherwise };
  }

  /** `for (init; cond; step) body` (printed as a `while` or `do` loop with `form`). */
  for(
    init: Expr | undefined,
    cond: Expr | undefined,
    step: Expr | undefined,
    body: Block,
    form: 'for' | 'while' | 'do' = 'for',
  ): ForStmt {
    if (cond && !isScalar(cond.type)) fail('for condition must be scalar');
    if (form !== 'for' && !cond) fail(`a ${form} loop needs a condition`);
    return { kind: 'for', id: this.id(), init, cond, step, body, ...(form !== 'for' ? { form } : {}) };
  }

  /**
   * `switch (cond) body`; put `case`/`default` labels (from {@link IRBuilder.case}) in `body`,
   * directly or in its nested blocks, ifs and loops (not in a nested switch: they would be its own).
   */
  switch(cond: Expr, body: Block): Stmt {
    if (cond.type.kind !== 'int') fail('switch needs an integer controlling expression');
    if (body.locals.length) fail('a switch body declares no locals (a jump to a case would skip them)');
    const values = switchCases(body).map((s) => s.value);
    if (new Set(values.map(String)).size !== values.length) fail('duplicate case value in switch');
    return { kind: 'switch', id: this.id(), cond, body };
  }

  /** `case value:`, or `default:` without a value. */
  case(value?: bigint): Stmt {
    return { kind: 'case', id: this.id(), value };
  }

  /** `return value;`. */
  ret(value?: Expr): Stmt {
    return { kind: 'return', id: this.id(), value };
  }

  /** `break;`. */
  brk(): Stmt {
    return { kind: 'break', id: this.id() };
  }

  /** `continue;`. */
  cont(): Stmt {
    return { kind: 'continue', id: this.id() };
  }

  /** A label statement. */
  label(name: string): Stmt & { kind: 'label' } {
    return { kind: 'label', id: this.id(), name };
  }

  /** `goto label;`. */
  goto(label: { id: number }): Stmt {
    return { kind: 'goto', id: this.id(), label: label.id };
  }

  /**
   * `goto *tbl[index];` through the table of `labels` (label statements of the same function, in
   * table order; GNU labels as values). `index` must be an integer; a value outside
   * `[0, labels.length)` is undefined behaviour at run time.
   */
  igoto(labels: readonly { id: number }[], index: Expr): IndirectGotoStmt {
    if (labels.length === 0) fail('an indirect goto needs at least one label');
    if (unqualified(index.type).kind !== 'int') fail('an indirect goto needs an integer index');
    return { kind: 'igoto', id: this.id(), labels: labels.map((l) => l.id), index };
  }

  /** Adds a scalar to the checksum. */
  hash(value: Expr): Stmt {
    if (!isArith(value.type)) fail('only arithmetic values are hashed');
    return { kind: 'hash', id: this.id(), value };
  }

  /** Prints `@OK@` when `value` equals `expected` (a value of `value`'s type), else `@NG@`. */
  check(value: Expr, expected: bigint | number): Stmt {
    const t = unqualified(value.type);
    if (t.kind === 'int') {
      if (typeof expected !== 'bigint' || !fits(expected, t))
        fail(`check: expected value ${expected} is not a ${t.name}`);
    } else if (t.kind === 'float') {
      if (typeof expected !== 'number' || !Number.isFinite(expected))
        fail(`check: expected value ${expected} is not a ${t.name}`);
    } else fail('only arithmetic values are checked');
    return { kind: 'check', id: this.id(), value, expected };
  }

  /** Assembles a program; `main` must be one of `funcs`. */
  program(parts: {
    records?: readonly RecordT[];
    globals: readonly VarDecl[];
    funcs: readonly FuncDecl[];
    main: FuncDecl;
    meta?: ProgramMeta;
  }): Program {
    if (!parts.funcs.includes(parts.main)) fail('main must be one of the program functions');
    return {
      records: parts.records ?? [],
      globals: parts.globals,
      funcs: parts.funcs,
      main: parts.main.id,
      nextId: this.next,
      meta: parts.meta ?? {},
    };
  }
}

/** The expression type of a member access: the field's type with the record's qualifiers; bit-fields by width. */
export function fieldExprType(record: RecordT, f: Field, types: CTypes = C): Type {
  let t: Type = f.type;
  if (f.bits !== undefined && f.type.kind === 'int')
    t = f.type.bitPrecise ? bitIntField(unqualified(f.type), f.bits) : bitfieldType(f.type.signed, f.bits, types);
  return qualifyMember(t, {
    const: !!(record.const || f.type.const),
    volatile: !!(record.volatile || f.type.volatile),
  });
}

/** Whether an lvalue designates a bit-field. */
export function isBitfieldAccess(e: Expr): boolean {
  if (e.kind !== 'field' || !isRecord(e.base.type)) return false;
  return e.base.type.fields[e.field]?.bits !== undefined;
}

function hasConstField(t: RecordT): boolean {
  return t.fields.some((f) => f.type.const || (isRecord(f.type) && hasConstField(f.type)));
}

function checkFields(name: string, fields: readonly Field[], allowZeroWidth: boolean): void {
  if (fields.filter((f) => f.bits !== 0).length === 0) fail(`${name} needs at least one named member`);
  for (const f of fields) {
    if (f.bits !== undefined) {
      const bp = f.type.kind === 'int' && f.type.bitPrecise;
      if (f.type.kind !== 'int' || (!bp && (f.type.rank !== C.int.rank || f.type.bits !== C.int.bits)))
        fail(`bit-field ${name}.${f.name} must be int, unsigned int or a _BitInt type`);
      if (f.bits === 0 && !allowZeroWidth) fail(`${name}: unnamed :0 fields only in structs`);
      const max = bp ? f.type.bits : 32;
      if (f.bits < (bp && f.type.signed ? 2 : 0) || f.bits > max || (bp && f.bits === 0))
        fail(`bit-field ${name}.${f.name} width ${f.bits} out of range`);
    }
    if (f.type.kind === 'void') fail(`${name}.${f.name} has type void`);
  }
}

/**
 * Checks that `value` may be assigned to an object of type `target` (C11 6.5.16.1 restricted to
 * Kiln's subset): arithmetic from arithmetic; records of the same type; pointers of the same
 * pointee type where the target's pointee is at least as qualified (Csmith's rule, §3.6.3).
 */
export function checkAssignable(target: Type, value: Expr, what: string): void {
  const vt = value.type;
  if (isArith(target)) {
    if (!isArith(vt)) fail(`${what}: cannot assign ${vt.kind} to an arithmetic object`);
    return;
  }
  if (target.kind === 'ptr') {
    if (vt.kind !== 'ptr') fail(`${what}: cannot assign ${vt.kind} to a pointer`);
    if (value.kind === 'null') {
      if (!sameType(unqualified(target), unqualified(vt))) fail(`${what}: null of the wrong pointer type`);
      return;
    }
    if (!pointerConvertible(vt, target)) fail(`${what}: incompatible pointer types`);
    return;
  }
  if (isRecord(target) || target.kind === 'vector') {
    if (vt.kind !== target.kind || !sameType(target, vt)) fail(`${what}: ${target.kind} type mismatch`);
    return;
  }
  fail(`${what}: cannot assign to ${target.kind}`);
}

/**
 * Whether a pointer of type `from` converts implicitly to `to`: same shape and base type;
 * qualifiers may only be added at the pointee level (C requires equal qualifiers deeper down).
 */
export function pointerConvertible(from: PointerT, to: PointerT): boolean {
  const f = from.to;
  const t = to.to;
  if ((f.const && !t.const) || (f.volatile && !t.volatile)) return false;
  return sameType(unqualified(f), unqualified(t));
}
