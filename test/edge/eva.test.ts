// Reading Frama-C Eva's output: which alarms count as a report. Pure parsing, no tool runs.
import { describe, expect, it } from 'vitest';
import {
  evaAlarmKey,
  evaAlarms,
  parseEva,
  parseRedStatuses,
  parseValidProperties,
  subarraySeparation,
} from '../../src/edge/reports.js';
import {
  alarmStatements,
  assertionBase,
  conditionalOperandsMentioning,
  conditionalWriteOperands,
  innerSequencePoint,
  statementsOnLine,
  type StatementSite,
} from '../../src/edge/seqpoint.js';

/** The first statement on a line. */
const first = (text: string, line: number): StatementSite => statementsOnLine(text, line)[0]!;

const ARRAY_SRC =
  'static signed char g_2[8][6][1] = {0};\nint main(void) { g_2[5][5][0] &= (g_2[5][3][0] ^= 5); return 0; }\n';
const alarm = (assertion: string): string =>
  `[eva] computing for function main\n[eva:alarm] k.c:2: Warning: \n  undefined multiple accesses in ` +
  `expression.\n  assert ${assertion};\n[eva] done for function main\n`;

describe('Eva separation alarms between an element and its sub-array', () => {
  it('are not reports when the prefix is a sub-array by declaration', () => {
    expect(subarraySeparation(String.raw`assert \separated(&g_2[5][3][0], &g_2[5]);`, [ARRAY_SRC])).toBe(true);
    expect(parseEva(alarm(String.raw`\separated(&g_2[5][3][0], &g_2[5])`), [ARRAY_SRC])).toBeUndefined();
  });

  it("are not reports when Eva writes the first row as a cast of the array (a UB-free Kiln program's alarm)", () => {
    const src =
      'int64_t g_3[2][9];\nint main(void) { g_2[0][l] += (++g_3[(uint32_t)l_4 % 1U][7]) <= g_3[0][l]; return 0; }\n';
    expect(
      subarraySeparation(String.raw`\separated(&g_3[(unsigned int)((uint32_t)l_4 % 1U)][7], (int64_t (*)[9])g_3)`, [
        src,
      ]),
    ).toBe(true);
    // Two elements are not a sub-array and an element.
    expect(
      subarraySeparation(String.raw`\separated(&g_3[(unsigned int)((uint32_t)l_4 % 1U)][7], &g_3[0][7])`, [src]),
    ).toBe(false);
    // A struct member that is an array is a sub-array too (a UB-free Kiln program's alarm).
    const member =
      'struct S { uint16_t f4[2]; int f5; };\n' +
      'int main(void) { struct S p_4 = {{0, 0}, 0}; p_4.f5 = ++p_4.f4[0] - p_4.f4[1]; return 0; }\n';
    expect(subarraySeparation(String.raw`\separated(&p_4.f4[0], &p_4.f4)`, [member])).toBe(true);
    expect(subarraySeparation(String.raw`\separated(&p_4.f4[0], &p_4.f5)`, [member])).toBe(false);
    // A pointer against a sub-array member: the member is never read as a whole (a UB-free Kiln
    // program's alarm, for *l_74 = t written beside a read of g_10->f1[1]).
    const ptr = 'struct T { uint32_t f1[4]; };\nstruct T *g_10; int32_t *l_74;\n';
    expect(subarraySeparation(String.raw`\separated(l_74, &g_10->f1)`, [ptr])).toBe(true);
    expect(subarraySeparation(String.raw`\separated(l_74, &g_10->f1[1])`, [ptr])).toBe(false);
    // A member name declared in several structs, an array in one and a scalar in another: the
    // variable's own struct decides (a UB-free Kiln program's alarm, seed 100164 at size small).
    const shared =
      'struct S1 {\n    int8_t f4;\n};\nstruct S3 {\n    int f3;\n    long long f4[4];\n};\n' +
      'static int8_t func_2(uint32_t p_1, struct S3 p_4, struct S1 q);\n';
    expect(
      subarraySeparation(String.raw`\separated(&p_4.f4[(unsigned int)((uint32_t)g_10 % 4U)], &p_4.f4)`, [shared]),
    ).toBe(true);
    expect(subarraySeparation(String.raw`\separated(&q.f4, &p_4.f4[1])`, [shared])).toBe(false);
    // A name whose type the declarations do not give falls back to every declaration of the member.
    expect(subarraySeparation(String.raw`\separated(&r.f4[1], &r.f4)`, [shared])).toBe(false);
    // A cast of something else is not a row.
    expect(subarraySeparation(String.raw`\separated(&g_3[1][7], (int64_t *)p)`, [src])).toBe(false);
  });

  it("are where Eva's analysis stopped when Eva gave them the final status invalid", () => {
    const out =
      alarm(String.raw`\separated(&g_2[5][3][0], &g_2[5])`) +
      "[eva] k.c:2: assertion 'Eva,separation' got final status invalid.\n";
    expect(evaAlarms(out, [ARRAY_SRC])).toEqual({
      cutAt: [
        {
          file: 'k.c',
          line: 2,
          alarm: String.raw`undefined multiple accesses in expression. assert \separated(&g_2[5][3][0], &g_2[5]);`,
        },
      ],
      dismissed: [],
    });
    expect(evaAlarms(alarm(String.raw`\separated(&g_2[5][3][0], &g_2[5])`), [ARRAY_SRC])).toEqual({
      cutAt: [],
      dismissed: [],
    });
  });

  it('are reports without the sources, or when the prefix is a whole element', () => {
    const out = alarm(String.raw`\separated(&g_2[5][3][0], &g_2[5])`);
    expect(parseEva(out)).toMatchObject({ tool: 'eva', kind: 'unsequenced', line: 2 });
    // g_2[5][3][0] is an element of rank 3: nothing extends it, so the pair is not element/sub-array.
    expect(subarraySeparation(String.raw`\separated(&g_2[5][3][0], &g_2[5][3][0])`, [ARRAY_SRC])).toBe(false);
  });

  it('are reports when the prefix may be a pointer or a struct', () => {
    const ptr = 'int *p[4];\nint main(void) { p[1] = (p[1][0] = 2, p[2]); return 0; }\n';
    expect(subarraySeparation(String.raw`\separated(&p[1][0], &p[1])`, [ptr])).toBe(false);
    const undeclared = 'int main(void) { return 0; }\n';
    expect(subarraySeparation(String.raw`\separated(&q[1][0], &q[1])`, [undeclared])).toBe(false);
    const struct = 'struct S { int a[2]; } s[3];\nint main(void) { return 0; }\n';
    expect(subarraySeparation(String.raw`\separated(&s[1].a[0], &s[1])`, [struct])).toBe(false);
  });

  it('counts a genuine unsequenced access', () => {
    const src = 'int a[3];\nint main(void) { int i = 1; a[i] = i++; return 0; }\n';
    const out = alarm(String.raw`\separated(&i, &a[i])`);
    expect(parseEva(out, [src])).toMatchObject({
      kind: 'unsequenced',
      message: String.raw`Frama-C Eva: undefined multiple accesses in expression. assert \separated(&i, &a[i]);`,
    });
  });
});

