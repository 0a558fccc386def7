import { replaceNode, wholeLines, type Edit } from '../edits.js';
import { editListPass, type Pass } from '../pass.js';
import type { SyntaxNode } from '../parser.js';
import { isField, namedNodes } from './syntax.js';

/** Expressions that bind at least as tightly as any operator, so parentheses around them are redundant. */
const PRIMARY: ReadonlySet<string> = new Set([
  'identifier',
  'number_literal',
  'char_literal',
  'string_literal',
  'concatenated_string',
  'true',
  'false',
  'null',
  'parenthesized_expression',
  'call_expression',
  'subscript_expression',
  'field_expression',
]);

/** Contexts that are not operands of an operator, where any expression but a comma expression needs no parentheses. */
const LOOSE_CONTEXTS: ReadonlySet<string> = new Set([
  'expression_statement',
  'return_statement',
  'parenthesized_expression',
  'argument_list',
  'init_declarator',
  'initializer_list',
  'initializer_pair',
]);

/** Whether the parentheses of `p` (a parenthesized_expression) can go without changing the parse. */
function redundantParens(p: SyntaxNode): boolean {
  const parent = p.parent;
  const inner = p.namedChildren.find((c) => c.type !== 'comment');
  if (!parent || !inner || inner.type === 'compound_statement') return false;
  // `if (c)`, `while (c)`, `switch (c)`, `do … while (c)`: the parentheses belong to the statement.
  if (isField(p, 'condition') && parent.type !== 'conditional_expression' && parent.type !== 'for_statement')
    return false;
  if (parent.type === 'sizeof_expression' && !PRIMARY.has(inner.type)) return false;
  if (PRIMARY.has(inner.type)) return true;
  if (parent.type === 'subscript_expression' && isField(p, 'index')) return inner.type !== 'comma_expression';
  return (
    LOOSE_CONTEXTS.has(parent.type) &&
    inner.type !== 'comma_expression' &&
    !(parent.type === 'init_declarator' && !isField(p, 'value'))
  );
}

/**
 * Token-level cleanup: remove comments (all, then one by one), redundant parentheses, casts
 * (`(T)x` → `x`), `for` clauses, `(void)` parameter lists (→ `()`), and type qualifiers and
 * storage classes (`const`, `volatile`, `static`, …).
 */
export function cleanupPass(): Pass<number> {
  return editListPass('cleanup', (text, tree) => {
    const nodes = namedNodes(tree.rootNode);
    const out: Edit[][] = [];
    const comments = nodes
      .filter((n) => n.type === 'comment')
      .map((n): Edit => ({ ...wholeLines(text, { start: n.startIndex, end: n.endIndex }), replacement: '' }));
    if (comments.length > 1) out.push(comments);
    for (const c of comments) out.push([c]);
    for (const n of nodes) {
      if (n.type === 'parenthesized_expression' && redundantParens(n)) {
        const inner = n.namedChildren.find((c) => c.type !== 'comment')!;
        out.push([replaceNode(n, inner.text)]);
      } else if (n.type === 'cast_expression') {
        const value = n.childForFieldName('value');
        if (value) out.push([replaceNode(n, value.text)]);
      } else if (n.type === 'for_statement') {
        // `for (i = 0; i < n; i++)` → `for (; i < n; i++)`, …: each clause may go.
        for (const field of ['initializer', 'condition', 'update']) {
          const c = n.childForFieldName(field);
          if (c) out.push([replaceNode(c, c.type === 'declaration' ? ';' : '')]);
        }
      } else if (
        n.type === 'parameter_list' &&
        n.parent?.type === 'function_declarator' &&
        /^\(\s*void\s*\)$/.test(n.text)
      ) {
        out.push([replaceNode(n, '()')]);
      } else if (n.type === 'type_qualifier' || n.type === 'storage_class_specifier') {
        // Take the blanks after the keyword too: `static int` → `int`.
        let end = n.endIndex;
        while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
        out.push([{ start: n.startIndex, end, replacement: '' }]);
      }
    }
    return out;
  });
}
