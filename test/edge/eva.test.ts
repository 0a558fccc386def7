// Reading Frama-C Eva's output: which alarms count as a report. Pure parsing, no tool runs.
import { describe, expect, it } from 'vitest';
import { evaAlarms, parseEva, subarraySeparation } from '../../src/edge/reports.js';

const ARRAY_SRC = 'static signed char g_2[8][6][1] = {0};\nint main(void) { g_2[5][5][0] &= (g_2[5][3][0] ^= 5); return 0; }\n';
const alarm = (assertion: string): string =>
  `[eva] computing for function main\n[eva:alarm] k.c:2: Warning: \n  undefined multiple accesses in expression.\n  assert ${assertion};\n[eva] done for function main\n`;

describe('Eva separation alarms between an element and its sub-array', () => {
  it('are not reports when the prefix is a sub-array by declaration', () => {
    expect(subarraySeparation(String.raw`assert \separated(&g_2[5][3][0], &g_2[5]);`, [ARRAY_SRC])).toBe(true);
    expect(parseEva(alarm(String.raw`\separated(&g_2[5][3][0], &g_2[5])`), [ARRAY_SRC])).toBeUndefined();
  });

  it("are where Eva's analysis stopped when Eva gave them the final status invalid", () => {
    const out = alarm(String.raw`\separated(&g_2[5][3][0], &g_2[5])`) + "[eva] k.c:2: assertion 'Eva,separation' got final status invalid.\n";
    expect(evaAlarms(out, [ARRAY_SRC])).toEqual({ cutAt: [2] });
    expect(evaAlarms(alarm(String.raw`\separated(&g_2[5][3][0], &g_2[5])`), [ARRAY_SRC])).toEqual({ cutAt: [] });
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
    expect(parseEva(out, [src])).toMatchObject({ kind: 'unsequenced', message: 'Frama-C Eva: undefined multiple accesses in expression.' });
  });
});
