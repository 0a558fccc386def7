import type { BinaryOp, UnaryOp } from '../c/ops.js';
import { fits } from '../c/types.js';
import type { FloatT, IntT, PointerT, RecordT, Type, VectorT } from './types.js';

/**
 * Kiln's program IR: readonly tagged unions. Every node carries an `id` that is unique in its
 * program and stable across rewrites of other nodes, so the interpreter can report UB "at node
 * N" and the repair step can rewrite exactly that node. Expressions carry their C type.
 */

/** Assignment operators. */
export type AssignOp = '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '<<=' | '>>=' | '&=' | '|=' | '^=';
/** The binary operator a compound assignment applies (`+=` → `+`). */
export function compoundOperator(op: Exclude<AssignOp, '='>): Exclude<BinaryOp, '&&' | '||'> {
  return op.slice(0, -1) as Exclude<BinaryOp, '&&' | '||'>;
}

/** Operators a safe-math wrapper can guard (`neg` is unary minus). */
export type SafeOp = '+' | '-' | '*' | '/' | '%' | '<<' | '>>' | 'neg';

/** An integer or floating constant. Integers are exact bigints; floats are numbers. */
export interface ConstExpr {
  readonly kind: 'const';
  readonly id: number;
  readonly type: IntT | FloatT;
  readonly value: bigint | number;
}

/** The null pointer constant of a pointer type. */
export interface NullExpr {
  readonly kind: 'null';
  readonly id: number;
  readonly type: PointerT;
}

/** A named object: global, local or parameter (by declaration id). */
export interface VarExpr {
  readonly kind: 'var';
  readonly id: number;
  readonly type: Type;
  readonly decl: number;
}

/** `base[index]` on an array lvalue. */
export interface IndexExpr {
  readonly kind: 'index';
  readonly id: number;
  readonly type: Type;
  readonly base: Expr;
  readonly index: Expr;
}

/** `base.f` (printed `p->f` when `base` is a dereference). */
export interface FieldExpr {
  readonly kind: 'field';
  readonly id: number;
  readonly type: Type;
  readonly base: Expr;
  readonly field: number;
}

/** `*ptr`. */
export interface DerefExpr {
  readonly kind: 'deref';
  readonly id: number;
  readonly type: Type;
  readonly ptr: Expr;
}

/** `&target`. */
export interface AddrExpr {
  readonly kind: 'addr';
  readonly id: number;
  readonly type: PointerT;
  readonly target: Expr;
}

/** `op operand`. */
export interface UnaryExpr {
  readonly kind: 'unary';
  readonly id: number;
  readonly type: Type;
  readonly op: UnaryOp;
  readonly operand: Expr;
}

/** `left op right`, including comparisons and the short-circuit operators. */
export interface BinaryExpr {
  readonly kind: 'binary';
  readonly id: number;
  readonly type: Type;
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
}

/** `cond ? then : else`. */
export interface CondExpr {
  readonly kind: 'cond';
  readonly id: number;
  readonly type: Type;
  readonly cond: Expr;
  readonly then: Expr;
  readonly else: Expr;
}

/** `(type) operand`. */
export interface CastExpr {
  readonly kind: 'cast';
  readonly id: number;
  readonly type: Type;
  readonly operand: Expr;
}

/** A call to a function of the program (by declaration id). */
export interface CallExpr {
  readonly kind: 'call';
  readonly id: number;
  readonly type: Type;
  readonly func: number;
  readonly args: readonly Expr[];
}

/** `target op= value`. */
export interface AssignExpr {
  readonly kind: 'assign';
  readonly id: number;
  readonly type: Type;
  readonly op: AssignOp;
  readonly target: Expr;
  readonly value: Expr;
}

/** `++x`, `x++`, `--x`, `x--`. */
export interface IncDecExpr {
  readonly kind: 'incdec';
  readonly id: number;
  readonly type: Type;
  readonly op: '++' | '--';
  readonly prefix: boolean;
  readonly target: Expr;
}

