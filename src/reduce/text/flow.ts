// The control-flow measure of any C file (src/ir/flow.ts measures Kiln's IR): each function's
// statement-level graph, built from tree-sitter's syntax tree and measured by the same code as
// the IR's, so Kiln's programs and Csmith's are compared on one scale (bench/flow.ts). It lives
// beside the text reducer's parser, as `kiln emi FILE.c`'s coverage code does.
import { addFlow, type FlowMeasure, type FlowStmt, measureFlow, NO_FLOW } from '../../ir/flow.js';
import { CParser, type SyntaxNode } from './parser.js';

/** The measure of a C file. */
export interface TextFlow {
  /** Each function defined in the file, by name, in file order. */
  readonly functions: ReadonlyMap<string, FlowMeasure>;
  /** Every function's measure added up. */
  readonly total: FlowMeasure;
  /** Lines (1-based) holding a `goto` statement, and those holding a `goto *e`, in file order. */
  readonly gotoLines: readonly number[];
  readonly indirectGotoLines: readonly number[];
}

/**
 * tree-sitter's C grammar has no computed goto: `goto *e;` is rewritten, before parsing, into an
 * assignment to this name (the same lines, so line numbers stay those of the file).
 */
const IGOTO = '__kiln_igoto';

/**
 * Measures every function defined in `text`. GNU `goto *e` may jump to any label of its function
 * whose address is taken (`&&L`), so it gets an edge to each of them.
 */
export function textFlow(text: string, parser: CParser = new CParser(1)): TextFlow {
  const tree = parser.parse(text.replace(/\bgoto(\s*)\*/g, `${IGOTO}$1=`));
  const functions = new Map<string, FlowMeasure>();
  const gotoLines: number[] = [];
  const indirectGotoLines: number[] = [];
  const visit = (node: SyntaxNode): void => {
    if (node.type === 'function_definition') {
      const body = node.childForFieldName('body');
      if (!body) return;
      const f = new FunctionReader(body);
      functions.set(functionName(node), measureFlow(f.stmt(body)));
      gotoLines.push(...f.gotoLines);
      indirectGotoLines.push(...f.indirectGotoLines);
      return;
    }
    for (const c of node.namedChildren) visit(c);
  };
  visit(tree.rootNode);
  return { functions, total: [...functions.values()].reduce(addFlow, NO_FLOW), gotoLines, indirectGotoLines };
}

/** The name a function definition declares (`f` of `static int *f(void)`). */
function functionName(def: SyntaxNode): string {
  let d = def.childForFieldName('declarator');
  while (d && d.type !== 'function_declarator') d = d.childForFieldName('declarator') ?? d.namedChildren[0] ?? null;
  return d?.childForFieldName('declarator')?.text ?? `<function at line ${def.startPosition.row + 1}>`;
}

/** Translates one function's body into flow statements. */
class FunctionReader {
  readonly gotoLines: number[] = [];
  readonly indirectGotoLines: number[] = [];
  /** Labels whose address the function takes (`&&L`), in order of first use: where a `goto *e` may go. */
  private readonly addressed: readonly string[];

  constructor(body: SyntaxNode) {
    const labels = new Set<string>();
    const addressed = new Set<string>();
    const scan = (n: SyntaxNode): void => {
      if (n.type === 'labeled_statement') labels.add(n.childForFieldName('label')?.text ?? '');
      if (n.type === 'pointer_expression') {
        const m = /^&\s*&\s*([A-Za-z_]\w*)$/.exec(n.text);
        if (m) addressed.add(m[1]!);
      }
      for (const c of n.namedChildren) scan(c);
    };
    scan(body);
    this.addressed = [...addressed].filter((l) => labels.has(l));
  }

  /** One statement (a `case` with the statements after it becomes a sequence). */
  stmt(n: SyntaxNode): FlowStmt {
    const list = this.stmts(n);
    return list.length === 1 ? list[0]! : { kind: 'seq', stmts: list };
  }

  /** The flow statements of a syntax node: one, except for a `case` label and the statements it groups. */
  private stmts(n: SyntaxNode): FlowStmt[] {
    const field = (name: string): SyntaxNode | null => n.childForFieldName(name);
    switch (n.type) {
      case 'compound_statement':
        return [{ kind: 'seq', stmts: statementsOf(n.namedChildren).flatMap((c) => this.stmts(c)) }];
      case 'if_statement': {
        const alt = field('alternative');
        const otherwise = alt?.type === 'else_clause' ? alt.namedChildren.at(-1) : alt;
        return [
          {
            kind: 'if',
            then: this.orEmpty(field('consequence')),
            else: otherwise ? this.stmt(otherwise) : undefined,
          },
        ];
      }
      case 'for_statement':
        return [{ kind: 'loop', form: 'for', test: field('condition') !== null, body: this.orEmpty(field('body')) }];
      case 'while_statement':
        return [{ kind: 'loop', form: 'while', test: true, body: this.orEmpty(field('body')) }];
      case 'do_statement':
        return [{ kind: 'loop', form: 'do', test: true, body: this.orEmpty(field('body')) }];
      case 'switch_statement':
        return [{ kind: 'switch', body: this.orEmpty(field('body')) }];
      case 'case_statement': {
        const value = field('value');
        const rest = statementsOf(n.namedChildren).filter((c) => !value || c.id !== value.id);
        return [{ kind: 'case', isDefault: value === null }, ...rest.flatMap((c) => this.stmts(c))];
      }
      case 'labeled_statement': {
        const label = field('label');
        const inner = statementsOf(n.namedChildren).filter((c) => !label || c.id !== label.id);
        return [
          {
            kind: 'label',
            name: label?.text ?? '',
            body: inner.length ? this.stmt(inner[0]!) : undefined,
          },
        ];
      }
      case 'break_statement':
        return [{ kind: 'break' }];
      case 'continue_statement':
        return [{ kind: 'continue' }];
      case 'return_statement':
        return [{ kind: 'return' }];
      case 'goto_statement':
        this.gotoLines.push(n.startPosition.row + 1);
        return [{ kind: 'goto', label: field('label')?.text ?? '' }];
      case 'expression_statement': {
        const e = n.namedChildren[0];
        if (e?.type === 'assignment_expression' && e.childForFieldName('left')?.text === IGOTO) {
          this.indirectGotoLines.push(n.startPosition.row + 1);
          return [{ kind: 'igoto', labels: this.addressed }];
        }
        return [{ kind: 'simple' }];
      }
      default:
        return [{ kind: 'simple' }];
    }
  }

  private orEmpty(n: SyntaxNode | null): FlowStmt {
    return n ? this.stmt(n) : { kind: 'simple' };
  }
}

/** The children that are statements or declarations (not comments). */
function statementsOf(children: readonly SyntaxNode[]): SyntaxNode[] {
  return children.filter((c) => c.type !== 'comment');
}
