import type { Block, Expr, FuncDecl, Init, InitList, Node, Program, Stmt, VarDecl } from './nodes.js';

/** The direct children of a node, in evaluation/printing order. */
export function children(n: Node): Node[] {
  switch (n.kind) {
    case 'const':
    case 'null':
    case 'var':
    case 'break':
    case 'continue':
    case 'goto':
    case 'label':
    case 'case':
      return [];
    case 'switch':
      return [n.cond, n.body];
    case 'index':
      return [n.base, n.index];
    case 'field':
      return [n.base];
    case 'deref':
      return [n.ptr];
    case 'addr':
      return [n.target];
    case 'unary':
      return [n.operand];
    case 'binary':
    case 'comma':
      return [n.left, n.right];
    case 'cond':
      return [n.cond, n.then, n.else];
    case 'cast':
      return [n.operand];
    case 'call':
      return [...n.args];
    case 'assign':
      return [n.target, n.value];
    case 'incdec':
      return [n.target];
    case 'safe':
      return n.right ? [n.left, n.right] : [n.left];
    case 'init-list':
      return [...n.items];
    case 'var-decl':
      return n.init ? [n.init] : [];
    case 'func':
      return [...n.params, n.body];
    case 'block':
      return [...n.locals, ...n.stmts];
    case 'expr':
      return [n.expr];
    case 'if':
      return n.else ? [n.cond, n.then, n.else] : [n.cond, n.then];
    case 'for':
      return [n.init, n.cond, n.step, n.body].filter((x): x is Expr | Block => x !== undefined);
    case 'return':
      return n.value ? [n.value] : [];
    case 'hash':
    case 'check':
      return [n.value];
  }
}

/** Rebuilds a node with each child mapped through `f`; returns the node itself when nothing changed. */
export function mapChildren<N extends Node>(n: N, f: (child: Node) => Node): N {
  let changed = false;
  const m = <C extends Node>(c: C): C => {
    const r = f(c) as C;
    if (r !== c) changed = true;
    return r;
  };
  const mo = <C extends Node>(c: C | undefined): C | undefined => (c === undefined ? undefined : m(c));
  const ma = <C extends Node>(cs: readonly C[]): readonly C[] => {
    const out = cs.map(m);
    return out;
  };
  let r: Node;
  switch (n.kind) {
    case 'const':
    case 'null':
    case 'var':
    case 'break':
    case 'continue':
    case 'goto':
    case 'label':
    case 'case':
      return n;
    case 'switch':
      r = { ...n, cond: m(n.cond), body: m(n.body) };
      break;
    case 'index':
      r = { ...n, base: m(n.base), index: m(n.index) };
      break;
    case 'field':
      r = { ...n, base: m(n.base) };
      break;
    case 'deref':
      r = { ...n, ptr: m(n.ptr) };
      break;
    case 'addr':
      r = { ...n, target: m(n.target) };
      break;
    case 'unary':
      r = { ...n, operand: m(n.operand) };
      break;
    case 'binary':
    case 'comma':
      r = { ...n, left: m(n.left), right: m(n.right) };
      break;
    case 'cond':
      r = { ...n, cond: m(n.cond), then: m(n.then), else: m(n.else) };
      break;
    case 'cast':
      r = { ...n, operand: m(n.operand) };
      break;
    case 'call':
      r = { ...n, args: ma(n.args) };
      break;
    case 'assign':
      r = { ...n, target: m(n.target), value: m(n.value) };
      break;
    case 'incdec':
      r = { ...n, target: m(n.target) };
      break;
    case 'safe':
      r = { ...n, left: m(n.left), right: mo(n.right) };
      break;
    case 'init-list':
      r = { ...n, items: ma(n.items) };
      break;
    case 'var-decl':
      r = { ...n, init: mo(n.init) };
      break;
    case 'func':
      r = { ...n, params: ma(n.params), body: m(n.body) };
      break;
    case 'block':
      r = { ...n, locals: ma(n.locals), stmts: ma(n.stmts) };
      break;
    case 'expr':
      r = { ...n, expr: m(n.expr) };
      break;
    case 'if':
      r = { ...n, cond: m(n.cond), then: m(n.then), else: mo(n.else) };
      break;
    case 'for':
      r = { ...n, init: mo(n.init), cond: mo(n.cond), step: mo(n.step), body: m(n.body) };
      break;
    case 'return':
      r = { ...n, value: mo(n.value) };
      break;
    case 'hash':
    case 'check':
      r = { ...n, value: m(n.value) };
      break;
  }
  return (changed ? r : n) as N;
}

/** Calls `f` on every node of the subtree in pre-order; return `false` from `f` to skip a node's children. */
export function walk(n: Node, f: (node: Node, parent: Node | undefined) => boolean | void, parent?: Node): void {
  if (f(n, parent) === false) return;
  for (const c of children(n)) walk(c, f, n);
}

/** Calls `f` on every node of the program (globals, then functions) in pre-order. */
export function walkProgram(p: Program, f: (node: Node, parent: Node | undefined) => boolean | void): void {
  for (const g of p.globals) walk(g, f);
  for (const fn of p.funcs) walk(fn, f);
}