describe('Eva alarms checked against red statuses and sequence points', () => {
  const RED_CSV =
    'directory\tfile\tline\tfunction\tkind\tname\t#contexts\tstatus\tproperty\n' +
    '.\tk.c\t3\tmain\tAlarm\tshift\t1\tUnknown\t0 <= n < 32\n';
  const overflow = (line: number): string =>
    `[eva:alarm] k.c:${line}: Warning: \n  signed overflow.\n  assert x + 1 <= 2147483647;\n`;

  it('reads the red properties of -eva-report-red-statuses', () => {
    expect([...parseRedStatuses(RED_CSV)]).toEqual(['k.c:3']);
    expect(parseRedStatuses('directory\tfile\tline\n').size).toBe(0);
  });

  it('counts only red alarms when the red list is known: an unknown status is imprecision', () => {
    const red = parseRedStatuses(RED_CSV);
    expect(evaAlarms(overflow(2), [], { red })).toEqual({
      cutAt: [],
      dismissed: ['k.c:2 (signed-overflow, unknown status)'],
    });
    expect(evaAlarms(overflow(3), [], { red }).report).toMatchObject({ kind: 'signed-overflow', line: 3 });
    // A kind a clean UBSan run checked on the program's one path is ruled out, red or not.
    expect(evaAlarms(overflow(3), [], { red, ruledOut: new Set(['signed-overflow'] as const) })).toEqual({
      cutAt: [],
      dismissed: ['k.c:3 (signed-overflow, ruled out by a clean run that checks it)'],
    });
    // Without the list (Eva timed out before writing it), every alarm counts.
    expect(evaAlarms(overflow(2)).report).toMatchObject({ line: 2 });
  });

  it('finds inner sequence points: comma, &&, ||, ?: and calls, in the statement at a line', () => {
    const src = [
      'int g, h, a[2];', // 1
      'int f(int x) { return x; }', // 2
      'int main(void) {', // 3
      '  g = f(g = 1);', // 4
      '  g = (g--, 5);', // 5
      '  g = (g++ || h);', // 6
      '  g = h ? g++ : 0;', // 7
      '  g = (g = 2) + g;', // 8
      '  if ((h = 1) + h) { g = f(1); }', // 9
      '  for (h = 0; h < (h = 1); h++) g = (g, 1);', // 10
      '  return 0;', // 11
      '}', // 12
    ].join('\n');
    expect([4, 5, 6].map((l) => innerSequencePoint(src, first(src, l)))).toEqual([true, true, true]);
    // A write in a ?: branch is not ordered before the store (line 7); no sequence point at all
    // (line 8); a body's call is not its if's condition (line 9); h = 1 is unordered (line 10).
    expect([7, 8, 9, 10, 11].map((l) => innerSequencePoint(src, first(src, l)))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('dismisses an unsequenced red alarm across a sequence point, and keeps one without', () => {
    const sep = (line: number): string =>
      `[eva:alarm] k.c:${line}: Warning: \n  undefined multiple accesses in expression.\n  assert ` +
      `\\separated(&g, &g);\n`;
    const twoLines =
      'int g;\nint f(int x) { return x; }\nint main(void) {\n  g = f(g = 1);\n  g = (g = 2) + g;\n  return 0;\n}\n';
    const files2 = new Map([['k.c', twoLines]]);
    expect(evaAlarms(sep(4), [twoLines], { files: files2 })).toEqual({
      cutAt: [],
      dismissed: ['k.c:4 (unsequenced, across a sequence point)'],
    });
    // Given the final status invalid, Eva's path ended there: the clean verdict is partial.
    const ended = `${sep(4)}[eva] k.c:4: assertion 'Eva,separation' got final status invalid.\n`;
    expect(evaAlarms(ended, [twoLines], { files: files2 }).cutAt).toEqual([
      {
        file: 'k.c',
        line: 4,
        alarm: String.raw`undefined multiple accesses in expression. assert \separated(&g, &g);`,
      },
    ]);
    expect(evaAlarms(sep(5), [twoLines], { files: files2 }).report).toMatchObject({ kind: 'unsequenced', line: 5 });
  });

  it("finds the conditionally evaluated operands that hold all of a statement's inner writes", () => {
    const t =
      'int g, l, c;\nint main(void) {\n  l = (c && (l = 1));\n  l -= (c ? g : l++);\n' +
      '  l = (c ? l++ : 0) + (g = 1);\n  if ((l = 2) || (g = 3)) g = 1;\n  l = c || g;\n  return 0;\n}\n';
    const at = (line: number): string[] | undefined =>
      conditionalWriteOperands(t, first(t, line))?.map((o) => t.slice(o.start, o.end));
    expect(at(3)).toEqual(['(l = 1)']);
    expect(at(4)).toEqual(['l++']);
    // A write outside such an operand (g = 1; l = 2 in the first operand of ||) is not conditional.
    expect(at(5)).toBeUndefined();
    expect(at(6)).toBeUndefined();
    expect(at(7)).toBeUndefined();
  });

  it('names the variable an assertion is about, and the conditional operands holding every access to it', () => {
    expect(assertionBase('out of bounds read. assert \\valid_read(l_27->f1.f0);')).toBe('l_27');
    expect(assertionBase('out of bounds read. assert \\valid_read(p + g);')).toBe('p');
    expect(assertionBase('accessing uninitialized left-value. assert \\initialized(&t_222);')).toBe('t_222');
    expect(assertionBase('out of bounds read. assert \\valid_read((uint32_t *)q);')).toBe('q');
    const t =
      'int g, *p, *q, c;\nint main(void) {\n  c = (g >= 6) || (*p);\n  c = g ? 0 : (c && *p);\n' +
      '  c = *p || (*p);\n  c = (g >= 6) || (*q);\n  return 0;\n}\n';
    const at = (line: number, v: string): string[] | undefined =>
      conditionalOperandsMentioning(t, first(t, line), [v])?.map((o) => t.slice(o.start, o.end));
    expect(at(3, 'p')).toEqual(['(*p)']);
    // The innermost operand: *p is read only if g is 0 and c is not.
    expect(at(4, 'p')).toEqual(['*p']);
    // Read unconditionally too: nothing to dismiss.
    expect(at(5, 'p')).toBeUndefined();
    // Not mentioned at all.
    expect(at(6, 'p')).toBeUndefined();
    // g is read in the unconditional left operand.
    expect(at(3, 'g')).toBeUndefined();
  });

  it('dismisses an unsequenced alarm whose conditional write the run never evaluated', () => {
    const t = 'int l, c;\nint main(void) {\n  l = (c && (l = 1));\n  return 0;\n}\n';
    const out =
      '[eva:alarm] k.c:3: Warning: \n  undefined multiple accesses in expression.\n' +
      "  assert \\separated(&l, &l);\n[eva] k.c:3: assertion 'Eva,separation' got final status invalid.\n";
    const files = new Map([['k.c', t]]);
    expect(evaAlarms(out, [t], { files }).report).toMatchObject({ kind: 'unsequenced', line: 3 });
    const key = evaAlarmKey(evaAlarms(out, [t], { files }).report!);
    expect(evaAlarms(out, [t], { files, notRun: new Set([key]) })).toEqual({
      cutAt: [
        {
          file: 'k.c',
          line: 3,
          alarm: String.raw`undefined multiple accesses in expression. assert \separated(&l, &l);`,
        },
      ],
      dismissed: ['k.c:3 (unsequenced, on a statement or operand the run never evaluated)'],
    });
  });
});

describe('Eva alarms on a line that holds several statements', () => {
  const sep = (line: number, v: string): string =>
    `[eva:alarm] k.c:${line}: Warning: \n  undefined multiple accesses in expression.\n  assert ` +
    `\\separated(&${v}, &${v});\n`;
  const texts = (t: string, line: number): string[] => statementsOnLine(t, line).map((x) => t.slice(x.start, x.end));

  it('lists every statement that starts on the line, the one Eva names by it', () => {
    const t =
      'int x, i, c;\nint main(void) {\n  if (c) {\n    x = 1; } else { i = i++ + 1; }\n  if (c) x = 2;\n' +
      '  return 0;\n}\n';
    expect(texts(t, 4)).toEqual(['x = 1;', 'i = i++ + 1;']);
    expect(texts(t, 5)).toEqual(['if (c) x = 2;', 'x = 2;']);
    // An unsequenced alarm is about a statement with a write inside an expression, naming its variable.
    const about = (line: number, alarm: string): string[] =>
      alarmStatements(t, line, alarm).map((x) => t.slice(x.start, x.end));
    expect(about(4, String.raw`undefined multiple accesses in expression. assert \separated(&i, &i);`)).toEqual([
      'i = i++ + 1;',
    ]);
    expect(about(4, 'out of bounds write. assert \\valid(&x);')).toEqual(['x = 1;']);
    // An assertion about nothing the line names keeps every statement.
    expect(about(4, 'signed overflow. assert tmp + 1 <= 2147483647;')).toEqual(['x = 1;', 'i = i++ + 1;']);
  });

  it('dismisses an unsequenced alarm across a sequence point only when every statement it can be about has one', () => {
    const t =
      'int g, i;\nint f(int v) { return v; }\nint main(void) {\n  g = f(g = 1); i = i++ + 1;\n' +
      '  g = f(g = 1); i = 1;\n  return 0;\n}\n';
    const files = new Map([['k.c', t]]);
    expect(evaAlarms(sep(4, 'i'), [t], { files }).report).toMatchObject({ kind: 'unsequenced', line: 4 });
    expect(evaAlarms(sep(4, 'g'), [t], { files }).report).toBeUndefined();
    expect(evaAlarms(sep(5, 'g'), [t], { files }).report).toBeUndefined();
  });

  it('dismisses one alarm of a line for a probe, not the others', () => {
    const t = 'int l, i, c;\nint main(void) {\n  l = (c && (l = 1)); i = i++ + 1;\n  return 0;\n}\n';
    const files = new Map([['k.c', t]]);
    const out = sep(3, 'l') + sep(3, 'i');
    const first = evaAlarms(out, [t], { files }).report!;
    expect(first.message).toContain('&l');
    expect(evaAlarms(out, [t], { files, notRun: new Set([evaAlarmKey(first)]) }).report).toMatchObject({
      kind: 'unsequenced',
      line: 3,
      message: expect.stringContaining('&i'),
    });
    expect(evaAlarms(out, [t], { files, holds: new Map([[evaAlarmKey(first), 'shown']]) }).report).toMatchObject({
      line: 3,
      message: expect.stringContaining('&i'),
    });
  });

  it('drops an alarm Eva proves later, not the other alarms of its line', () => {
    const t =
      'struct S { volatile short f0; long f2; } g;\nint x, i;\nint main(void) {\n' +
      '  x = (int)(g.f2 & (++g.f0)); i = i++ + 1;\n  return 0;\n}\n';
    const fields =
      '[eva:alarm] k.c:4: Warning: \n  undefined multiple accesses in expression. assert \\separated(&g.f0, &g.f2);\n';
    const out = `${fields}${sep(4, 'i')}[eva] k.c:4: assertion 'Eva,separation' got final status valid.\n`;
    const csv =
      'directory\tfile\tline\tfunction\tkind\tname\t#contexts\tstatus\tproperty\n' +
      '.\tk.c\t4\tmain\tAlarm\tseparation\t1\tValid\t\\separated(&g.f0, &g.f2)\n' +
      '.\tk.c\t4\tmain\tAlarm\tseparation\t1\tInvalid or unreachable\t\\separated(&i, &i)\n';
    const files = new Map([['k.c', t]]);
    // The red list names the property proven.
    expect(
      evaAlarms(out, [t], { files, red: parseRedStatuses(csv), valid: parseValidProperties(csv) }).report,
    ).toMatchObject({ line: 4, message: expect.stringContaining('&i, &i') });
    // Without it, one "valid" for two alarms says neither which: both stand.
    expect(evaAlarms(out, [t], { files }).report).toMatchObject({ line: 4, message: expect.stringContaining('&g.f0') });
  });
});
