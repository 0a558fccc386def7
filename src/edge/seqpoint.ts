// Whether the full expression on a line of C has inner sequence points. Frama-C's
// `-unspecified-access` check treats every pair of accesses to one object in a statement as
// unsequenced, ignoring the sequence points of `,`, `&&`, `||`, `?:` and of a call (its
// arguments are evaluated before the call, whose value is computed after it). So
// `g = f(g = 1)` and `g = (g--, 5)`, both defined, get a red alarm. Measured: 5 of 30 UB-free
// Kiln programs had one, each on a statement with such a sequence point. An unsequenced alarm
// there is not evidence of UB; `kiln check` reports it only on full expressions without such a
// write (a write in a `?:` branch or a right operand is not ordered, and still counts, unless a
// probe build shows the run never evaluates that operand: see `conditionalWriteOperands`).
import { createRequire } from 'node:module';
import type Parser from 'tree-sitter';

type SyntaxNode = Parser.SyntaxNode;

// Its own parser: src/reduce/text/parser.ts has one too, but edge sits above reduce in the layering.
let parser: Parser | undefined;
const trees = new Map<string, Parser.Tree>();

function parse(text: string): Parser.Tree {
  let t = trees.get(text);
  if (t) return t;
  if (!parser) {
    // Loaded on first use, not with the module (see src/reduce/text/parser.ts).
    const require = createRequire(import.meta.url);
    parser = new (require('tree-sitter') as typeof Parser)();
    parser.setLanguage(require('tree-sitter-c') as Parser.Language);
  }
  // tree-sitter's default buffer is 32 KiB; programs can be larger.
  t = parser.parse(text, null, { bufferSize: Math.max(32 * 1024, text.length * 2 + 1024) });
  if (trees.size > 8) trees.clear();
  trees.set(text, t);
  return t;
}

const STATEMENTS = new Set([
  'expression_statement',
  'if_statement',
  'while_statement',
  'do_statement',
  'for_statement',
  'return_statement',
  'switch_statement',
  'declaration',
]);

/** A statement, by its place in the text (tree-sitter's indices). */
export interface StatementSite {
  readonly start: number;
  readonly end: number;
}

/**
 * The statements Eva may mean by `row` (0-based), in text order: every statement that starts on
 * that row (Eva names a statement by its first line, and a line may hold several: `x = 1; } else
 * { i = i++ + 1; }`), else the innermost one that covers it.
 */
function statementsAt(root: SyntaxNode, row: number): SyntaxNode[] {
  const starting: SyntaxNode[] = [];
  let innermost: SyntaxNode | undefined;
  const visit = (n: SyntaxNode): void => {
    if (STATEMENTS.has(n.type)) {
      if (n.startPosition.row === row) starting.push(n);
      else if (starting.length === 0) innermost = n;
    }
    for (const c of n.namedChildren) {
      if (c.startPosition.row > row) break;
      if (c.endPosition.row < row) continue;
      visit(c);
    }
  };
  visit(root);
  return starting.length > 0 ? starting : innermost ? [innermost] : [];
}

/** The statement at `site`; undefined when the text holds none there. */
function statementOf(text: string, site: StatementSite): SyntaxNode | undefined {
  const find = (n: SyntaxNode): SyntaxNode | undefined => {
    if (n.startIndex === site.start && n.endIndex === site.end && STATEMENTS.has(n.type)) return n;
    for (const c of n.namedChildren) if (c.startIndex <= site.start && c.endIndex >= site.end) return find(c);
    return undefined;
  };
  return find(parse(text).rootNode);
}

function siteOf(n: SyntaxNode): StatementSite {
  return { start: n.startIndex, end: n.endIndex };
}

/** Every statement on `line` (1-based) as Eva names statements (see `statementsAt`). */
export function statementsOnLine(text: string, line: number): StatementSite[] {
  return statementsAt(parse(text).rootNode, line - 1).map(siteOf);
}

/**
 * The statements on `line` (1-based) that an Eva alarm there can be about, given its text (`…
 * assert \separated(&i, &i);`): for an unsequenced-access alarm, those with a write inside a full
 * expression (a lone store or `x++` has one access); then those that mention a variable of the
 * assertion. A filter that would leave nothing is skipped, so a statement the alarm may be about
 * is never left out. An alarm is dismissed only when the reason holds for each of them.
 */
