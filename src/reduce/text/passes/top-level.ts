import { nodeWithSemicolon, wholeLines, type Range } from '../edits.js';
import { chunkedRemovalPass, type ChunkState, type Pass } from '../pass.js';

/**
 * Removes top-level declarations (functions, prototypes, globals, typedefs, struct/union/enum
 * definitions, preprocessor lines), by binary partition over the translation unit's items.
 */
export function topLevelPass(): Pass<ChunkState> {
  return chunkedRemovalPass(
    'top-level',
    (text, ctx): Range[] =>
      ctx.parser
        .parse(text)
        .rootNode.namedChildren.filter((n) => n.type !== 'ERROR')
        .map((n) => wholeLines(text, nodeWithSemicolon(n))),
    { backward: true },
  );
}
