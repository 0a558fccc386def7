import { replaceNode, type Edit } from '../edits.js';
import { editListPass, type Pass } from '../pass.js';
import { codeChildren, namedNodes } from './syntax.js';

const BODY_PARENTS: ReadonlySet<string> = new Set([
  'if_statement',
  'else_clause',
  'while_statement',
  'for_statement',
  'do_statement',
]);

/**
 * Removes braces: a block nested directly in a block (or a `case`) becomes its contents; a block
 * of one statement that is the body of an if/else/loop becomes that statement (an empty one, `;`).
 */
export function blocksPass(): Pass<number> {
  return editListPass('blocks', (text, tree) => {
    const out: Edit[][] = [];
    for (const n of namedNodes(tree.rootNode)) {
      if (n.type !== 'compound_statement' || !n.parent) continue;
      const p = n.parent.type;
      if (p === 'compound_statement' || p === 'case_statement') {
        out.push([replaceNode(n, text.slice(n.startIndex + 1, n.endIndex - 1).trim())]);
      } else if (BODY_PARENTS.has(p)) {
        const inner = codeChildren(n);
        if (inner.length === 0) out.push([replaceNode(n, ';')]);
        else if (inner.length === 1 && inner[0]!.type !== 'declaration' && inner[0]!.type !== 'type_definition')
          out.push([replaceNode(n, inner[0]!.text)]);
      }
    }
    return out;
  });
}