/** `left, right`. */
export interface CommaExpr {
  readonly kind: 'comma';
  readonly id: number;
  readonly type: Type;
  readonly left: Expr;
  readonly right: Expr;
}

/**
 * A safe-math wrapper (Csmith/CERT style): the operation's result, or the left operand when the
 * operation would be undefined. Printed as a function or a macro call, per program.
 */
export interface SafeExpr {
  readonly kind: 'safe';
  readonly id: number;
  readonly type: Type;
  readonly op: SafeOp;
  readonly left: Expr;
  readonly right: Expr | undefined;
}

/**
 * A GNU vector built from other values (src/ir/vector.ts):
 * - `lanes`: `(vT){a0, a1, …}`, one side-effect-free scalar of the lane type per lane;
 * - `convertvector`: `__builtin_convertvector(args[0], vT)`, each lane converted as by a cast;
 * - `shufflevector`: `__builtin_shufflevector(args[0], args[1], indices…)`, lane k is lane
 *   `indices[k]` of the two operands' lanes side by side;
 * - `shuffle`: GCC's `__builtin_shuffle(a, mask)` or `(a, b, mask)`, the mask (last argument)
 *   taken modulo the lane count of the operands side by side.
 */
export interface VecExpr {
  readonly kind: 'vec';
  readonly id: number;
  readonly type: VectorT;
  readonly op: 'lanes' | 'convertvector' | 'shufflevector' | 'shuffle';
  readonly args: readonly Expr[];
  /** `shufflevector` only: the constant lane indices. */
  readonly indices?: readonly number[];
}

/** Any expression. */
export type Expr =
  | ConstExpr
  | NullExpr
  | VarExpr
  | IndexExpr
  | FieldExpr
  | DerefExpr
  | AddrExpr
  | UnaryExpr
  | BinaryExpr
  | CondExpr
  | CastExpr
  | CallExpr
  | AssignExpr
  | IncDecExpr
  | CommaExpr
  | SafeExpr
  | VecExpr;

/** A brace-enclosed initialiser for arrays, structs and unions (a union's list initialises its first member). */
export interface InitList {
  readonly kind: 'init-list';
  readonly id: number;
  readonly items: readonly Init[];
}

/** An initialiser: an expression or a nested list. */
export type Init = Expr | InitList;

/** A variable: global, block-scope local or parameter. */
export interface VarDecl {
  readonly kind: 'var-decl';
  readonly id: number;
  readonly name: string;
  readonly type: Type;
  readonly storage: 'global' | 'local' | 'param';
  readonly init: Init | undefined;
  /** Printed with `static` (globals and locals only). */
  readonly isStatic?: boolean;
  /** Printed with `register` (scalar locals whose address is never taken). */
  readonly isRegister?: boolean;
}

/** A function definition. */
export interface FuncDecl {
  readonly kind: 'func';
  readonly id: number;
  readonly name: string;
  readonly ret: Type;
  readonly params: readonly VarDecl[];
  readonly body: Block;
  readonly isStatic?: boolean;
  /** Printed with `inline` (a hint only: semantics are unchanged). */
  readonly isInline?: boolean;
  /** GNU function attributes (EMI variants); each printed only where the compiler accepts it. */
  readonly attributes?: readonly FuncAttr[];
}

/**
 * Function attributes EMI variants add. `pure` and `const` are contracts (src/mutate checks
 * them); the others are hints. `optimize` carries its argument, e.g. `optimize("no-tree-pre")`.
 */
export type FuncAttr =
  | { readonly name: 'noinline' | 'noipa' | 'always_inline' | 'cold' | 'hot' | 'flatten' | 'pure' | 'const' }
  | { readonly name: 'optimize'; readonly arg: string };

/** `{ locals; stmts }`: locals are declared (and initialised, in order) at block entry. */
export interface Block {
  readonly kind: 'block';
  readonly id: number;
  readonly locals: readonly VarDecl[];
  readonly stmts: readonly Stmt[];
}

export interface ExprStmt {
  readonly kind: 'expr';
  readonly id: number;
  readonly expr: Expr;
}

