import { wholeLines, type Range } from '../edits.js';
import { chunkedRemovalPass, type ChunkState, type Pass } from '../pass.js';
import { isField, namedNodes } from './syntax.js';

/**
 * Removes statements (blocks, loops and ifs included, with everything inside them) and local
 * declarations, by binary partition over every item of every block and `case`, outer items first.
 */
export function statementsPass(): Pass<ChunkState> {
  return chunkedRemovalPass(
    'statements',
    (text, ctx): Range[] => {
      const out: Range[] = [];
      for (const n of namedNodes(ctx.parser.parse(text).rootNode)) {
        const p = n.parent;
        if (!p || n.type === 'comment') continue;
        const inBlock = p.type === 'compound_statement' || (p.type === 'case_statement' && !isField(n, 'value'));
        if (inBlock) out.push(wholeLines(text, { start: n.startIndex, end: n.endIndex }));
      }
      return out;
    },
    { backward: true },
  );
}
