// A hand-built program around GNU labels as values (`goto *tbl[i]`): a threaded dispatch loop that
// reads opcodes from a global array and jumps through a table of handler labels, as a bytecode
// interpreter written in GNU C does. Shared by the interpreter, emitter, repair and reducer tests.
import { C } from '../../src/c/types.js';
import { IRBuilder } from '../../src/ir/build.js';
import type { Expr, IndirectGotoStmt, Program, Stmt } from '../../src/ir/nodes.js';
import { arrayOf } from '../../src/ir/types.js';

/** The program and the nodes tests look at. */
export interface DispatchProgram {
  readonly program: Program;
  /** The dispatches: at the start, then after the `add` and the `double` handler. */
  readonly igotos: readonly IndirectGotoStmt[];
  /** `ops[pc++]`, the first dispatch's index. */
  readonly firstIndex: Expr;
}

/**
 * `acc` starts at 0; opcode 0 ends, 1 adds 3, 2 doubles; every handler hashes `acc` and
 * dispatches on the next opcode. At the end `check(acc == expected)` and `pc` is hashed.
 * `index` replaces the opcode expression of the first dispatch (default `ops[pc++]`).
 */
export function dispatchProgram(
  ops: readonly number[],
  expected: bigint,
  index?: (b: IRBuilder, ops: Expr, pc: Expr) => Expr,
): DispatchProgram {
  const b = new IRBuilder();
  const table = b.global('g_ops', arrayOf(C.int8, ops.length), b.list(ops.map((o) => b.lit(o, C.int8))));
  const pc = b.global('g_pc', C.uint32, b.lit(0, C.uint32));
  const acc = b.local('l_acc', C.int32, b.lit(0, C.int32));
  const end = b.label('lbl_end');
  const add = b.label('lbl_add');
  const dbl = b.label('lbl_double');
  const next = (): Expr => b.idx(b.v(table), b.incdec('++', b.v(pc), false));
  const firstIndex = index ? index(b, b.v(table), b.v(pc)) : next();
  const dispatch = (ix: Expr) => b.igoto([end, add, dbl], ix);
  const igotos = [dispatch(firstIndex), dispatch(next()), dispatch(next())];
  const stmts: Stmt[] = [
    igotos[0]!,
    add,
    b.stmt(b.assign(b.v(acc), b.lit(3, C.int32), '+=')),
    b.hash(b.v(acc)),
    igotos[1]!,
    dbl,
    b.stmt(b.assign(b.v(acc), b.lit(2, C.int32), '*=')),
    b.hash(b.v(acc)),
    igotos[2]!,
    end,
    b.check(b.v(acc), expected),
    b.hash(b.v(pc)),
  ];
  const main = b.func('main', C.int, [], b.block(stmts, [acc]), undefined, false);
  const program = b.program({
    globals: [table, pc],
    funcs: [main],
    main,
    meta: { mode: 'csmith', safeMath: 'function' },
  });
  return { program, igotos, firstIndex };
}
