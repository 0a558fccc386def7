// Orion on a C file of the user's (Le, Afshari, Su: "Compiler validation via equivalence modulo
// inputs", PLDI 2014): statements that a coverage run shows never executed are deleted, each with
// a probability drawn per variant. The program's output on its one input is unchanged, so every
// variant has the original's expected output; the orchestration checks that by running it.
//
// Works on a tree-sitter-c syntax tree of the text and gcov's line counts. Line counts are the
// only coverage gcov gives for a plain `--coverage` build, so a statement qualifies only when no
// line it touches ran: a statement that shares a line with executed code stays.
import type Parser from 'tree-sitter';
import { Rng } from '../../random/rng.js';
import type { LineCounts } from './gcov.js';

type SyntaxNode = Parser.SyntaxNode;

/** Statement node types Orion may delete (declarations never: a later use would lose its declaration). */
const DELETABLE: ReadonlySet<string> = new Set([
  'expression_statement',
  'compound_statement',
  'if_statement',
  'while_statement',
  'do_statement',
  'for_statement',
  'switch_statement',
  'return_statement',
  'break_statement',
  'continue_statement',
  'goto_statement',
  'attributed_statement',
]);

/** Statement positions where a statement can be removed outright (a block's items, a case's statements). */
const LIST_PARENTS: ReadonlySet<string> = new Set(['compound_statement', 'case_statement']);

/** Parents whose statement child is a required body: a deleted body becomes the empty statement `;`. */
const BODY_PARENTS: ReadonlySet<string> = new Set([
  'if_statement',
  'else_clause',
  'while_statement',
  'for_statement',
  'do_statement',
  'labeled_statement',
]);

/** One Orion variant of a file. */
export interface OrionFileVariant {
  readonly text: string;
  /** Statements deleted (outermost ones: the statements inside a deleted one are not counted). */
  readonly deleted: number;
  /** The deletion probability drawn for this variant. */
  readonly probability: number;
}

/** Whether every line `n` touches is unexecuted code or holds no code, and at least one holds unexecuted code. */
function neverRan(n: SyntaxNode, counts: LineCounts): boolean {
  let zero = false;
  for (let line = n.startPosition.row + 1; line <= n.endPosition.row + 1; line++) {
    const c = counts.get(line);
    if (c === undefined) continue;
    if (c > 0) return false;
    zero = true;
  }
  return zero;
}

/** Whether a label (a possible goto target) lies in `n`'s subtree: deleting it would break the goto. */
function holdsLabel(n: SyntaxNode): boolean {
  return n.descendantsOfType('labeled_statement').length > 0;
}

function sameNode(a: SyntaxNode | null, b: SyntaxNode): boolean {
  return a !== null && a.startIndex === b.startIndex && a.endIndex === b.endIndex && a.type === b.type;
}

/** How `n` leaves the text when deleted: removed (in a list of statements), `;` (a required body), or not at all. */
function deletionKind(n: SyntaxNode): 'remove' | 'empty' | undefined {
  const p = n.parent;
  if (!p) return undefined;
  if (p.type === 'case_statement') return sameNode(p.childForFieldName('value'), n) ? undefined : 'remove';
  if (LIST_PARENTS.has(p.type)) return 'remove';
  if (!BODY_PARENTS.has(p.type)) return undefined;
  if (p.type === 'if_statement') return sameNode(p.childForFieldName('consequence'), n) ? 'empty' : undefined;
  if (p.type === 'else_clause' || p.type === 'labeled_statement')
    return p.namedChildren.at(-1) && sameNode(p.namedChildren.at(-1)!, n) ? 'empty' : undefined;
  return sameNode(p.childForFieldName('body'), n) ? 'empty' : undefined;
}

/** Whether Orion may delete `n`: a whole statement that never ran, holds no label and is not a declaration. */
function deletable(n: SyntaxNode, counts: LineCounts): boolean {
  return DELETABLE.has(n.type) && deletionKind(n) !== undefined && neverRan(n, counts) && !holdsLabel(n);
}

