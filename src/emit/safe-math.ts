import { intMax, intMin, isInt128, toUnsigned, type IntType } from '../c/types.js';
import type { SafeMathForm, SafeOp } from '../ir/nodes.js';
import { baseSpelling } from './names.js';
import { safeName } from './names.js';

/** A safe-math wrapper a program uses: operator, operation type and (for shifts) count type. */
export interface SafeUse {
  readonly op: SafeOp;
  readonly type: IntType;
  readonly count?: IntType;
}

/** A C constant expression for the minimum/maximum of a type without <limits.h>. */
function limit(t: IntType, which: 'min' | 'max'): string {
  if (t.bitPrecise || isInt128(t)) {
    // No literal has these types: all ones of the unsigned type, shifted for the signed maximum.
    const T = baseSpelling(t);
    const U = baseSpelling(toUnsigned(t));
    if (!t.signed) return which === 'max' ? `((${U})~(${U})0)` : `((${U})0)`;
    const max = `((${T})((${U})~(${U})0 >> 1))`;
    return which === 'max' ? max : `(-${max} - 1)`;
  }
  const suffix = t.bits > 32 ? (t.signed ? 'LL' : 'ULL') : t.signed ? '' : 'U';
  if (which === 'max') return `${intMax(t)}${suffix}`;
  if (!t.signed) return `0${suffix}`;
  return `(${-(intMin(t) + 1n)}${suffix} * -1 - 1)`;
}

/**
 * The UB test and the guarded result of a wrapper, in terms of operands `a` and `b` already
 * converted to the operation (and count) types. Each test is written so that it cannot itself
 * overflow (CERT INT32-C style); `||` short-circuits before a shift by an invalid count.
 */
function guard(u: SafeUse): { unsafe: string; result: string } {
  const t = u.type;
  const max = limit(t, 'max');
  const min = limit(t, 'min');
  const signed = t.signed;
  switch (u.op) {
    case '+':
      return {
        unsafe: signed ? `((b > 0) && (a > (${max} - b))) || ((b < 0) && (a < (${min} - b)))` : '0',
        result: '(a + b)',
      };
    case '-':
      return {
        unsafe: signed ? `((b < 0) && (a > (${max} + b))) || ((b > 0) && (a < (${min} + b)))` : '0',
        result: '(a - b)',
      };
    case '*':
      return {
        unsafe: signed
          ? `(a > 0) ? ((b > 0) ? (a > (${max} / b)) : (b < (${min} / a))) : ((b > 0) ? (a < (${min} / b)) : ` +
            `((a != 0) && (b < (${max} / a))))`
          : '0',
        result: '(a * b)',
      };
    case '/':
      return { unsafe: signed ? `(b == 0) || ((a == ${min}) && (b == -1))` : '(b == 0)', result: '(a / b)' };
    case '%':
      return { unsafe: signed ? `(b == 0) || ((a == ${min}) && (b == -1))` : '(b == 0)', result: '(a % b)' };
    case '<<': {
      const ct = u.count!;
      const neg = ct.signed ? '(b < 0) || ' : '';
      const tail = signed ? ` || (a < 0) || (a > (${max} >> b))` : '';
      return { unsafe: `${neg}(b >= ${t.bits})${tail}`, result: '(a << b)' };
    }
    case '>>': {
      const ct = u.count!;
      const neg = ct.signed ? '(b < 0) || ' : '';
      return { unsafe: `${neg}(b >= ${t.bits})`, result: '(a >> b)' };
    }
    case 'neg':
      return { unsafe: signed ? `(a == ${min})` : '0', result: '(-a)' };
  }
}

/** The definition of one wrapper, as a static function or a statement-expression macro. */
export function safeDefinition(u: SafeUse, form: SafeMathForm, prefix = ''): string {
  const name = safeName(u.op, u.type, u.count, prefix);
  const t = baseSpelling(u.type);
  const ct = u.count ? baseSpelling(u.count) : t;
  const g = guard(u);
  const unary = u.op === 'neg';
  if (form === 'function' || (form === 'mix' && mixedAsFunction(safeName(u.op, u.type, u.count)))) {
    const params = unary ? `${t} a` : `${t} a, ${ct} b`;
    return `static ${t} ${name}(${params})\n{\n    return (${g.unsafe}) ? a : ${g.result};\n}`;
  }
  const params = unary ? 'x' : 'x, y';
  const decls = unary ? `${t} a = (x);` : `${t} a = (x); ${ct} b = (y);`;
  return `#define ${name}(${params}) ({ ${decls} (${t})((${g.unsafe}) ? a : ${g.result}); })`;
}

/**
 * In a program of form `mix`, whether this wrapper is a function (else a macro): a hash of its
 * unprefixed name, so every file of a split program, and every reduction candidate, agrees.
 */
function mixedAsFunction(name: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return (h & 1) === 0;
}

/** A stable key identifying a wrapper use (for de-duplication). */
export function safeKey(u: SafeUse): string {
  return safeName(u.op, u.type, u.count);
}
