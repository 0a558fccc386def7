import type { SyntaxNode } from './parser.js';

/** One textual edit: replace `text.slice(start, end)` with `replacement` (UTF-16 offsets). */
export interface Edit {
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
}

/** A half-open range of the text. */
export interface Range {
  readonly start: number;
  readonly end: number;
}

/** Deletes a range. */
export function deletion(r: Range): Edit {
  return { start: r.start, end: r.end, replacement: '' };
}

/** Replaces a node's text. */
export function replaceNode(node: SyntaxNode, replacement: string): Edit {
  return { start: node.startIndex, end: node.endIndex, replacement };
}

/**
 * Applies a set of edits at once. Edits are sorted by position; an edit lying entirely inside an
 * earlier edit's range is dropped (removing a statement removes the edits made inside it, e.g. a
 * nested call's argument), so passes can describe edits independently. Returns null when two edits
 * overlap only partly: the pass described an inconsistent candidate, which the manager skips.
 */
export function applyEdits(text: string, edits: readonly Edit[]): string | null {
  const sorted = [...edits].sort((a, b) => a.start - b.start || b.end - a.end);
  const parts: string[] = [];
  let pos = 0;
  let coverStart = -1;
  let coverEnd = -1;
  for (const e of sorted) {
    if (e.start < 0 || e.end > text.length || e.end < e.start)
      throw new Error(`edit out of range: ${e.start}..${e.end} of ${text.length}`);
    if (e.start >= coverStart && e.end <= coverEnd && !(e.start === e.end && e.start === coverEnd)) continue;
    if (e.start < pos) return null;
    parts.push(text.slice(pos, e.start), e.replacement);
    pos = e.end;
    coverStart = e.start;
    coverEnd = e.end;
  }
  parts.push(text.slice(pos));
  return parts.join('');
}

/**
 * Widens a range to whole lines when it is alone on its lines (only blanks around it), so removing
 * a statement or declaration also removes its line instead of leaving an empty one.
 */
export function wholeLines(text: string, r: Range): Range {
  let s = r.start;
  while (s > 0 && (text[s - 1] === ' ' || text[s - 1] === '\t')) s--;
  if (s > 0 && text[s - 1] !== '\n') return r;
  let e = r.end;
  while (e < text.length && (text[e] === ' ' || text[e] === '\t' || text[e] === '\r')) e++;
  if (e < text.length && text[e] !== '\n') return r;
  return { start: s, end: Math.min(text.length, e + 1) };
}

/** The range of a node, extended over a directly following `;` token (top-level `struct S {…};`). */
export function nodeWithSemicolon(node: SyntaxNode): Range {
  const next = node.nextSibling;
  if (next && next.type === ';') return { start: node.startIndex, end: next.endIndex };
  return { start: node.startIndex, end: node.endIndex };
}

/**
 * Edits that remove element `i` of a comma-separated list (arguments or parameters) together with
 * one adjacent comma. `empty` replaces the whole inside of the list when the last element goes
 * (`''` for arguments, `'void'` for parameters).
 */
export function removeListElement(list: SyntaxNode, elements: readonly SyntaxNode[], i: number, empty: string): Edit {
  const el = elements[i]!;
  if (elements.length === 1) {
    // Keep the parentheses: `(x)` becomes `()` or `(void)`.
    return { start: list.startIndex + 1, end: list.endIndex - 1, replacement: empty };
  }
  if (i < elements.length - 1) return { start: el.startIndex, end: elements[i + 1]!.startIndex, replacement: '' };
  return { start: elements[i - 1]!.endIndex, end: el.endIndex, replacement: '' };
}
