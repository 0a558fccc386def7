// Straight-line oracle programs for explicit lists of cases (property batches, UBSan runs).
import type { EvalResult } from '../../../src/c/eval.js';
import { binaryResultType, evalBinary, evalCast, evalUnary, unaryResultType } from '../../../src/c/eval.js';
import type { BinaryOp, UnaryOp } from '../../../src/c/ops.js';
import type { IntType } from '../../../src/c/types.js';
import { BINARY_MACRO, UNARY_MACRO, cLiteral, jsValue } from './oracle.js';

/** One concrete operation on exact operand values. */
export type Case =
  | {
      readonly kind: 'binary';
      readonly op: BinaryOp;
      readonly ta: IntType;
      readonly tb: IntType;
      readonly a: bigint;
      readonly b: bigint;
    }
  | { readonly kind: 'unary'; readonly op: UnaryOp; readonly ta: IntType; readonly a: bigint }
  | { readonly kind: 'cast'; readonly ta: IntType; readonly to: IntType; readonly a: bigint };

export function caseText(c: Case): string {
  if (c.kind === 'binary') return `(${c.ta.name})${c.a} ${c.op} (${c.tb.name})${c.b}`;
  if (c.kind === 'unary') return `${c.op}(${c.ta.name})${c.a}`;
  return `(${c.to.name})(${c.ta.name})${c.a}`;
}

/** The C expression of a case on variables `a` and `b`. */
export function caseExpr(c: Case): string {
  if (c.kind === 'binary') return `a ${c.op} b`;
  if (c.kind === 'unary') return `${c.op}a`;
  return `(${c.to.name})a`;
}

/** Evaluates a case with Kiln. */
export function kilnEval(c: Case): EvalResult {
  if (c.kind === 'binary')
    return evalBinary(c.op, { type: c.ta, value: jsValue(c.a, c.ta) }, { type: c.tb, value: jsValue(c.b, c.tb) });
  if (c.kind === 'unary') return evalUnary(c.op, { type: c.ta, value: jsValue(c.a, c.ta) });
  return evalCast({ type: c.ta, value: jsValue(c.a, c.ta) }, c.to);
}

/** Kiln's static result type of a case. */
export function kilnType(c: Case): IntType {
  const t =
    c.kind === 'binary' ? binaryResultType(c.op, c.ta, c.tb) : c.kind === 'unary' ? unaryResultType(c.op, c.ta) : c.to;
  if (t.kind !== 'int') throw new Error(`floating result type for ${caseText(c)}`);
  return t;
}

/** Declarations of the operand variables of a case. */
export function caseDecls(c: Case, qualifier = ''): string {
  const a = `${qualifier}${c.ta.name} a = ${cLiteral(c.a, c.ta)};`;
  return c.kind === 'binary' ? `${a} ${qualifier}${c.tb.name} b = ${cLiteral(c.b, c.tb)};` : a;
}

/** A block that classifies and evaluates the case with the oracle macros and prints
 * `index<TAB>category<TAB>bits<TAB>result type`. */
export function oracleBlock(c: Case, index: number): string {
  const call =
    c.kind === 'binary'
      ? `${BINARY_MACRO[c.op]}(a, b, kind, bits);`
      : c.kind === 'unary'
        ? `${UNARY_MACRO[c.op]}(a, kind, bits);`
        : `kind = K_OK; bits = BITS_OF((${c.to.name})a);`;
  return (
    `{ ${caseDecls(c)} int kind = 0; u64 bits = 0; ${call} printf("${index}\\t%d\\t%016llx\\t%s\\n", kind, ` +
    `bits, TNAME(${caseExpr(c)})); }`
  );
}

/** Splits statements into functions of at most `per` statements; returns the source and the function names. */
export function chunkFunctions(stmts: readonly string[], per = 64, prefix = 'chunk'): { src: string; names: string[] } {
  const names: string[] = [];
  const parts: string[] = [];
  for (let k = 0; k < stmts.length; k += per) {
    const name = `${prefix}${names.length}`;
    names.push(name);
    parts.push(`static void ${name}(void) {\n  ${stmts.slice(k, k + per).join('\n  ')}\n}`);
  }
  return { src: parts.join('\n'), names };
}