export function alarmStatements(text: string, line: number, alarm: string): StatementSite[] {
  const all = statementsAt(parse(text).rootNode, line - 1);
  let picked = all;
  if (/multiple accesses|\\separated\(/.test(alarm)) {
    const writing = picked.filter((s) => ownExpressions(s).some(innerWrite));
    if (writing.length > 0) picked = writing;
  }
  const names = new Set(assertionNames(alarm));
  const mentioning = picked.filter((s) => ownExpressions(s).some((e) => mentions(e, names)));
  if (mentioning.length > 0) picked = mentioning;
  return picked.map(siteOf);
}

/** Whether a full expression writes anywhere but in its own top-level store (`x = 1`, `x++`). */
function innerWrite(e: SyntaxNode): boolean {
  let n = e;
  if (n.type === 'expression_statement' || n.type === 'return_statement') return n.namedChildren.some(innerWrite);
  while (n.type === 'parenthesized_expression' && n.namedChildren.length === 1) n = n.namedChildren[0]!;
  if (n.type === 'assignment_expression' || n.type === 'update_expression') return n.namedChildren.some(hasWrite);
  return hasWrite(n);
}

/** Whether `n` names one of `names` (not counting nested statements). */
function mentions(n: SyntaxNode, names: ReadonlySet<string>): boolean {
  if (n.type === 'identifier') return names.has(n.text);
  return n.namedChildren.some((c) => c.type !== 'compound_statement' && mentions(c, names));
}

/** The parts of a statement that are its own full expressions (not the bodies of compound statements). */
function ownExpressions(s: SyntaxNode): SyntaxNode[] {
  switch (s.type) {
    case 'if_statement':
    case 'while_statement':
    case 'switch_statement':
    case 'do_statement': {
      const c = s.childForFieldName('condition');
      return c ? [c] : [];
    }
    case 'for_statement':
      return s.namedChildren.filter((c) => c !== s.childForFieldName('body'));
    default:
      return [s];
  }
}

const WRITES = new Set(['assignment_expression', 'update_expression']);

/** Whether `n` holds a write (an assignment, ++ or --), not counting nested statements. */
function hasWrite(n: SyntaxNode): boolean {
  if (WRITES.has(n.type)) return true;
  return n.namedChildren.some((c) => c.type !== 'compound_statement' && hasWrite(c));
}

/**
 * Whether `n` holds a write in a position that a sequence point orders before the value of the
 * expression around it: a call's arguments (evaluated before the call, whose value comes after
 * it), the left operand of a comma, the first operand of `&&`, `||` or `?:`. A write in a `?:`
 * branch or in the right operand of `&&`, `||` or a comma is not: `g = c ? g++ : 0` is undefined
 * when the branch runs.
 */
function hasSequencedWrite(n: SyntaxNode): boolean {
  if (n.type === 'call_expression') {
    const args = n.childForFieldName('arguments');
    if (args && hasWrite(args)) return true;
  } else if (n.type === 'comma_expression') {
    const left = n.childForFieldName('left');
    if (left && hasWrite(left)) return true;
  } else if (n.type === 'conditional_expression') {
    const cond = n.childForFieldName('condition');
    if (cond && hasWrite(cond)) return true;
  } else if (n.type === 'binary_expression') {
    const op = n.childForFieldName('operator')?.type;
    const left = n.childForFieldName('left');
    if ((op === '&&' || op === '||') && left && hasWrite(left)) return true;
  }
  // A nested statement (a GNU statement expression) or a function body is not this full expression.
  return n.namedChildren.some((c) => c.type !== 'compound_statement' && hasSequencedWrite(c));
}

/**
 * True when the statement at `at` has a write that a sequence point inside one of its full
 * expressions orders (see `hasSequencedWrite`): Frama-C's unsequenced check cannot tell it from
 * an unsequenced one. False when there is none, or no statement is found there.
 */
export function innerSequencePoint(text: string, at: StatementSite): boolean {
  const s = statementOf(text, at);
  if (!s) return false;
  return ownExpressions(s).some(hasSequencedWrite);
}

/** Where an operand is in the text (tree-sitter's indices) and its text, to check them against. */
export interface OperandRange {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * The operands that are evaluated only conditionally (the right operand of `&&` or `||`, a branch
 * of `?:`) and hold a write, in the statement at `at` — when every write of the
 * statement's full expressions but a top-level assignment's own store is inside one of them; else
 * undefined. Frama-C's unsequenced check ignores short-circuits too: `l = (c && (l = 1))` gets a red
 * alarm even when `c` is 0 on every run and the inner store never happens (measured: 1 of 61
 * UB-free Kiln programs). Whether such an operand ran is a question for the program's run (see
 * check.ts: a probe build counts the evaluations).
 */
export function conditionalWriteOperands(text: string, at: StatementSite): OperandRange[] | undefined {
  const s = statementOf(text, at);
  if (!s) return undefined;
  const ops: OperandRange[] = [];
  let unconditional = false;
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'compound_statement') return;
    if (WRITES.has(n.type)) unconditional = true;
    if (n.type === 'binary_expression') {
      const op = n.childForFieldName('operator')?.type;
      if (op === '&&' || op === '||') {
        const left = n.childForFieldName('left');
        const right = n.childForFieldName('right');
        if (left) visit(left);
        if (right && hasWrite(right)) ops.push({ start: right.startIndex, end: right.endIndex, text: right.text });
        return;
      }
    } else if (n.type === 'conditional_expression') {
      const cond = n.childForFieldName('condition');
      if (cond) visit(cond);
      for (const b of [n.childForFieldName('consequence'), n.childForFieldName('alternative')])
        if (b && hasWrite(b)) ops.push({ start: b.startIndex, end: b.endIndex, text: b.text });
      return;
    }
    for (const c of n.namedChildren) visit(c);
  };
  /** A full expression: its top-level assignment's store is the one write allowed outside the operands. */
  const full = (e: SyntaxNode): void => {
    let n = e;
    while (n.type === 'parenthesized_expression' && n.namedChildren.length === 1) n = n.namedChildren[0]!;
    if (n.type === 'assignment_expression') {
      for (const c of n.namedChildren) visit(c);
    } else visit(n);
  };
  for (const e of ownExpressions(s)) {
    if (e.type === 'expression_statement' || e.type === 'return_statement') for (const c of e.namedChildren) full(c);
    else full(e);
  }
  return !unconditional && ops.length > 0 ? ops : undefined;
}

