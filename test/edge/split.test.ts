// splitSequencePoints: the statement Eva stopped at is rewritten with GNU statement expressions
// that evaluate the same operands in the same order, on the same lines. Checked against the text,
// and by building both versions with gcc and comparing what they print.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { objectsInScope, splitSequencePoints, statementsOnLine, usesOf } from '../../src/edge/seqpoint.js';

const dir = mkdtempSync(join(tmpdir(), 'kiln-split-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Builds `text` with gcc -O0 and returns what it prints. */
function output(name: string, text: string): string {
  const src = join(dir, `${name}.c`);
  writeFileSync(src, text);
  const c = spawnSync('gcc', ['-O0', '-w', src, '-o', join(dir, name)], { encoding: 'utf8' });
  expect(c.status, c.stderr).toBe(0);
  const r = spawnSync(join(dir, name), [], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  return r.stdout;
}

const PROGRAM = (stmt: string): string =>
  `#include <stdio.h>\nint g = 3, h = 0, a[2][3] = {{1, 2, 3}, {4, 5, 6}};\nint f(int v) { h += v; return v ` +
  `+ 1; }\nint main(void) {\n  int x = 7;\n  ${stmt}\n  printf("%d %d %d %d %d %d\\n", x, g, h, a[1][0], ` +
  `a[1][1], a[1][2]);\n  return 0;\n}\n`;

describe('splitSequencePoints', () => {
  const cases = [
    'a[1][2] = (a[1][0] = 5) + g;',
    'a[1][2] &= ((g > 2) && (a[1][0] ^= 5));',
    'x = (g = 1, g + 4);',
    'x = (h || (g = 9)) ? (a[1][1] += 2) : (h = 4);',
    'x += f(g = 2) * (g ? (h = 1) : 2);',
    'return (g = 4, f(g)) - 5 + (a[1][2] = 0);',
  ];
  for (const stmt of cases) {
    it(`keeps what \`${stmt}\` does, on its line`, () => {
      const text = PROGRAM(stmt);
      const split = splitSequencePoints(text, statementsOnLine(text, 6), 0);
      expect(split).toBeDefined();
      expect(split!.split('\n')).toHaveLength(text.split('\n').length);
      expect(split!.split('\n')[5]).toContain('({');
      expect(output(`split-${cases.indexOf(stmt)}`, split!)).toBe(output(`orig-${cases.indexOf(stmt)}`, text));
    });
  }

  it('leaves a statement without an inner write alone', () => {
    const text = PROGRAM('x = (g, h) + (g && h);');
    expect(splitSequencePoints(text, statementsOnLine(text, 6), 0)).toBeUndefined();
  });

  it('keeps the lines of a statement that spans several', () => {
    const text = PROGRAM('x = (g = 1,\n    g + (h ? 2 : (h = 3)));');
    const split = splitSequencePoints(text, statementsOnLine(text, 6), 0)!;
    expect(split.split('\n')).toHaveLength(text.split('\n').length);
    expect(output('multi-split', split)).toBe(output('multi-orig', text));
  });
});

describe('what a probe build can name at a statement', () => {
  const text =
    'int g = 1;\nconst int k = 2;\nint *p = &g;\nint f(int q, int *r) {\n  int l = 3;\n  {\n' +
    '    int m = *r;\n    l += *p + m;\n  }\n  int later = 0;\n  return l + later;\n}\n';
  it('lists the objects in scope before the statement, innermost last, not later ones', () => {
    expect(
      objectsInScope(text, statementsOnLine(text, 8)[0]!).map((o) => `${o.name}${o.isConst ? '(const)' : ''}`),
    ).toEqual(['g', 'k(const)', 'p', 'q', 'r', 'l', 'm']);
  });

  it("finds a statement's dereferences of a pointer and its plain reads of a variable", () => {
    expect(usesOf(text, statementsOnLine(text, 8)[0]!, 'p', 'deref')?.map((u) => u.text)).toEqual(['p']);
    expect(usesOf(text, statementsOnLine(text, 8)[0]!, 'm', 'read')?.map((u) => u.text)).toEqual(['m']);
    // `l += …` reads l as an lvalue that cannot be wrapped.
    expect(usesOf(text, statementsOnLine(text, 8)[0]!, 'l', 'read')).toBeUndefined();
    expect(usesOf(text, statementsOnLine(text, 8)[0]!, 'g', 'read')).toBeUndefined();
  });
});
