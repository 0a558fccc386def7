import { replaceNode, type Edit } from '../edits.js';
import { chunkedEditPass, editListPass, type ChunkState, type Pass } from '../pass.js';
import type { SyntaxNode, SyntaxTree } from '../parser.js';
import { EXPRESSION_TYPES, isField, namedNodes } from './syntax.js';

/** Parents under which a bare identifier is an expression (elsewhere it may be a declarator name). */
const IDENTIFIER_EXPRESSION_PARENTS: ReadonlySet<string> = new Set([
  'argument_list',
  'expression_statement',
  'return_statement',
  'initializer_list',
  'init_declarator',
  'initializer_pair',
  'case_statement',
  'for_statement',
  'array_declarator',
]);

/** Statements whose `(condition)` is a parenthesized_expression node in tree-sitter-c. */
const STATEMENT_CONDITION_PARENTS: ReadonlySet<string> = new Set([
  'if_statement',
  'while_statement',
  'do_statement',
  'switch_statement',
]);

/** Whether replacing `n` by a constant would leave a position that needs an lvalue or a function. */
function needsLvalue(n: SyntaxNode): boolean {
  const p = n.parent!;
  if (p.type === 'assignment_expression') return isField(n, 'left');
  if (p.type === 'update_expression') return true;
  if (p.type === 'pointer_expression') return p.childForFieldName('operator')?.type === '&';
  if (p.type === 'field_expression' || p.type === 'subscript_expression') return isField(n, 'argument');
  if (p.type === 'call_expression') return isField(n, 'function');
  return false;
}

/** Whether `n` is an expression in expression position (not a declarator name, label or type). */
function isReplaceable(n: SyntaxNode): boolean {
  const p = n.parent;
  if (!p || !EXPRESSION_TYPES.has(n.type)) return false;
  // The parentheses of `if (c)`, `while (c)`, `switch (c)` belong to the statement: only `c` may change.
  if (n.type === 'parenthesized_expression' && STATEMENT_CONDITION_PARENTS.has(p.type)) return false;
  if (n.type !== 'identifier') return true;
  if (EXPRESSION_TYPES.has(p.type)) return !(p.type === 'call_expression' && isField(n, 'function'));
  if (!IDENTIFIER_EXPRESSION_PARENTS.has(p.type)) return false;
  if (p.type === 'init_declarator' || p.type === 'initializer_pair') return isField(n, 'value');
  if (p.type === 'array_declarator') return isField(n, 'size');
  if (p.type === 'case_statement') return isField(n, 'value');
  return true;
}

/** The operands an expression may be replaced by (for a call: its arguments). */
function operands(n: SyntaxNode): SyntaxNode[] {
  if (n.type === 'call_expression')
    return n.childForFieldName('arguments')?.namedChildren.filter((c) => EXPRESSION_TYPES.has(c.type)) ?? [];
  return n.namedChildren.filter((c) => EXPRESSION_TYPES.has(c.type));
}

/** The expressions of a text that may be replaced, outer ones first. */
function replaceable(tree: SyntaxTree): SyntaxNode[] {
  return namedNodes(tree.rootNode).filter(isReplaceable);
}

/**
 * Replaces expressions by `0`, by delta debugging over all of them (outer ones first): most
 * subexpressions of a large generated program do not matter, so whole halves often go at once.
 * Positions that need an lvalue or a function are left alone.
 */
export function expressionsZeroPass(): Pass<ChunkState> {
  return chunkedEditPass('expressions-zero', (text, ctx) =>
    replaceable(ctx.parser.parse(text))
      .filter((n) => n.endIndex - n.startIndex > 1 && !needsLvalue(n))
      .map((n) => replaceNode(n, '0')),
  );
}

/**
 * Replaces an expression by `1` or by one of its operands (`a + f(b)` → `a`, → `f(b)`;
 * `f(x, y)` → `x`, → `f`), outer expressions first. Only strictly shorter replacements are proposed.
 */
export function expressionsPass(): Pass<number> {
  return editListPass('expressions', (_text, tree) => {
    const out: Edit[][] = [];
    for (const n of replaceable(tree)) {
      const own = n.text;
      const options = needsLvalue(n) ? [] : ['1'];
      for (const c of operands(n)) options.push(c.text);
      // Last resort for a call: the bare function designator (`f(x)` → `f`).
      if (n.type === 'call_expression') options.push(n.childForFieldName('function')?.text ?? own);
      const seen = new Set<string>();
      for (const o of options) {
        if (seen.has(o) || o.length >= own.length) continue;
        seen.add(o);
        out.push([replaceNode(n, o)]);
      }
    }
    return out;
  });
}
