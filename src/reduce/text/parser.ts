import { createRequire } from 'node:module';
import type Parser from 'tree-sitter';

// The native bindings load on the first parser made, not with the module: every `kiln fuzz`
// imports the reducer (for --reduce), and loading tree-sitter cost each start-up about 0.2 s of CPU.
const require = createRequire(import.meta.url);

/** A tree-sitter syntax node (offsets are UTF-16 indices into the parsed string, so `text.slice` works). */
export type SyntaxNode = Parser.SyntaxNode;
/** A tree-sitter syntax tree. */
export type SyntaxTree = Parser.Tree;

/**
 * A C parser with a small memo of recent parses: the manager, the validity filter and every pass
 * ask for the tree of the same current text many times, and a tree-sitter parse of a large file
 * costs milliseconds.
 */
export class CParser {
  private readonly parser: Parser;
  private readonly memo = new Map<string, SyntaxTree>();

  /** Creates a parser that remembers the trees of the last `memoSize` distinct texts. */
  constructor(private readonly memoSize = 8) {
    const Binding = require('tree-sitter') as typeof Parser;
    this.parser = new Binding();
    this.parser.setLanguage(require('tree-sitter-c') as Parser.Language);
  }

  /** Parses C text (never throws: syntax errors become ERROR or MISSING nodes). */
  parse(text: string): SyntaxTree {
    const hit = this.memo.get(text);
    if (hit) {
      // Refresh its position so the memo behaves as an LRU.
      this.memo.delete(text);
      this.memo.set(text, hit);
      return hit;
    }
    // The node binding reads the input in chunks of `bufferSize` characters; one chunk is fastest.
    const tree = this.parser.parse(text, null, { bufferSize: Math.max(1024, text.length + 1) });
    this.memo.set(text, tree);
    if (this.memo.size > this.memoSize) this.memo.delete(this.memo.keys().next().value as string);
    return tree;
  }

  /** Number of ERROR and MISSING nodes in the parse of `text` (0 for a clean parse). */
  errorCount(text: string): number {
    const root = this.parse(text).rootNode;
    if (!root.hasError) return 0;
    let n = 0;
    let excused = 0;
    const visit = (node: SyntaxNode, parent: SyntaxNode | undefined): void => {
      if (node.isMissing && parent && isUnnamedBitField(node, parent)) excused++;
      else if (node.type === 'ERROR' || node.isMissing) n++;
      if (!node.hasError && !node.isMissing) return;
      for (const c of node.children) visit(c, node);
    };
    visit(root, undefined);
    return excused > 0 ? n : Math.max(n, 1);
  }
}

/**
 * tree-sitter-c has no rule for an unnamed bit-field (`unsigned : 0;`, valid C that Kiln's own
 * programs use to end a storage unit): it parses one as a field declaration whose declarator is a
 * MISSING identifier. That node is not a syntax error.
 */
function isUnnamedBitField(node: SyntaxNode, parent: SyntaxNode): boolean {
  // `parent` is the node the walk came from: tree-sitter's own `node.parent` of a zero-width
  // MISSING node is its preceding sibling's subtree.
  return (
    node.type === 'field_identifier' &&
    parent.type === 'field_declaration' &&
    parent.children.some((c) => c.type === 'bitfield_clause')
  );
}
