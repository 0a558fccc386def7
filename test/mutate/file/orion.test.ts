// Orion on C text: which statements a line profile lets it delete, how they leave the text, and
// that variants depend on (seed, index) alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGcovJson, type LineCounts } from '../../../src/mutate/file/gcov.js';
import { orionCandidates, orionFileVariant } from '../../../src/mutate/file/orion.js';
import { CParser } from '../../../src/reduce/text/parser.js';

// Line numbers in the comments; the counts below are what a run with x = 3 could give.
const SOURCE = [
  'int g;', // 1
  'int f(int x) {', // 2
  '  int y = x;', // 3
  '  if (x > 100) {', // 4
  '    g = 1;', // 5
  '    g = 2;', // 6
  '  }', // 7
  '  if (x) g = 3;', // 8
  '  else', // 9
  '    g = 4;', // 10
  '  if (x < 0) goto L;', // 11
  '  {', // 12
  '  L: g = 5;', // 13
  '  }', // 14
  '  {', // 15
  '    int z = 6;', // 16
  '    g = z;', // 17
  '  }', // 18
  '  return y;', // 19
  '}', // 20
  '',
].join('\n');

const COUNTS: LineCounts = new Map([
  [2, 1],
  [3, 0], // a declaration that never ran: never deleted
  [4, 1],
  [5, 0],
  [6, 0],
  [8, 1],
  [10, 0],
  [11, 1],
  [13, 0],
  [16, 0],
  [17, 0],
  [19, 1],
]);

const parser = new CParser();
const root = (text: string) => parser.parse(text).rootNode;

describe('parseGcovJson', () => {
  it('reads the counts of the named source only, summing repeated lines, across documents', () => {
    const doc1 = JSON.stringify({
      files: [
        { file: '/usr/include/csmith/safe_math.h', lines: [{ line_number: 5, count: 9 }] },
        {
          file: 'prog.c',
          lines: [
            { line_number: 3, count: 2 },
            { line_number: 4, count: 0 },
            { line_number: 3, count: 1 },
          ],
        },
      ],
    });
    const doc2 = JSON.stringify({ files: [{ file: 'prog.c', lines: [{ line_number: 7, count: 0 }] }] });
    const c = parseGcovJson(`${doc1}\n${doc2}\n`, 'prog.c');
    expect([...c].sort((a, b) => a[0] - b[0])).toEqual([
      [3, 3],
      [4, 0],
      [7, 0],
    ]);
  });

  it('refuses output that is not gcov JSON or does not mention the source', () => {
    expect(() => parseGcovJson('not json', 'a.c')).toThrow(/not JSON/);
    expect(() => parseGcovJson(JSON.stringify({ files: [{ file: 'b.c', lines: [] }] }), 'a.c')).toThrow(
      /no coverage for a.c/,
    );
  });
});

describe('orionCandidates', () => {
  it('takes unexecuted statements only: no declaration, no label holder, no line shared with executed code', () => {
    const found = orionCandidates(root(SOURCE), COUNTS).map(
      (n) => `${n.startPosition.row + 1}:${n.text.split('\n')[0]}`,
    );
    expect(found).toEqual(['5:g = 1;', '6:g = 2;', '10:g = 4;', '13:g = 5;', '15:{', '17:g = z;']);
  });

  it('walks a nested function once and leaves statement expressions alone', () => {
    const text = [
      'int f(int x) {',
      '  int g(int a) {',
      '    a++;',
      '    return a;',
      '  }',
      '  if (x > 9) {',
      '    x = ({ int q = 2;',
      '      q; });',
      '  }',
      '  return g(x);',
      '}',
      '',
    ].join('\n');
    const counts = new Map([
      [1, 1],
      [2, 0],
      [3, 0],
      [4, 0],
      [6, 1],
      [7, 0],
      [8, 0],
      [10, 1],
    ]);
    expect(orionCandidates(root(text), counts).map((n) => n.text)).toEqual([
      'a++;',
      'return a;',
      'x = ({ int q = 2;\n      q; });',
    ]);
    const lines = text.split('\n');
    let both = 0;
    for (let i = 1; i <= 40; i++) {
      const v = orionFileVariant(text, root(text), counts, '3', i).text;
      expect(parser.errorCount(v)).toBe(0);
      // Only whole lines go (every candidate here is alone on its lines), in order.
      let at = 0;
      for (const l of v.split('\n')) {
        while (at < lines.length && lines[at] !== l) at++;
        expect(at).toBeLessThan(lines.length);
        at++;
      }
      if (!v.includes('a++') && !v.includes('x = ({')) both++;
    }
    expect(both).toBeGreaterThan(0);
  });

  it('finds nothing when every line ran', () => {
    const all = new Map([...COUNTS].map(([l]) => [l, 1] as [number, number]));
    expect(orionCandidates(root(SOURCE), all)).toEqual([]);
  });
});