/** Rewrites the tree bottom-up: `f` sees each node after its children were rewritten. */
export function transform(n: Node, f: (node: Node) => Node): Node {
  return f(mapChildren(n, (c) => transform(c, f)));
}

/** Rewrites every node of the program bottom-up. */
export function transformProgram(p: Program, f: (node: Node) => Node): Program {
  const globals = p.globals.map((g) => transform(g, f) as VarDecl);
  const funcs = p.funcs.map((fn) => transform(fn, f) as FuncDecl);
  return { ...p, globals, funcs };
}

/** Id → node and id → parent id, for a whole program. */
export interface ProgramIndex {
  readonly nodes: ReadonlyMap<number, Node>;
  readonly parent: ReadonlyMap<number, number>;
  /** Id of the function each node belongs to (absent for globals). */
  readonly funcOf: ReadonlyMap<number, number>;
}

/** Builds the id index of a program. */
export function indexProgram(p: Program): ProgramIndex {
  const nodes = new Map<number, Node>();
  const parent = new Map<number, number>();
  const funcOf = new Map<number, number>();
  const visit = (n: Node, par: Node | undefined, fn: number | undefined): void => {
    if (nodes.has(n.id)) throw new Error(`duplicate node id ${n.id} (${n.kind})`);
    nodes.set(n.id, n);
    if (par) parent.set(n.id, par.id);
    if (fn !== undefined) funcOf.set(n.id, fn);
    for (const c of children(n)) visit(c, n, fn);
  };
  for (const g of p.globals) visit(g, undefined, undefined);
  for (const f of p.funcs) visit(f, undefined, f.id);
  return { nodes, parent, funcOf };
}

/**
 * Replaces the node with id `id` by `replacement(old)`, copying only the path from the root.
 * Throws when no node has that id.
 */
export function replaceNode(p: Program, id: number, replacement: (old: Node) => Node): Program {
  let found = false;
  const rec = (n: Node): Node => {
    if (n.id === id) {
      found = true;
      return replacement(n);
    }
    return mapChildren(n, rec);
  };
  const globals = p.globals.map((g) => (found ? g : (rec(g) as VarDecl)));
  const funcs = p.funcs.map((f) => (found ? f : (rec(f) as FuncDecl)));
  if (!found) throw new Error(`no node with id ${id}`);
  return { ...p, globals, funcs };
}

/** Replaces several nodes at once (ids must not be nested in one another). */
export function replaceNodes(p: Program, replacements: ReadonlyMap<number, (old: Node) => Node>): Program {
  if (replacements.size === 0) return p;
  const rec = (n: Node): Node => {
    const r = replacements.get(n.id);
    if (r) return r(n);
    return mapChildren(n, rec);
  };
  return { ...p, globals: p.globals.map((g) => rec(g) as VarDecl), funcs: p.funcs.map((f) => rec(f) as FuncDecl) };
}

/** Finds a function by id. */
export function funcById(p: Program, id: number): FuncDecl {
  const f = p.funcs.find((x) => x.id === id);
  if (!f) throw new Error(`no function with id ${id}`);
  return f;
}

/** All variable declarations of the program (globals, params, locals). */
export function allVarDecls(p: Program): VarDecl[] {
  const out: VarDecl[] = [];
  walkProgram(p, (n) => {
    if (n.kind === 'var-decl') out.push(n);
  });
  return out;
}

/** Whether an initialiser is a list. */
export function isInitList(i: Init): i is InitList {
  return i.kind === 'init-list';
}

/** The largest id used in a subtree. */
export function maxId(n: Node): number {
  let m = n.id;
  walk(n, (c) => {
    if (c.id > m) m = c.id;
  });
  return m;
}

/** Statements are nodes with statement kinds. */
export function isStmt(n: Node): n is Stmt {
  switch (n.kind) {
    case 'block':
    case 'expr':
    case 'if':
    case 'for':
    case 'return':
    case 'break':
    case 'continue':
    case 'goto':
    case 'label':
    case 'hash':
    case 'check':
    case 'switch':
    case 'case':
      return true;
    default:
      return false;
  }
}

/** Counts the nodes of a subtree (a size measure for reducers and statistics). */
export function countNodes(n: Node): number {
  let c = 0;
  walk(n, () => {
    c++;
  });
  return c;
}

/** Exprs reachable from a node (pre-order). */
export function exprsOf(n: Node): Expr[] {
  const out: Expr[] = [];
  walk(n, (c) => {
    switch (c.kind) {
      case 'const':
      case 'null':
      case 'var':
      case 'index':
      case 'field':
      case 'deref':
      case 'addr':
      case 'unary':
      case 'binary':
      case 'cond':
      case 'cast':
      case 'call':
      case 'assign':
      case 'incdec':
      case 'comma':
      case 'safe':
        out.push(c);
    }
  });
  return out;
}

/** Whether a loop body contains a `continue` of that loop (not one of a nested loop). */
export function loopContinues(body: Block): boolean {
  let found = false;
  walk(body, (x) => {
    if (found || x.kind === 'for') return false;
    if (x.kind === 'continue') found = true;
    return !found;
  });
  return found;
}