/**
 * The full expressions of the statement at `at` that can be wrapped in a probe: an
 * expression statement's expression, a returned value, a condition, a for clause, a declarator's
 * initialiser. A red unsequenced alarm says nothing of whether the statement runs: its assertion
 * (`\separated(&l, &l)` for `l = (--l)`) is false in every state, so Eva's over-approximation of
 * the reachable code is enough (measured: such an alarm on a statement the run never reached).
 */
export function statementExpressions(text: string, at: StatementSite): OperandRange[] {
  const s = statementOf(text, at);
  if (!s) return [];
  const out: OperandRange[] = [];
  const add = (n: SyntaxNode | null | undefined): void => {
    if (!n) return;
    let e = n;
    while (e.type === 'parenthesized_expression' && e.namedChildren.length === 1) e = e.namedChildren[0]!;
    if (
      e.type !== 'comment' &&
      e.type !== 'declaration' &&
      e.type !== 'compound_statement' &&
      e.type !== 'initializer_list'
    )
      out.push({ start: e.startIndex, end: e.endIndex, text: e.text });
  };
  switch (s.type) {
    case 'expression_statement':
    case 'return_statement':
      add(s.namedChildren[0]);
      break;
    case 'if_statement':
    case 'while_statement':
    case 'switch_statement':
    case 'do_statement':
      add(s.childForFieldName('condition'));
      break;
    case 'for_statement':
      for (const c of s.namedChildren) if (c !== s.childForFieldName('body')) add(c);
      break;
    case 'declaration':
      for (const d of s.namedChildren) if (d.type === 'init_declarator') add(d.childForFieldName('value'));
      break;
  }
  return out.filter((r) => r.text !== '');
}