/** The bodies of every function definition in the file (also those inside preprocessor conditionals). */
function functionBodies(root: SyntaxNode): SyntaxNode[] {
  return root
    .descendantsOfType('function_definition')
    .map((f) => f.childForFieldName('body'))
    .filter((b): b is SyntaxNode => b !== null);
}

/**
 * Nodes whose statements the walk enters: blocks, control statements, labels and preprocessor
 * conditionals. Expressions are not entered (a GNU statement expression's last statement is its
 * value), nor nested function definitions (each function body is walked once, from the root).
 */
const CONTAINERS: ReadonlySet<string> = new Set([
  'compound_statement',
  'if_statement',
  'else_clause',
  'while_statement',
  'do_statement',
  'for_statement',
  'switch_statement',
  'case_statement',
  'labeled_statement',
  'preproc_if',
  'preproc_ifdef',
  'preproc_else',
  'preproc_elif',
  'preproc_elifdef',
]);

/** Walks the statements under every function body outer first; `visit` returns true to skip a node's subtree. */
function walkStatements(root: SyntaxNode, visit: (n: SyntaxNode) => boolean): void {
  const go = (n: SyntaxNode): void => {
    for (const c of n.namedChildren) if (!visit(c) && CONTAINERS.has(c.type)) go(c);
  };
  for (const body of functionBodies(root)) go(body);
}

/** Every statement Orion may delete in a file (nested ones included), in text order. */
export function orionCandidates(root: SyntaxNode, counts: LineCounts): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  walkStatements(root, (n) => {
    if (deletable(n, counts)) out.push(n);
    return false;
  });
  return out.sort((a, b) => a.startIndex - b.startIndex);
}

/**
 * Variant `index` of a file: its own random stream from (seed, index) draws a deletion probability,
 * then decides each deletable statement, outer first (a deleted statement's inner statements are
 * not drawn). The same text, counts, seed and index give the same variant byte for byte.
 */
export function orionFileVariant(
  text: string,
  root: SyntaxNode,
  counts: LineCounts,
  seed: string,
  index: number,
): OrionFileVariant {
  const rng = Rng.seeded(`kiln-emi-file:${seed}:${index}`);
  const probability = rng.float();
  const edits: { start: number; end: number; replacement: string }[] = [];
  walkStatements(root, (n) => {
    if (!deletable(n, counts) || !rng.chance(probability)) return false;
    const kind = deletionKind(n);
    edits.push(
      kind === 'remove'
        ? { ...wholeLines(text, n.startIndex, n.endIndex), replacement: '' }
        : { start: n.startIndex, end: n.endIndex, replacement: ';' },
    );
    return true;
  });
  // Edits never overlap: the walk does not enter a deleted statement or a nested function, and
  // whole-line widening only takes blanks and one line break, which no other statement holds.
  // A nested function's body is walked after its parent's, so edits are put in text order.
  const parts: string[] = [];
  let pos = 0;
  for (const e of edits.sort((a, b) => a.start - b.start)) {
    parts.push(text.slice(pos, e.start), e.replacement);
    pos = e.end;
  }
  parts.push(text.slice(pos));
  return { text: parts.join(''), deleted: edits.length, probability };
}

/** Widens [start, end) to its whole lines when only blanks share them, so no empty line is left behind. */
function wholeLines(text: string, start: number, end: number): { start: number; end: number } {
  let s = start;
  while (s > 0 && (text[s - 1] === ' ' || text[s - 1] === '\t')) s--;
  if (s > 0 && text[s - 1] !== '\n') return { start, end };
  let e = end;
  while (e < text.length && (text[e] === ' ' || text[e] === '\t' || text[e] === '\r')) e++;
  if (e < text.length && text[e] !== '\n') return { start, end };
  return { start: s, end: e < text.length ? e + 1 : e };
}
