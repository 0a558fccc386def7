import type { Block, Expr, FuncDecl, Init, InitList, Node, Program, Stmt, VarDecl } from './nodes.js';

/** The direct children of a node, in evaluation/printing order (the order `forEachChild` defines). */
export function children(n: Node): Node[] {
  const out: Node[] = [];
  forEachChild(n, (c) => out.push(c));
  return out;
}

/**
 * Rebuilds a node with each child mapped through `f` (in `children` order); returns the node
 * itself when nothing changed. Nothing is allocated for an unchanged node: the generator, the
 * repair loop and the reducer map whole programs, most of whose nodes stay as they are.
 */
export function mapChildren<N extends Node>(n: N, f: (child: Node) => Node): N {
  const m = <C extends Node>(c: C): C => f(c) as C;
  const mo = <C extends Node>(c: C | undefined): C | undefined => (c === undefined ? undefined : (f(c) as C));
  /** The array mapped, or the array itself when no element changed. */
  const ma = <C extends Node>(cs: readonly C[]): readonly C[] => {
    let out: C[] | undefined;
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i]!;
      const r = f(c) as C;
      if (r !== c && !out) out = cs.slice(0, i);
      if (out) out.push(r);
    }
    return out ?? cs;
  };
  const x = n as Node;
  let r: Node;
  switch (x.kind) {
    case 'const':
    case 'null':
    case 'var':
    case 'break':
    case 'continue':
    case 'goto':
    case 'label':
    case 'case':
    case 'unreachable':
      return n;
    case 'switch': {
      const cond = m(x.cond);
      const body = m(x.body);
      r = cond === x.cond && body === x.body ? x : { ...x, cond, body };
      break;
    }
    case 'index': {
      const base = m(x.base);
      const index = m(x.index);
      r = base === x.base && index === x.index ? x : { ...x, base, index };
      break;
    }
    case 'field': {
      const base = m(x.base);
      r = base === x.base ? x : { ...x, base };
      break;
    }
    case 'deref': {
      const ptr = m(x.ptr);
      r = ptr === x.ptr ? x : { ...x, ptr };
      break;
    }
    case 'addr': {
      const target = m(x.target);
      r = target === x.target ? x : { ...x, target };
      break;
    }
    case 'unary':
    case 'cast': {
      const operand = m(x.operand);
      r = operand === x.operand ? x : { ...x, operand };
      break;
    }
    case 'binary':
    case 'comma': {
      const left = m(x.left);
      const right = m(x.right);
      r = left === x.left && right === x.right ? x : { ...x, left, right };
      break;
    }
    case 'cond': {
      const cond = m(x.cond);
      const then = m(x.then);
      const els = m(x.else);
      r = cond === x.cond && then === x.then && els === x.else ? x : { ...x, cond, then, else: els };
      break;
    }
    case 'call':
    case 'vec': {
      const args = ma(x.args);
      r = args === x.args ? x : { ...x, args };
      break;
    }
    case 'assign': {
      const target = m(x.target);
      const value = m(x.value);
      r = target === x.target && value === x.value ? x : { ...x, target, value };
      break;
    }
    case 'incdec': {
      const target = m(x.target);
      r = target === x.target ? x : { ...x, target };
      break;
    }
    case 'safe': {
      const left = m(x.left);
      const right = mo(x.right);
      r = left === x.left && right === x.right ? x : { ...x, left, right };
      break;
    }
    case 'init-list': {
      const items = ma(x.items);
      r = items === x.items ? x : { ...x, items };
      break;
    }
    case 'var-decl': {
      const init = mo(x.init);
      r = init === x.init ? x : { ...x, init };
      break;
    }
    case 'func': {
      const params = ma(x.params);
      const body = m(x.body);
      r = params === x.params && body === x.body ? x : { ...x, params, body };
      break;
    }
    case 'block': {
      const locals = ma(x.locals);
      const stmts = ma(x.stmts);
      r = locals === x.locals && stmts === x.stmts ? x : { ...x, locals, stmts };
      break;
    }
    case 'expr': {
      const expr = m(x.expr);
      r = expr === x.expr ? x : { ...x, expr };
      break;
    }
    case 'if': {
      const cond = m(x.cond);
      const then = m(x.then);
      const els = mo(x.else);
      r = cond === x.cond && then === x.then && els === x.else ? x : { ...x, cond, then, else: els };
      break;
    }
    case 'for': {
      const init = mo(x.init);
      const cond = mo(x.cond);
      const step = mo(x.step);
      const body = m(x.body);
      r =
        init === x.init && cond === x.cond && step === x.step && body === x.body ? x : { ...x, init, cond, step, body };
      break;
    }
    case 'return': {
      const value = mo(x.value);
      r = value === x.value ? x : { ...x, value };
      break;
    }
    case 'hash':
    case 'check': {
      const value = m(x.value);
      r = value === x.value ? x : { ...x, value };
      break;
    }
    case 'assume': {
      const cond = m(x.cond);
      r = cond === x.cond ? x : { ...x, cond };
      break;
    }
    case 'igoto': {
      const index = m(x.index);
      r = index === x.index ? x : { ...x, index };
      break;
    }
  }
  return r as N;
}