/**
 * The variable an Eva assertion is about: the first identifier of its first access path
 * (`\valid_read(l_27->f1.f0)` → `l_27`; `\valid_read(p + g)` → `p`; `\initialized(&t_222)` →
 * `t_222`), not field names and not ACSL's own words (`\valid_read`, `\initialized`).
 */
export function assertionBase(message: string): string | undefined {
  return assertionNames(message)[0];
}

/** Every variable an Eva assertion names, in order (see `assertionBase`). */
function assertionNames(message: string): string[] {
  const at = message.indexOf('assert ');
  if (at < 0) return [];
  const body = message.slice(at + 7).replace(/\\\w+/g, ' ');
  // Type names in casts are skipped: C's keywords and the fixed-width typedefs.
  return [...body.matchAll(/(?<![.\w]|->)[A-Za-z_]\w*/g)]
    .map((m) => m[0])
    .filter((w) => !C_WORDS.has(w) && !/^u?int(?:_least|_fast)?\d+_t$/.test(w));
}

const C_WORDS = new Set([
  'int',
  'char',
  'short',
  'long',
  'unsigned',
  'signed',
  'struct',
  'union',
  'sizeof',
  'void',
  'const',
  'volatile',
]);

/**
 * For an alarm about `variables` at the statement `at`: the conditionally evaluated operands
 * (right of `&&` or `||`, a branch of `?:`) holding every mention of them in the statement's own expressions,
 * innermost first. Undefined when a mention is evaluated unconditionally, or there is none: then
 * only the statement being unreached could dismiss the alarm. When none of these operands runs,
 * the access the alarm is about is never made (measured: Eva flags `*p` in `(g >= 6) || (*p)`
 * on a run where `g >= 6` always holds).
 */
export function conditionalOperandsMentioning(
  text: string,
  at: StatementSite,
  variables: readonly string[],
): OperandRange[] | undefined {
  if (variables.length === 0) return undefined;
  const s = statementOf(text, at);
  if (!s) return undefined;
  const names = new Set(variables);
  const ops = new Map<number, OperandRange>();
  let unconditional = false;
  let mentions = 0;
  const visit = (n: SyntaxNode, operand: SyntaxNode | undefined): void => {
    if (n.type === 'compound_statement') return;
    if (n.type === 'identifier' && names.has(n.text)) {
      mentions++;
      if (operand)
        ops.set(operand.startIndex, { start: operand.startIndex, end: operand.endIndex, text: operand.text });
      else unconditional = true;
      return;
    }
    if (n.type === 'binary_expression') {
      const op = n.childForFieldName('operator')?.type;
      if (op === '&&' || op === '||') {
        const left = n.childForFieldName('left');
        const right = n.childForFieldName('right');
        if (left) visit(left, operand);
        if (right) visit(right, right);
        return;
      }
    } else if (n.type === 'conditional_expression') {
      const cond = n.childForFieldName('condition');
      if (cond) visit(cond, operand);
      for (const b of [n.childForFieldName('consequence'), n.childForFieldName('alternative')]) if (b) visit(b, b);
      return;
    }
    for (const c of n.namedChildren) visit(c, operand);
  };
  for (const e of ownExpressions(s)) visit(e, undefined);
  return !unconditional && mentions > 0 ? [...ops.values()] : undefined;
}

/**
 * The places in the statement at `at` where the run uses `name` as an alarm about it
 * means: for `deref`, the operand `p` of each `*p` (the access `\valid_read(p)` is about); for
 * `read`, each plain read of the variable `name` (not a store's target, not an operand of `&`,
 * `++`, `--`, not a member's base). Undefined when there is none, or when `name` is also read by a
 * compound assignment or `++`/`--` there (an lvalue that cannot be wrapped in a probe).
 */
