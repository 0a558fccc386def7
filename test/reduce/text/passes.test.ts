// One test per pass, one recipe: input → every transform the pass proposes → an expected
// candidate is among them (and, where it matters, a wrong one is not).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CParser } from '../../../src/reduce/text/parser.js';
import { PASSES, type PassName } from '../../../src/reduce/text/passes/index.js';
import { allTransforms, squash } from './recipe.js';

interface PassCase {
  readonly pass: PassName;
  /** What the case shows. */
  readonly title: string;
  readonly input: string;
  /** Candidates that must be proposed (compared with blanks collapsed). */
  readonly expected: readonly string[];
  /** Candidates that must not be proposed. */
  readonly never?: readonly string[];
}

const CASES: readonly PassCase[] = [
  {
    pass: 'top-level',
    title: 'removes a global, a struct definition with its semicolon, and a function',
    input: 'struct S { int x; };\nint g = 1;\nint f(void) { return g; }\nint main(void) { return 0; }\n',
    expected: [
      'struct S { int x; }; int f(void) { return g; } int main(void) { return 0; }',
      'int g = 1; int f(void) { return g; } int main(void) { return 0; }',
      'struct S { int x; }; int g = 1; int main(void) { return 0; }',
    ],
  },
  {
    pass: 'statements',
    title: 'removes one statement, a whole loop, and a local declaration',
    input: 'int main(void) {\n  int k = 2;\n  k++;\n  while (k) { k--; }\n  return k;\n}\n',
    expected: [
      'int main(void) { int k = 2; while (k) { k--; } return k; }',
      'int main(void) { int k = 2; k++; return k; }',
      'int main(void) { k++; while (k) { k--; } return k; }',
      'int main(void) { int k = 2; k++; while (k) { } return k; }',
    ],
  },
  {
    pass: 'control-flow',
    title: 'replaces if/else by either arm, drops the else, and turns loops into their bodies',
    input: 'void f(int c) { if (c) a(); else b(); for (;;) { d(); } do e(); while (c); }\n',
    expected: [
      'void f(int c) { a(); for (;;) { d(); } do e(); while (c); }',
      'void f(int c) { b(); for (;;) { d(); } do e(); while (c); }',
      'void f(int c) { if (c) a(); for (;;) { d(); } do e(); while (c); }',
      'void f(int c) { if (c) a(); else b(); { d(); } do e(); while (c); }',
      'void f(int c) { if (c) a(); else b(); for (;;) { d(); } e(); }',
    ],
  },
  {
    pass: 'blocks',
    title: 'unwraps nested blocks and one-statement bodies, and empties empty bodies',
    input: 'void f(int c) { { a(); b(); } if (c) { a(); } while (c) { } }\n',
    expected: [
      'void f(int c) { a(); b(); if (c) { a(); } while (c) { } }',
      'void f(int c) { { a(); b(); } if (c) a(); while (c) { } }',
      'void f(int c) { { a(); b(); } if (c) { a(); } while (c) ; }',
    ],
  },
  {
    pass: 'call-args',
    title: 'removes a parameter with the matching argument of every call and prototype',
    input:
      'int f(int a, int b);\nint f(int a, int b) { return b; }\nint main(void) { return f(1, 2) + f(3, f(4, 5)); }\n',
    expected: [
      'int f(int b); int f(int b) { return b; } int main(void) { return f(2) + f(f(5)); }',
      'int f(int a); int f(int a) { int b = 0; return b; } int main(void) { return f(1) + f(3); }',
    ],
  },
  {
    pass: 'expressions-zero',
    title: 'replaces expressions by 0, never an assignment target',
    input: 'int gg;\nint main(void) { gg = gg * 3 + 1; return gg; }\n',
    expected: [
      'int gg; int main(void) { gg = 0; return gg; }',
      'int gg; int main(void) { gg = 0 + 1; return gg; }',
      'int gg; int main(void) { gg = gg * 3 + 1; return 0; }',
    ],
    never: ['int gg; int main(void) { 0 = gg * 3 + 1; return gg; }'],
  },
  {
    pass: 'expressions',
    title: 'replaces an expression by 1 or one of its operands, a call by an argument or its name',
    input: 'int h(int);\nint main(void) { return h(7) * (2 + 3); }\n',
    expected: [
      'int h(int); int main(void) { return 1; }',
      'int h(int); int main(void) { return h(7); }',
      'int h(int); int main(void) { return (2 + 3); }',
      'int h(int); int main(void) { return 7 * (2 + 3); }',
      'int h(int); int main(void) { return h * (2 + 3); }',
    ],
  },
  {
    pass: 'lines',
    title: 'tries halves, then quarters, from the end backward',
    input: 'a\nb\nc\nd\n',
    expected: ['', 'a b', 'c d', 'a b c', 'a b d'],
  },
  {
    pass: 'lines-coarse',
    title: 'on a small file, the same sweep as the line pass (its floor is 1/32 of the lines)',
    input: 'a\nb\nc\nd\n',
    expected: ['', 'a b', 'c d', 'a b c', 'a b d'],
  },
  {
    pass: 'rename',
    title: 'renames a long identifier to a short unused name everywhere, never main or library names',
    input:
      'int printf(const char *, ...);\nint counter;\n' +
      'int main(void) { counter = counter + 1; return printf("%d", counter); }\n',
    expected: ['int printf(const char *, ...); int a; int main(void) { a = a + 1; return printf("%d", a); }'],
    never: [
      'int a(const char *, ...); int counter; int main(void) { counter = counter + 1; return a("%d", counter); }',
    ],
  },
  {
    pass: 'cleanup',
    title: 'removes redundant parentheses, casts, qualifiers, comments and for clauses, keeping needed parentheses',
    input:
      '/* note */\nstatic const int g = (4);\n' +
      'int main(void) { for (int i = 0; i < 2; i++) ; if (g) return (int)(g + 1) * 2; return 0; }\n',
    expected: [
      'static const int g = (4); int main(void) { for (int i = 0; i < 2; i++) ; if (g) return (int)(g + 1) ' +
        '* 2; return 0; }',
      '/* note */ static const int g = 4; int main(void) { for (int i = 0; i < 2; i++) ; if (g) return ' +
        '(int)(g + 1) * 2; return 0; }',
      '/* note */ static const int g = (4); int main(void) { for (int i = 0; i < 2; i++) ; if (g) return (g ' +
        '+ 1) * 2; return 0; }',
      '/* note */ const int g = (4); int main(void) { for (int i = 0; i < 2; i++) ; if (g) return (int)(g + ' +
        '1) * 2; return 0; }',
      '/* note */ static const int g = (4); int main(void) { for (; i < 2; i++) ; if (g) return (int)(g + ' +
        '1) * 2; return 0; }',
      '/* note */ static const int g = (4); int main() { for (int i = 0; i < 2; i++) ; if (g) return ' +
        '(int)(g + 1) * 2; return 0; }',
    ],
    never: [
      '/* note */ static const int g = (4); int main(void) { for (int i = 0; i < 2; i++) ; if (g) return ' +
        '(int)g + 1 * 2; return 0; }',
      '/* note */ static const int g = (4); int main(void) { for (int i = 0; i < 2; i++) ; if g return ' +
        '(int)(g + 1) * 2; return 0; }',
    ],
  },
  {
    pass: 'blank',
    title: 'drops blank lines and re-indents by brace depth',
    input: 'int main(void)\n{\n\n        int   x = 1;\n    return x;   \n}\n',
    expected: ['int main(void) { int x = 1; return x; }'],
  },
];

