// The static type model of src/c against C's own answer (`_Generic`, `sizeof`, `(T)-1 < 0`):
// for every ordered pair of the 19 integer spellings (the 11 classic types and the 8
// exact-width aliases) and every operator of each class (arithmetic/bitwise, shift,
// comparison, logical), the type of `a op b` against binaryResultType; for every spelling,
// the type of each unary operator against unaryResultType, `+a` against promote, the type
// itself against Kiln's rank/signedness model (int64_t must be long, int8_t signed char, …),
// its width and signedness; and `c ? a : b` against usualArithmetic/conditionalResultType.
// Both gcc and clang must give identical answers.
import { describe, expect, it } from 'vitest';
import { binaryResultType, conditionalResultType, unaryResultType } from '../../src/c/eval.js';
import { BINARY_OPS, UNARY_OPS } from '../../src/c/ops.js';
import { C, promote, usualArithmetic, type ArithType } from '../../src/c/types.js';
import { compileAndRun } from '../support/cc.js';
import { kilnCanonicalName } from './support/oracle.js';

interface Query {
  readonly key: string;
  /** C expression whose printf argument is a string (or an integer for %d queries). */
  readonly cExpr: string;
  readonly format: '%s' | '%d';
  /** Kiln's answer. */
  readonly kiln: string;
}

const T = C.allInts;
const v = (i: number): string => `v${i}`;
const nameOf = (t: ArithType): string => (t.kind === 'int' ? kilnCanonicalName(t) : t.name);

function queries(): Query[] {
  const q: Query[] = [];
  T.forEach((t, i) => {
    q.push({ key: `type ${t.name}`, cExpr: `TNAME(${v(i)})`, format: '%s', kiln: kilnCanonicalName(t) });
    q.push({ key: `bits ${t.name}`, cExpr: `(int)sizeof(${t.name}) * 8`, format: '%d', kiln: String(t.bits) });
    q.push({ key: `signed ${t.name}`, cExpr: `(int)((${t.name})-1 < 0)`, format: '%d', kiln: t.signed ? '1' : '0' });
    q.push({ key: `promote ${t.name}`, cExpr: `TNAME(+${v(i)})`, format: '%s', kiln: kilnCanonicalName(promote(t)) });
    for (const op of UNARY_OPS)
      q.push({
        key: `unary ${op} ${t.name}`,
        cExpr: `TNAME(${op}${v(i)})`,
        format: '%s',
        kiln: nameOf(unaryResultType(op, t)),
      });
  });
  T.forEach((ta, i) => {
    T.forEach((tb, j) => {
      for (const op of BINARY_OPS) {
        q.push({
          key: `${ta.name} ${op} ${tb.name}`,
          cExpr: `TNAME(${v(i)} ${op} ${v(j)})`,
          format: '%s',
          kiln: nameOf(binaryResultType(op, ta, tb)),
        });
      }
      q.push({
        key: `usual ${ta.name}, ${tb.name}`,
        cExpr: `TNAME(1 ? ${v(i)} : ${v(j)})`,
        format: '%s',
        kiln: nameOf(usualArithmetic(ta, tb)),
      });
      q.push({
        key: `cond ${ta.name}, ${tb.name}`,
        cExpr: `TNAME(0 ? ${v(i)} : ${v(j)})`,
        format: '%s',
        kiln: nameOf(conditionalResultType(ta, tb)),
      });
    });
  });
  return q;
}

function program(qs: readonly Query[]): string {
  return `#include <stdint.h>
#include <stdio.h>
#define TNAME(x) _Generic((x), \\
  char: "char", signed char: "signed char", unsigned char: "unsigned char", \\
  short: "short", unsigned short: "unsigned short", int: "int", unsigned int: "unsigned int", \\
  long: "long", unsigned long: "unsigned long", long long: "long long", \\
  unsigned long long: "unsigned long long", default: "?")
int main(void) {
${T.map((t, i) => `  ${t.name} ${v(i)} = 0;`).join('\n')}
${qs.map((q) => `  printf("%s\\t${q.format}\\n", ${JSON.stringify(q.key)}, ${q.cExpr});`).join('\n')}
  return 0;
}
`;
}

describe('src/c type model against C (_Generic)', () => {
  it('result types, promotions, aliases, widths and signedness of the 19 spellings match gcc and clang', async () => {
    const qs = queries();
    const src = program(qs);
    const outs: string[][] = [];
    for (const cc of ['gcc', 'clang']) {
      const r = await compileAndRun(src, { cc, flags: ['-std=c11', '-O0'] });
      expect(r.status, `${cc}: ${r.stderr}`).toBe(0);
      outs.push(r.stdout.trimEnd().split('\n'));
    }
    expect(outs[1], 'gcc and clang disagree on a type').toEqual(outs[0]);
    const c = outs[0]!;
    expect(c.length).toBe(qs.length);
    const diffs: string[] = [];
    qs.forEach((q, k) => {
      const [key, answer] = c[k]!.split('\t');
      expect(key).toBe(q.key);
      if (answer !== q.kiln) diffs.push(`${q.key}: C says ${answer}, Kiln says ${q.kiln}`);
    });
    expect(diffs.length, `${diffs.length} type disagreements:\n${diffs.slice(0, 30).join('\n')}`).toBe(0);
    console.log(`result types: ${qs.length} type queries agree`);
  });
});
