// The edit engine and the delta-debugging state machine shared by the passes.
import { describe, expect, it } from 'vitest';
import { applyEdits, removeListElement, wholeLines } from '../../../src/reduce/text/edits.js';
import { chunkedRemovalPass, type ChunkState } from '../../../src/reduce/text/pass.js';
import { CParser } from '../../../src/reduce/text/parser.js';
import { context } from './recipe.js';

describe('applyEdits', () => {
  it('applies edits in position order whatever order they are given in', () => {
    expect(
      applyEdits('abcdef', [
        { start: 4, end: 5, replacement: 'E' },
        { start: 0, end: 1, replacement: 'A' },
      ]),
    ).toBe('AbcdEf');
  });

  it('drops edits inside a larger edit (a removed statement takes its inner edits along)', () => {
    expect(
      applyEdits('f(g(1, 2), 3)', [
        { start: 2, end: 11, replacement: '' },
        { start: 5, end: 8, replacement: '' },
      ]),
    ).toBe('f(3)');
  });

  it('keeps an insertion right after a removed range', () => {
    expect(
      applyEdits('abc', [
        { start: 0, end: 1, replacement: '' },
        { start: 1, end: 1, replacement: 'X' },
      ]),
    ).toBe('Xbc');
  });

  it('rejects partly overlapping edits (an inconsistent candidate)', () => {
    expect(
      applyEdits('abcdef', [
        { start: 0, end: 3, replacement: '' },
        { start: 2, end: 5, replacement: '' },
      ]),
    ).toBeNull();
  });

  it('widens a removal to its whole line only when it is alone on the line', () => {
    const text = 'a;\n  b;\nc; d;\n';
    expect(wholeLines(text, { start: 5, end: 7 })).toEqual({ start: 3, end: 8 });
    expect(wholeLines(text, { start: 8, end: 10 })).toEqual({ start: 8, end: 10 });
  });

  it('removes list elements with one comma, and empties a one-element list', () => {
    const tree = new CParser().parse('int x = f(1, 2, 3) + g(4);');
    const [f, g] = tree.rootNode.descendantsOfType('argument_list');
    const text = tree.rootNode.text;
    const el = (l: typeof f) => l!.namedChildren;
    expect(applyEdits(text, [removeListElement(f!, el(f), 0, '')])).toBe('int x = f(2, 3) + g(4);');
    expect(applyEdits(text, [removeListElement(f!, el(f), 2, '')])).toBe('int x = f(1, 2) + g(4);');
    expect(applyEdits(text, [removeListElement(g!, el(g), 0, '')])).toBe('int x = f(1, 2, 3) + g();');
  });
});

describe('chunked removal (delta debugging) state machine', () => {
  const text = 'a\nb\nc\nd\n';
  const units = (t: string) => [...t.matchAll(/[a-z]\n/g)].map((m) => ({ start: m.index, end: m.index + 2 }));

  it('walks all, halves, quarters, singles, then stops', () => {
    const pass = chunkedRemovalPass('t', units);
    const ctx = context();
    const states: ChunkState[] = [];
    for (let s = pass.init(text, ctx); s !== null; s = pass.advance(text, s, ctx)) states.push(s);
    expect(states).toEqual([
      { chunk: 4, index: 0 },
      { chunk: 2, index: 0 },
      { chunk: 2, index: 2 },
      { chunk: 1, index: 0 },
      { chunk: 1, index: 1 },
      { chunk: 1, index: 2 },
      { chunk: 1, index: 3 },
    ]);
  });

  it('after a success continues at the same index, which now names the next units', () => {
    const pass = chunkedRemovalPass('t', units);
    const ctx = context();
    const s = { chunk: 1, index: 1 };
    const r = pass.transform(text, s, ctx);
    expect(r).toEqual({ kind: 'ok', text: 'a\nc\nd\n' });
    const next = pass.advanceOnSuccess('a\nc\nd\n', s, ctx)!;
    expect(pass.transform('a\nc\nd\n', next, ctx)).toEqual({ kind: 'ok', text: 'a\nd\n' });
  });

  it('backward, removes from the end first', () => {
    const pass = chunkedRemovalPass('t', units, { backward: true });
    const ctx = context();
    expect(pass.transform(text, { chunk: 1, index: 0 }, ctx)).toEqual({ kind: 'ok', text: 'a\nb\nc\n' });
    expect(pass.transform(text, { chunk: 2, index: 0 }, ctx)).toEqual({ kind: 'ok', text: 'a\nb\n' });
  });
});