describe('text reduction passes', () => {
  for (const c of CASES) {
    it(`${c.pass}: ${c.title}`, () => {
      const got = allTransforms(PASSES[c.pass](), c.input).map(squash);
      for (const e of c.expected) expect(got).toContain(squash(e));
      for (const n of c.never ?? []) expect(got).not.toContain(squash(n));
    });
  }

  it('every pass has a case', () => {
    expect(new Set(CASES.map((c) => c.pass))).toEqual(new Set(Object.keys(PASSES)));
  });

  it('lines-coarse: on a large file stops at chunks of 1/32 of its lines', () => {
    const input = `${Array.from({ length: 640 }, (_, i) => `x${i};`).join('\n')}\n`;
    const fine = allTransforms(PASSES.lines(), input);
    const coarse = allTransforms(PASSES['lines-coarse'](), input);
    // 1 + 2 + … + 32 chunks (sizes 640 down to 20), against down to single lines.
    expect(coarse.length).toBe(1 + 2 + 4 + 8 + 16 + 32);
    expect(fine.length).toBeGreaterThan(1000);
    const removed = (t: string) => 640 - t.split('\n').filter((l) => l !== '').length;
    expect(Math.min(...coarse.map(removed))).toBe(20);
  });

  it('blank: re-indents exactly', () => {
    const got = allTransforms(PASSES.blank(), 'int main(void)\n{\n\n        int   x = 1;\n    return x;   \n}\n');
    expect(got[0]).toBe('int main(void)\n{\n  int x = 1;\n  return x;\n}\n');
  });

  it('all passes but the line pass keep a valid program parseable (hand-written ring.c)', () => {
    const src = readFileSync(new URL('./fixtures/ring.c', import.meta.url), 'utf8');
    const parser = new CParser();
    for (const name of Object.keys(PASSES) as PassName[]) {
      if (name === 'lines' || name === 'lines-coarse') continue;
      const candidates = allTransforms(PASSES[name](), src);
      expect(candidates.length, name).toBeGreaterThan(0);
      for (const t of candidates) expect(parser.errorCount(t), `${name} candidate:\n${t}`).toBe(0);
    }
  });
});
