// A UBSan report prints the operands of the operation it calls undefined. For the arithmetic
// reports (signed overflow, shifts, negation, division by -1) Kiln's exact kernels can redo the
// operation on those operands: when it is defined, the report is false on its own terms, a
// sanitizer bug whatever the program (GCC's `_BitInt` shift-count check printed "left shift of 8
// by 0 places cannot be represented in type 'int'"). A report that is not refuted proves nothing
// either way; only a refuted one is attributed to the sanitizer without looking at the program.
import { shiftKernel, arithKernel, unaryKernel } from '../c/ops.js';
import { fromBigInt } from '../c/convert.js';
import { bitInt, C, fits, intMin, type IntType } from '../c/types.js';

/** UBSan's spelling of a type (gcc's and clang's), as an IntType; undefined for any other type. */
function reportedType(name: string): IntType | undefined {
  const bi = /^(unsigned )?_BitInt\((\d+)\)$/.exec(name);
  if (bi) return bitInt(Number(bi[2]), !bi[1]);
  const table: Record<string, IntType> = {
    int: C.int,
    'long int': C.long,
    long: C.long,
    'long long int': C.llong,
    'long long': C.llong,
    __int128: C.int128,
  };
  return table[name];
}

/** Whether the kernel completes without calling its UB hook. */
function defined(run: (onUB: () => never) => unknown): boolean {
  const stop = new Error('ub');
  try {
    run(() => {
      throw stop;
    });
    return true;
  } catch (e) {
    if (e === stop) return false;
    throw e;
  }
}

/**
 * Why a UBSan `runtime error:` message is false by its own operands (`8 << 0 is 8, which int
 * holds`), or undefined when it is not (or its form or type is not one Kiln can redo).
 */
export function refutedByOperands(message: string): string | undefined {
  const text = message.replace(/^UBSan: /, '');
  let m = /^signed integer overflow: (-?\d+) ([-+*]) (-?\d+) cannot be represented in type '([^']+)'/.exec(text);
  if (m) {
    const t = reportedType(m[4]!);
    if (!t?.signed || !fitsBoth(t, m[1]!, m[3]!)) return undefined;
    const op = m[2] as '+' | '-' | '*';
    const [a, b] = [BigInt(m[1]!), BigInt(m[3]!)];
    const kernel = arithKernel(op, t);
    if (!defined((onUB) => kernel(fromBigInt(a, t), fromBigInt(b, t), onUB))) return undefined;
    return `${m[1]} ${op} ${m[3]} is ${op === '+' ? a + b : op === '-' ? a - b : a * b}, which ${m[4]} holds`;
  }
  m = /^left shift of (-?\d+) by (-?\d+) places? cannot be represented in type '([^']+)'/.exec(text);
  if (m) {
    const t = reportedType(m[3]!);
    if (!t || !fitsBoth(t, m[1]!, '0')) return undefined;
    const [a, n] = [BigInt(m[1]!), BigInt(m[2]!)];
    const kernel = shiftKernel('<<', t, C.llong);
    if (!defined((onUB) => kernel(fromBigInt(a, t), n, onUB))) return undefined;
    return `${a} << ${n} is ${a << n}, which ${m[3]} holds`;
  }
  m = /^shift exponent (-?\d+) is too large for (\d+)-bit type '([^']+)'/.exec(text);
  if (m) {
    const t = reportedType(m[3]!);
    const n = Number(m[1]);
    if (!t || t.bits !== Number(m[2]) || n < 0 || n >= t.bits) return undefined;
    return `a count of ${n} is less than the ${t.bits} bits of ${m[3]}`;
  }
  m = /^negation of (-?\d+) cannot be represented in type '([^']+)'/.exec(text);
  if (m) {
    const t = reportedType(m[2]!);
    if (!t?.signed || !fitsBoth(t, m[1]!, '0')) return undefined;
    const kernel = unaryKernel('-', t);
    if (!defined((onUB) => kernel(fromBigInt(BigInt(m![1]!), t), onUB))) return undefined;
    return `-(${m[1]}) is ${-BigInt(m[1]!)}, which ${m[2]} holds`;
  }
  m = /^division of (-?\d+) by -1 cannot be represented in type '([^']+)'/.exec(text);
  if (m) {
    const t = reportedType(m[2]!);
    if (!t?.signed || !fitsBoth(t, m[1]!, '0') || BigInt(m[1]!) === intMin(t)) return undefined;
    return `${m[1]} / -1 is ${-BigInt(m[1]!)}, which ${m[2]} holds`;
  }
  return undefined;
}

/** Whether both printed operands are values of the reported type (else the report is not about them). */
function fitsBoth(t: IntType, a: string, b: string): boolean {
  return fits(BigInt(a), t) && fits(BigInt(b), t);
}