export interface IfStmt {
  readonly kind: 'if';
  readonly id: number;
  readonly cond: Expr;
  readonly then: Block;
  readonly else: Block | undefined;
  /** Printed `if (__builtin_expect(!!(cond), expect))`: a hint only, semantics unchanged. */
  readonly expect?: 0 | 1;
}

/**
 * `for (init; cond; step) body`; each clause may be absent. `form` only changes how it is
 * printed, except `do`, whose first iteration does not test `cond`:
 * - `while`: `init; while (cond) { body; step; }` (only printed so when the body has no `continue`);
 * - `do`: `init; do { body; step; } while (cond);` (likewise).
 */
export interface ForStmt {
  readonly kind: 'for';
  readonly id: number;
  readonly init: Expr | undefined;
  readonly cond: Expr | undefined;
  readonly step: Expr | undefined;
  readonly body: Block;
  readonly form?: 'for' | 'while' | 'do';
}

/**
 * `switch (cond) body`. Its `case` and `default` labels are statements directly in `body`
 * (C's fall-through included); `break` leaves the switch. The body declares no locals (a jump to
 * a case would skip their initialisers).
 */
export interface SwitchStmt {
  readonly kind: 'switch';
  readonly id: number;
  readonly cond: Expr;
  readonly body: Block;
}

/** `case value:` (or `default:` when `value` is undefined) inside a switch body. */
export interface CaseStmt {
  readonly kind: 'case';
  readonly id: number;
  readonly value: bigint | undefined;
}

export interface ReturnStmt {
  readonly kind: 'return';
  readonly id: number;
  readonly value: Expr | undefined;
}

export interface BreakStmt {
  readonly kind: 'break';
  readonly id: number;
}

export interface ContinueStmt {
  readonly kind: 'continue';
  readonly id: number;
}

/** `goto` to a label statement of the same function (by the label's node id). */
export interface GotoStmt {
  readonly kind: 'goto';
  readonly id: number;
  readonly label: number;
}

/**
 * GNU labels as values: an indirect jump through a table of label addresses, printed
 * `goto *tbl[index];` with `tbl` a function-local `static void *const tbl[] = { &&L1, &&L2, ... };`
 * of `labels` (label statement ids of the same function) in order; with one label and a constant
 * index 0 it may print as `goto *&&L;`. `index` is an integer expression; an index outside
 * `[0, labels.length)` is undefined (a read outside the table), otherwise the jump is
 * `goto labels[index]`.
 */
export interface IndirectGotoStmt {
  readonly kind: 'igoto';
  readonly id: number;
  readonly labels: readonly number[];
  readonly index: Expr;
}

/** `name: ;` — a jump target. */
export interface LabelStmt {
  readonly kind: 'label';
  readonly id: number;
  readonly name: string;
}

/** Adds one scalar's value to the program's checksum (used by `main`). */
export interface HashStmt {
  readonly kind: 'hash';
  readonly id: number;
  readonly value: Expr;
}

/**
 * The self-check of an arithmetic program (the `arith` mode): prints one line, `@OK@` when
 * `value` equals `expected` and `@NG@` otherwise, so one compiler at one option level can be
 * tested. `expected` is the value the generator computed, in `value`'s type (a bigint for
 * integer types, a number for floating ones); it is data, not a child expression.
 */
export interface CheckStmt {
  readonly kind: 'check';
  readonly id: number;
  readonly value: Expr;
  readonly expected: bigint | number;
}

/**
 * The expected value of a check as a value of type `t` (a bigint for integer types, a number for
 * floating ones), or undefined when `t` cannot hold it — after a reducer changed the checked
 * value's type, say. Then the check always fails: the interpreter and the printer agree on that.
 */
export function checkTarget(t: IntT | FloatT, expected: bigint | number): bigint | number | undefined {
  if (t.kind === 'int') {
    if (typeof expected === 'number' && !Number.isInteger(expected)) return undefined;
    const v = typeof expected === 'bigint' ? expected : BigInt(expected);
    return fits(v, t) ? v : undefined;
  }
  const v = Number(expected);
  if (!Number.isFinite(v)) return undefined;
  return t.bits === 32 && Math.fround(v) !== v ? undefined : v;
}

