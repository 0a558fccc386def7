import { replaceNode, type Edit } from '../edits.js';
import { editListPass, type Pass } from '../pass.js';
import { namedNodes } from './syntax.js';

/**
 * Replaces a control statement by one of its parts: `if (c) A else B` → `A`, → `B`, → `if (c) A`;
 * a loop → its body; a labelled statement → the statement.
 */
export function controlFlowPass(): Pass<number> {
  return editListPass('control-flow', (text, tree) => {
    const out: Edit[][] = [];
    for (const n of namedNodes(tree.rootNode)) {
      switch (n.type) {
        case 'if_statement': {
          const cons = n.childForFieldName('consequence');
          const alt = n.childForFieldName('alternative');
          if (cons) out.push([replaceNode(n, cons.text)]);
          const altBody = alt?.namedChildren.find((c) => c.type !== 'comment');
          if (alt && altBody) {
            out.push([replaceNode(n, altBody.text)]);
            // Drop the else arm, including the blanks before `else`.
            let s = alt.startIndex;
            while (s > 0 && /\s/.test(text[s - 1]!)) s--;
            out.push([{ start: s, end: alt.endIndex, replacement: '' }]);
          }
          break;
        }
        case 'while_statement':
        case 'for_statement':
        case 'do_statement': {
          const body = n.childForFieldName('body');
          if (body) out.push([replaceNode(n, body.text)]);
          break;
        }
        case 'labeled_statement': {
          const stmt = n.namedChildren.find((c) => c.type !== 'comment' && c.type !== 'statement_identifier');
          if (stmt) out.push([replaceNode(n, stmt.text)]);
          break;
        }
        default:
          break;
      }
    }
    return out;
  });
}