/** Calls `f` on every node of the subtree in pre-order; return `false` from `f` to skip a node's children. */
// biome-ignore lint/suspicious/noConfusingVoidType: a visitor may return nothing; false skips the children
export function walk(n: Node, f: (node: Node, parent: Node | undefined) => boolean | void, parent?: Node): void {
  // An explicit stack, in the recursion's order (each node's children pushed, then reversed in
  // place): a recursive walk made a closure per node, and walks over whole programs were a large
  // share of generation's garbage.
  const nodes: Node[] = [n];
  const parents: (Node | undefined)[] = [parent];
  let cur: Node = n;
  const push = (c: Node): void => {
    nodes.push(c);
    parents.push(cur);
  };
  while (nodes.length) {
    const x = nodes.pop()!;
    const up = parents.pop();
    if (f(x, up) === false) continue;
    const from = nodes.length;
    cur = x;
    forEachChild(x, push);
    for (let i = from, j = nodes.length - 1; i < j; i++, j--) {
      const t = nodes[i]!;
      nodes[i] = nodes[j]!;
      nodes[j] = t;
    }
  }
}

/**
 * Calls `f` on each direct child, in `children` order, without building the array: walks over
 * whole programs (the interpreter's index, the emitter's name table) visit every node.
 */
export function forEachChild(n: Node, f: (child: Node) => void): void {
  switch (n.kind) {
    case 'const':
    case 'null':
    case 'var':
    case 'break':
    case 'continue':
    case 'goto':
    case 'label':
    case 'case':
    case 'unreachable':
      return;
    case 'switch':
      f(n.cond);
      f(n.body);
      return;
    case 'index':
      f(n.base);
      f(n.index);
      return;
    case 'field':
      f(n.base);
      return;
    case 'deref':
      f(n.ptr);
      return;
    case 'addr':
      f(n.target);
      return;
    case 'unary':
    case 'cast':
      f(n.operand);
      return;
    case 'binary':
    case 'comma':
      f(n.left);
      f(n.right);
      return;
    case 'cond':
      f(n.cond);
      f(n.then);
      f(n.else);
      return;
    case 'call':
    case 'vec':
      for (const a of n.args) f(a);
      return;
    case 'assign':
      f(n.target);
      f(n.value);
      return;
    case 'incdec':
      f(n.target);
      return;
    case 'safe':
      f(n.left);
      if (n.right) f(n.right);
      return;
    case 'init-list':
      for (const c of n.items) f(c);
      return;
    case 'var-decl':
      if (n.init) f(n.init);
      return;
    case 'func':
      for (const c of n.params) f(c);
      f(n.body);
      return;
    case 'block':
      for (const c of n.locals) f(c);
      for (const c of n.stmts) f(c);
      return;
    case 'expr':
      f(n.expr);
      return;
    case 'if':
      f(n.cond);
      f(n.then);
      if (n.else) f(n.else);
      return;
    case 'for':
      if (n.init) f(n.init);
      if (n.cond) f(n.cond);
      if (n.step) f(n.step);
      f(n.body);
      return;
    case 'return':
      if (n.value) f(n.value);
      return;
    case 'hash':
    case 'check':
      f(n.value);
      return;
    case 'assume':
      f(n.cond);
      return;
    case 'igoto':
      f(n.index);
      return;
  }
}

/** Calls `f` on every node of the program (globals, then functions) in pre-order. */
// biome-ignore lint/suspicious/noConfusingVoidType: as for walk
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
    case 'igoto':
    case 'label':
    case 'hash':
    case 'check':
    case 'switch':
    case 'case':
    case 'unreachable':
    case 'assume':
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
      case 'vec':
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

/**
 * The `case` and `default` labels of a switch body: its direct statements and those of its nested
 * blocks, ifs and loops (Duff's device), not those of a nested switch, which are its own.
 */
export function switchCases(body: Block): (Stmt & { kind: 'case' })[] {
  const out: (Stmt & { kind: 'case' })[] = [];
  walk(body, (n) => {
    if (n.kind === 'case') out.push(n);
    // Expressions hold no statements; a nested switch's labels are its own.
    return n.kind !== 'switch' && isStmt(n);
  });
  return out;
}