/**
 * `__builtin_unreachable();`: a fact for the compiler. Reaching it is undefined, so only EMI
 * variants put it where the interpreter proved it never runs (src/mutate).
 */
export interface UnreachableStmt {
  readonly kind: 'unreachable';
  readonly id: number;
}

/**
 * `__builtin_assume(cond);` (clang; other compilers get a no-op from the prelude): a fact that
 * `cond` holds. A false assumption is undefined. `cond` must be free of side effects.
 */
export interface AssumeStmt {
  readonly kind: 'assume';
  readonly id: number;
  readonly cond: Expr;
}

/** Any statement. */
export type Stmt =
  | Block
  | ExprStmt
  | IfStmt
  | ForStmt
  | SwitchStmt
  | CaseStmt
  | ReturnStmt
  | BreakStmt
  | ContinueStmt
  | GotoStmt
  | IndirectGotoStmt
  | LabelStmt
  | HashStmt
  | CheckStmt
  | UnreachableStmt
  | AssumeStmt;

/** How safe-math wrappers are printed: as static functions or as statement-expression macros. */
/**
 * How a program prints its safe-math wrappers: all as functions, all as macros, or each its own (`mix`, see
 * emit/safe-math.ts).
 */
export type SafeMathForm = 'function' | 'macro' | 'mix';

/** Provenance and printing choices of a program. */
export interface ProgramMeta {
  readonly seed?: string;
  readonly mode?: string;
  readonly safeMath?: SafeMathForm;
  /** Free-form notes printed in the file's header comment. */
  readonly notes?: readonly string[];
}

/**
 * A whole program. `main` (by id) runs the entry function and hashes the globals; its output is
 * one line, `checksum = %016llX`.
 */
export interface Program {
  readonly records: readonly RecordT[];
  readonly globals: readonly VarDecl[];
  readonly funcs: readonly FuncDecl[];
  readonly main: number;
  /** Smallest id not yet used by any node (new nodes take ids from here). */
  readonly nextId: number;
  readonly meta: ProgramMeta;
}

/** Any IR node with an id. */
export type Node = Expr | Stmt | VarDecl | FuncDecl | InitList;

/** Whether a node is an expression. */
export function isExpr(n: Node): n is Expr {
  switch (n.kind) {
    case 'const':
    case 'null':
    case 'var':
    case 'index':
    case 'field':
    case 'deref':
    case 'addr':
    case 'unary':
    case 'binary':
    case 'cond':
    case 'cast':
    case 'call':
    case 'assign':
    case 'incdec':
    case 'comma':
    case 'safe':
    case 'vec':
      return true;
    default:
      return false;
  }
}

/** Whether an expression designates an object (can be assigned or have its address taken). */
export function isLvalue(e: Expr): boolean {
  switch (e.kind) {
    case 'var':
    case 'deref':
      return true;
    case 'index':
      return isLvalue(e.base);
    case 'field':
      return isLvalue(e.base);
    default:
      return false;
  }
}

/**
 * Whether two expressions are the same access path (variables, fields, constant or same indices,
 * dereferences of the same path): `x = x` through them is clang's -Wself-assign.
 */
export function sameAccess(a: Expr, b: Expr): boolean {
  if (a.kind === 'var' && b.kind === 'var') return a.decl === b.decl;
  if (a.kind === 'field' && b.kind === 'field') return a.field === b.field && sameAccess(a.base, b.base);
  if (a.kind === 'index' && b.kind === 'index')
    return (
      sameAccess(a.base, b.base) &&
      (a.index.kind === 'const' && b.index.kind === 'const'
        ? a.index.value === b.index.value
        : sameAccess(a.index, b.index))
    );
  if (a.kind === 'deref' && b.kind === 'deref') return sameAccess(a.ptr, b.ptr);
  return false;
}