export function usesOf(
  text: string,
  at: StatementSite,
  name: string,
  how: 'deref' | 'read',
): OperandRange[] | undefined {
  const s = statementOf(text, at);
  if (!s) return undefined;
  const out: OperandRange[] = [];
  let blocked = false;
  const strip = (n: SyntaxNode): SyntaxNode =>
    n.type === 'parenthesized_expression' && n.namedChildren.length === 1 ? strip(n.namedChildren[0]!) : n;
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'compound_statement') return;
    if (how === 'deref' && n.type === 'pointer_expression' && n.childForFieldName('operator')?.type === '*') {
      const arg = n.childForFieldName('argument');
      if (arg && strip(arg).type === 'identifier' && strip(arg).text === name) {
        out.push({ start: arg.startIndex, end: arg.endIndex, text: arg.text });
        return;
      }
    }
    if (how === 'read' && n.type === 'identifier' && n.text === name) {
      const p = n.parent;
      const role = p?.type;
      if (role === 'field_expression' || role === 'call_expression') return;
      if (role === 'pointer_expression' && p!.childForFieldName('operator')?.type === '&') return;
      if (role === 'update_expression') {
        blocked = true;
        return;
      }
      if (role === 'assignment_expression' && p!.childForFieldName('left')?.id === n.id) {
        if (p!.childForFieldName('operator')?.type !== '=') blocked = true;
        return;
      }
      out.push({ start: n.startIndex, end: n.endIndex, text: n.text });
      return;
    }
    for (const c of n.namedChildren) visit(c);
  };
  for (const e of ownExpressions(s)) visit(e);
  return blocked || out.length === 0 ? undefined : out;
}

/** An object a statement can name: its name, and whether it is declared `const` (as a whole). */
export interface ScopeObject {
  readonly name: string;
  readonly isConst: boolean;
}

/**
 * The objects in scope at the statement `at`: file-scope variables, the enclosing
 * function's parameters, and the declarations of every enclosing block that come before the
 * statement; the innermost of two with one name. Functions, typedefs, `extern` declarations and
 * incomplete arrays are left out (`&x` and `sizeof x` must both work on each).
 */
export function objectsInScope(text: string, at: StatementSite): ScopeObject[] {
  const s = statementOf(text, at);
  if (!s) return [];
  const byName = new Map<string, ScopeObject>();
  const declare = (decl: SyntaxNode): void => {
    const specs = decl.namedChildren
      .filter((c) => c.type === 'storage_class_specifier' || c.type === 'type_qualifier')
      .map((c) => c.text);
    if (specs.includes('extern') || specs.includes('typedef')) return;
    const isConst = specs.includes('const');
    for (const d of decl.namedChildren) {
      let t: SyntaxNode | null = d.type === 'init_declarator' ? d.childForFieldName('declarator') : d;
      if (!t || !/declarator$|^identifier$/.test(t.type) || t.type === 'function_declarator') continue;
      let pointer = false;
      while (t && t.type !== 'identifier') {
        if (t.type === 'function_declarator' || t.type === 'parenthesized_declarator') return;
        if (t.type === 'array_declarator' && !t.childForFieldName('size') && d.type !== 'init_declarator') return;
        if (t.type === 'pointer_declarator') pointer = true;
        t = t.childForFieldName('declarator');
      }
      // `const T *p` qualifies what p points at, not p.
      if (t) byName.set(t.text, { name: t.text, isConst: isConst && !pointer });
    }
  };
  const chain: SyntaxNode[] = [];
  for (let n: SyntaxNode | null = s; n; n = n.parent) chain.unshift(n);
  for (const [i, n] of chain.entries()) {
    const inner = chain[i + 1];
    if (n.type === 'translation_unit' || n.type === 'compound_statement') {
      for (const c of n.namedChildren) {
        if (inner && c.startIndex >= inner.startIndex) break;
        if (c.type === 'declaration') declare(c);
      }
    } else if (n.type === 'function_definition') {
      const params = n.descendantsOfType('parameter_declaration').filter((p) => p.parent?.parent?.parent?.id === n.id);
      for (const p of params) declare(p);
    }
  }
  return [...byName.values()];
}