describe('orionFileVariant', () => {
  it('is the same text for the same seed and index, and varies across indices', () => {
    const a = orionFileVariant(SOURCE, root(SOURCE), COUNTS, '7', 3);
    const b = orionFileVariant(SOURCE, root(SOURCE), COUNTS, '7', 3);
    expect(b).toEqual(a);
    const texts = new Set(
      Array.from({ length: 30 }, (_, i) => orionFileVariant(SOURCE, root(SOURCE), COUNTS, '7', i + 1).text),
    );
    expect(texts.size).toBeGreaterThan(5);
  });

  it('removes statements with their lines, empties required bodies with `;`, and keeps executed code', () => {
    let sawEmptyElse = false;
    let sawLabelKept = false;
    for (let i = 1; i <= 60; i++) {
      const v = orionFileVariant(SOURCE, root(SOURCE), COUNTS, '1', i);
      expect(parser.errorCount(v.text)).toBe(0);
      for (const live of [
        '  int y = x;',
        '  if (x > 100) {',
        '  if (x) g = 3;',
        '  else',
        '  if (x < 0) goto L;',
        '  return y;',
      ])
        expect(v.text).toContain(live);
      expect(v.text).toContain('L:');
      expect(v.text).not.toMatch(/\n[ \t]*\n/); // a removed statement takes its line along
      if (v.text.includes('  else\n    ;\n')) sawEmptyElse = true;
      if (v.text.includes('  L: ;')) sawLabelKept = true;
      expect(v.deleted).toBeGreaterThanOrEqual(0);
      if (v.deleted === 0) expect(v.text).toBe(SOURCE);
      else expect(v.text).not.toBe(SOURCE);
    }
    expect(sawEmptyElse).toBe(true);
    expect(sawLabelKept).toBe(true);
  });

  it('never touches a line that ran, and every variant parses (random line profiles)', () => {
    const lines = SOURCE.split('\n');
    const profile = fc.array(fc.constantFrom<number | undefined>(undefined, 0, 0, 1), {
      minLength: lines.length,
      maxLength: lines.length,
    });
    fc.assert(
      fc.property(profile, fc.nat(1000), fc.nat(50), (per, seed, index) => {
        const counts = new Map<number, number>();
        for (const [i, c] of per.entries()) if (c !== undefined) counts.set(i + 1, c);
        const v = orionFileVariant(SOURCE, root(SOURCE), counts, String(seed), index);
        expect(parser.errorCount(v.text)).toBe(0);
        // Lines that ran appear in the variant unchanged and in order.
        const out = v.text.split('\n');
        let at = 0;
        for (const [line, c] of [...counts].sort((a, b) => a[0] - b[0])) {
          if (c === 0) continue;
          while (at < out.length && out[at] !== lines[line - 1]) at++;
          expect(at).toBeLessThan(out.length);
          at++;
        }
      }),
      { numRuns: 300 },
    );
  });
});
