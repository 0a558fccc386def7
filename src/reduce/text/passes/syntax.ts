import type { SyntaxNode } from '../parser.js';

/** Every named node under `root` (root included), in source order (parents before children). */
export function namedNodes(root: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const cursor = root.walk();
  for (;;) {
    if (cursor.nodeIsNamed) out.push(cursor.currentNode);
    if (cursor.gotoFirstChild()) continue;
    for (;;) {
      if (cursor.gotoNextSibling()) break;
      if (!cursor.gotoParent()) return out;
    }
  }
}

/** Named children that are not comments. */
export function codeChildren(node: SyntaxNode): SyntaxNode[] {
  return node.namedChildren.filter((c) => c.type !== 'comment');
}

/** Whether `node` is the child of its parent in field `field`. */
export function isField(node: SyntaxNode, field: string): boolean {
  const p = node.parent;
  if (!p) return false;
  return p
    .childrenForFieldName(field)
    .some((f) => f.startIndex === node.startIndex && f.endIndex === node.endIndex && f.type === node.type);
}

/** Expression node types of tree-sitter-c that may be replaced by another expression. */
export const EXPRESSION_TYPES: ReadonlySet<string> = new Set([
  'binary_expression',
  'unary_expression',
  'pointer_expression',
  'update_expression',
  'cast_expression',
  'sizeof_expression',
  'alignof_expression',
  'call_expression',
  'field_expression',
  'subscript_expression',
  'conditional_expression',
  'assignment_expression',
  'comma_expression',
  'parenthesized_expression',
  'compound_literal_expression',
  'identifier',
  'number_literal',
  'char_literal',
  'true',
  'false',
  'null',
]);

/** The name a function definition or declaration declares, if its declarator is a plain function declarator. */
export function functionDeclarator(decl: SyntaxNode): SyntaxNode | null {
  let d = decl.childForFieldName('declarator');
  // `int *f(void)`: the function declarator sits under pointer declarators.
  while (
    d &&
    (d.type === 'pointer_declarator' || d.type === 'parenthesized_declarator' || d.type === 'attributed_declarator')
  ) {
    d = d.childForFieldName('declarator') ?? d.namedChildren[0] ?? null;
  }
  return d && d.type === 'function_declarator' ? d : null;
}

/** The identifier a function declarator names (null for e.g. function-pointer declarators). */
export function functionName(fd: SyntaxNode): string | null {
  const id = fd.childForFieldName('declarator');
  return id && id.type === 'identifier' ? id.text : null;
}
