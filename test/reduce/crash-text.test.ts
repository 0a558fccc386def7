// Warnings of a reduced crash case fixed as a person would before filing it, each edit kept only
// while the test holds: gcc 12 and clang 16 as the validity compilers.
import { describe, expect, it } from 'vitest';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { tidyWarnings, warningFixes } from '../../src/reduce/crash-text.js';
import { ValidityChecker } from '../../src/reduce/validity.js';
import { requireTool } from '../support/cc.js';

// Every warning kind the IR reducer's crash cases showed: unused helper, missing return,
// unused parameter, unused variable, statement without effect, empty body.
const CASE = `#include <stdint.h>
static uint64_t kiln_crc = 0xCBF29CE484222325ULL;
static void kiln_hash(uint64_t v) { kiln_crc = (kiln_crc ^ v) * 0x100000001B3ULL; kiln_crc ^= kiln_crc >> 29; }
static int g_1 = 3;
int64_t func_4(int p_6, int p_7) {
    int l_117 = 0;
    int l_9 = 2;
    l_9;
    if (p_6) ;
    for (; l_117 < p_6; l_117 += 1) g_1 += KEEP;
}
int main(void) { return (int)func_4(1, 2) - 3 + g_1; }
`;

describe('tidying the warnings of a reduced case', () => {
  it('removes every warning of gcc 12 and clang 16 with -Wall -Wextra while the test holds', async () => {
    requireTool('gcc-12');
    requireTool('clang-16');
    const checker = new ValidityChecker([await resolveCompiler('gcc-12'), await resolveCompiler('clang-16')]);
    const text = CASE.replace('KEEP', '1');
    const before = await checker.strictly().check([{ name: 'prog.c', content: text }]);
    expect(before.diagnostics.filter((d) => d.code === 'warning').length).toBeGreaterThan(6);
    // The "crash" needs the loop that adds to g_1.
    const test = async (t: string): Promise<boolean> => /for \(; l_117 < p_6; l_117 \+= 1\) g_1 \+= 1;/.test(t);
    const r = await tidyWarnings(text, checker, test);
    expect(r.warnings).toBe(0);
    await expect(test(r.text)).resolves.toBe(true);
    const after = await checker.strictly().check([{ name: 'prog.c', content: r.text }]);
    expect(after.ok, JSON.stringify(after.diagnostics)).toBe(true);
    // The fixes a person makes: a return, a (void) for the parameter, no empty body, no dead helper.
    expect(r.text).toMatch(/return 0; \}/);
    expect(r.text).toContain('(void)p_7;');
    expect(r.text).not.toContain('kiln_hash');
    expect(r.text).not.toContain('l_9');
  });

  it('keeps a variable the crash needs and silences it with a (void) use', async () => {
    requireTool('gcc-12');
    requireTool('clang-16');
    const checker = new ValidityChecker([await resolveCompiler('gcc-12'), await resolveCompiler('clang-16')]);
    // The loop-deletion crash of docs/bugs-found.md needs the label table and the counter.
    const text = `int g(void) {
  int e = 1;
  int a = 1;
  do { for (; a; a += 1) e += 1; b: ; } while (a);
  void *f[] = { &&c, &&b }; goto *0;
  c: ;
  return 0;
}
int main(void) { return g(); }
`;
    const test = async (t: string): Promise<boolean> => /void \*f\[\] = \{ &&c, &&b \};/.test(t) && /e \+= 1/.test(t);
    const r = await tidyWarnings(text, checker, test);
    expect(r.warnings).toBe(0);
    expect(r.text).toContain('void *f[] = { &&c, &&b }; (void)f;');
    expect(r.text).toContain('int e = 1; (void)e;');
  });

  it('keeps the text when no edit keeps the test', async () => {
    requireTool('gcc-12');
    const checker = new ValidityChecker([await resolveCompiler('gcc-12')]);
    const text = CASE.replace('KEEP', '1');
    const r = await tidyWarnings(text, checker, async (t) => t === text);
    expect(r.text).toBe(text);
    expect(r.warnings).toBeGreaterThan(0);
  });

  it('offers the specific fix first and the line deletion after it', () => {
    const fixes = warningFixes('int f(void) {\n  int x;\n}\n', {
      line: 3,
      column: 1,
      message: 'control reaches end of non-void function [-Wreturn-type]',
      option: 'return-type',
    });
    expect(fixes[0]).toBe('int f(void) {\n  int x;\nreturn 0; }\n');
    expect(fixes.at(-1)).toBe('int f(void) {\n  int x;\n');
  });
});