/**
 * `text` with every comma, `&&`, `||` and `?:` that holds a write, in the full expressions of the
 * statements at `sites` (none inside another's own expressions), turned into a GNU statement expression that evaluates
 * the same
 * operands in the same order: `(A, B)` → `({ (void)(A); B; })`, `A && B` →
 * `({ int k = 0; if (A) k = !!(B); k; })` (`||` alike), `A ? B : C` →
 * `({ __typeof__(A ? B : C) k; if (A) k = B; else k = C; k; })`; and an assignment whose right
 * operand writes, `L op= R`, evaluates R first: `({ __typeof__(R) k = (R); L op= k; })` (C leaves
 * the order of L and R open; the program at hand was found not to depend on it). Frama-C's
 * unsequenced check ignores those sequence points, and takes a write to one element of an array
 * for an access to the whole row; split into statements, the accesses they order are no longer
 * in one expression. Lines are kept (copies inside `__typeof__` lose their line breaks).
 * Undefined when nothing changes.
 */
export function splitSequencePoints(text: string, sites: readonly StatementSite[], n: number): string | undefined {
  const statements = sites.map((site) => statementOf(text, site));
  if (statements.length === 0 || statements.some((s) => s === undefined)) return undefined;
  let k = 0;
  const flat = (x: string): string => x.replace(/\n/g, ' ');
  const render = (node: SyntaxNode): string => {
    // The node's text with each child rendered in place.
    let out = '';
    let at = node.startIndex;
    for (const c of node.children) {
      out += text.slice(at, c.startIndex) + render(c);
      at = c.endIndex;
    }
    out += text.slice(at, node.endIndex);
    if (!hasWrite(node)) return out;
    // The line breaks between the operands, kept after the replacement so later lines keep
    // their numbers.
    let gaps = text.slice(node.startIndex, node.endIndex);
    for (const c of [...node.children].reverse())
      gaps = gaps.slice(0, c.startIndex - node.startIndex) + gaps.slice(c.endIndex - node.startIndex);
    const nl = '\n'.repeat(gaps.split('\n').length - 1);
    const rendered = replace(node);
    return rendered === undefined ? out : rendered + nl;
  };
  const replace = (node: SyntaxNode): string | undefined => {
    const name = (): string => `kiln_sp_${n}_${k++}`;
    if (node.type === 'comma_expression') {
      const l = node.childForFieldName('left');
      const r = node.childForFieldName('right');
      if (l && r) return `({ (void)(${render(l)}); ${render(r)}; })`;
    } else if (node.type === 'binary_expression') {
      const op = node.childForFieldName('operator')?.type;
      const l = node.childForFieldName('left');
      const r = node.childForFieldName('right');
      if (l && r && (op === '&&' || op === '||')) {
        const v = name();
        return op === '&&'
          ? `({ int ${v} = 0; if (${render(l)}) ${v} = !!(${render(r)}); ${v}; })`
          : `({ int ${v} = 1; if (!(${render(l)})) ${v} = !!(${render(r)}); ${v}; })`;
      }
    } else if (node.type === 'assignment_expression') {
      const l = node.childForFieldName('left');
      const op = node.childForFieldName('operator');
      const r = node.childForFieldName('right');
      if (l && op && r && hasWrite(r)) {
        const v = name();
        return `({ __typeof__(${flat(r.text)}) ${v} = (${render(r)}); ${render(l)} ${op.text} ${v}; })`;
      }
    } else if (node.type === 'conditional_expression') {
      const c = node.childForFieldName('condition');
      const a = node.childForFieldName('consequence');
      const b = node.childForFieldName('alternative');
      if (c && a && b) {
        const v = name();
        return (
          `({ __typeof__(${flat(node.text)}) ${v}; if (${render(c)}) ${v} = ${render(a)}; else ${v} ` +
          `= ${render(b)}; ${v}; })`
        );
      }
    }
    return undefined;
  };
  const exprs = statements.flatMap((s) => ownExpressions(s!)).filter((e) => e.type !== 'compound_statement');
  // Each full expression, rendered; applied from the end so earlier offsets hold.
  let out = text;
  for (const e of [...exprs].sort((a, b) => b.startIndex - a.startIndex)) {
    if (text.slice(e.startIndex, e.endIndex) !== e.text) return undefined;
    out = out.slice(0, e.startIndex) + render(e) + out.slice(e.endIndex);
  }
  return out === text ? undefined : out;
}
