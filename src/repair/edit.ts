import { intMax, intMin, type IntType } from '../c/types.js';
import { IRBuilder } from '../ir/build.js';
import type { Block, Expr, FuncDecl, Node, Program, Stmt, VarDecl } from '../ir/nodes.js';
import { isExpr } from '../ir/nodes.js';
import { unqualified, type Type } from '../ir/types.js';
import { children, isStmt, mapChildren, walk } from '../ir/visit.js';
import { vecLanes } from '../ir/vector.js';

/**
 * The program being repaired, kept with a live id index and a builder continuing its id space.
 * One editor serves a whole batch of repairs: each replacement copies only the path from the
 * node to its function (or global) and updates the index incrementally, so a repair costs the
 * depth of the node, not the size of the program.
 */
export class Editor {
  private current: Program;
  // Node ids are small dense integers, so the index is a set of arrays (much cheaper than maps).
  private readonly nodes = new IdMap<Node>();
  private readonly parents = new IdNumbers();
  private readonly funcOf = new IdNumbers();
  readonly b: IRBuilder;

  constructor(program: Program) {
    this.current = program;
    // Pre-size the tables: writing far past an array's end turns it into a slow dictionary.
    for (const m of [this.nodes, this.parents, this.funcOf]) m.reserve(program.nextId + 1024);
    for (const g of program.globals) this.indexSubtree(g, undefined, undefined);
    for (const f of program.funcs) this.indexSubtree(f, undefined, f.id);
    this.b = IRBuilder.continuing(program);
  }

  /** The program with every edit so far. */
  get program(): Program {
    return { ...this.current, nextId: this.b.nextId };
  }

  /** The node with this id (throws when absent). */
  node(id: number): Node {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`repair: no node ${id}`);
    return n;
  }

  /** The node with this id, if it is still in the program. */
  find(id: number): Node | undefined {
    return this.nodes.get(id);
  }

  /** The parent of a node. */
  parent(id: number): Node | undefined {
    const p = this.parents.get(id);
    return p === undefined ? undefined : this.nodes.get(p);
  }

  /** Ancestors from the parent up to the function (or global declaration). */
  ancestors(id: number): Node[] {
    const out: Node[] = [];
    let p = this.parent(id);
    while (p) {
      out.push(p);
      p = this.parent(p.id);
    }
    return out;
  }

  /** The innermost statement containing (or being) the node. */
  statementOf(id: number): Stmt | undefined {
    const n = this.node(id);
    if (isStmt(n)) return n;
    return this.ancestors(id).find(isStmt);
  }

  /** The function containing the node, if any. */
  functionOf(id: number): FuncDecl | undefined {
    const f = this.funcOf.get(id);
    return f === undefined ? undefined : (this.nodes.get(f) as FuncDecl);
  }

  /** All globals in file order. */
  globals(): readonly VarDecl[] {
    return this.current.globals;
  }

  /** The global declaration whose initialiser contains the node, if any. */
  enclosingGlobal(id: number): VarDecl | undefined {
    if (this.funcOf.has(id)) return undefined;
    const top = [this.node(id), ...this.ancestors(id)].pop();
    return top?.kind === 'var-decl' && top.storage === 'global' ? top : undefined;
  }

  /** Adds a global variable, after all existing globals or just before global `before`. */
  addGlobal(d: VarDecl, before?: number): VarDecl {
    const gs = [...this.current.globals];
    const at = before === undefined ? gs.length : gs.findIndex((g) => g.id === before);
    gs.splice(at < 0 ? gs.length : at, 0, d);
    this.current = { ...this.current, globals: gs };
    this.indexSubtree(d, undefined, undefined);
    return d;
  }

  /**
   * Sets the program's functions (in this order): functions not yet in the program are indexed,
   * so an editor that drew new functions (an extension round) can go on to repair them.
   */
  setFunctions(funcs: readonly FuncDecl[], nextId: number): void {
    const known = new Set(this.current.funcs);
    for (const f of funcs) if (!known.has(f)) this.indexSubtree(f, undefined, f.id);
    this.current = { ...this.current, funcs: [...funcs] };
    if (this.b.nextId !== nextId) throw new Error(`editor: ids went on elsewhere (${this.b.nextId} != ${nextId})`);
  }

  /**
   * Replaces node `id` by `f(old)`, copying the path to the root. Returns the new program, or
   * undefined when the node is no longer part of the program (an earlier edit removed it).
   */
  replace(id: number, f: (old: Node) => Node): Program | undefined {
    const old = this.nodes.get(id);
    if (!old) return undefined;
    const fresh = f(old);
    // Rebuild the ancestors, innermost first, each with its child swapped for the new one.
    let child: Node = old;
    let replacement: Node = fresh;
    let p = this.parents.get(id);
    while (p !== undefined) {
      const parent = this.nodes.get(p)!;
      const oldChild = child;
      const newChild = replacement;
      let found = false;
      const rebuilt = mapChildren(parent, (c) => {
        if (c === oldChild) {
          found = true;
          return newChild;
        }
        return c;
      });
      if (!found) return undefined; // the index is stale for this node: it was replaced away
      this.nodes.set(p, rebuilt);
      child = parent;
      replacement = rebuilt;
      p = this.parents.get(p);
    }
    // `child` is now a top-level declaration; swap it in the program.
    const top = child;
    const topNew = replacement;
    if (top.kind === 'func') {
      this.current = { ...this.current, funcs: this.current.funcs.map((x) => (x === top ? (topNew as FuncDecl) : x)) };
    } else if (top.kind === 'var-decl') {
      this.current = {
        ...this.current,
        globals: this.current.globals.map((x) => (x === top ? (topNew as VarDecl) : x)),
      };
    } else {
      return undefined;
    }
    // Drop the old subtree from the index, then index the new one. Children the new node keeps
    // (a block that gained statements keeps the others) stay indexed as they are: re-indexing
    // them would make each insertion cost the size of the whole block.
    const parentOfOld = this.parents.get(id);
    const fn = this.funcOf.get(id);
    const kept = fresh.id === old.id ? new Set<Node>(children(fresh)) : undefined;
    walk(old, (n) => {
      if (n !== old && kept?.has(n)) return false;
      if (this.nodes.get(n.id) === n) {
        this.nodes.delete(n.id);
        this.parents.delete(n.id);
        this.funcOf.delete(n.id);
      }
    });
    this.indexSubtree(fresh, parentOfOld, fn);
    return this.program;
  }

  private indexSubtree(n: Node, parent: number | undefined, fn: number | undefined): void {
    const visit = (x: Node, par: number | undefined): void => {
      // A subtree already indexed at this place (the same object under the same parent, in the
      // same function) is indexed all the way down: nodes are immutable.
      if (
        x !== n &&
        par !== undefined &&
        this.nodes.get(x.id) === x &&
        this.parents.get(x.id) === par &&
        this.funcOf.get(x.id) === (x.kind === 'func' ? x.id : fn)
      )
        return;
      this.nodes.set(x.id, x);
      if (par === undefined) this.parents.delete(x.id);
      else this.parents.set(x.id, par);
      const f = x.kind === 'func' ? x.id : fn;
      if (f === undefined) this.funcOf.delete(x.id);
      else this.funcOf.set(x.id, f);
      if (x.kind === 'init-list') {
        // Constants in initialiser lists (large arrays have thousands) are never repair sites.
        for (const c of x.items) if (c.kind !== 'const') visit(c, x.id);
        return;
      }
      for (const c of children(x)) visit(c, x.id);
    };
    visit(n, parent);
  }

  /**
   * Inserts statements before statement `stmtId` in its block (optionally declaring new locals in
   * that block, or at the function's top when the block is a switch body, and replacing nodes
   * inside the statement). Undefined when the statement is not
   * directly inside a block.
   */
  insertBefore(
    stmtId: number,
    stmts: readonly Stmt[],
    locals: readonly VarDecl[] = [],
    alsoReplace?: ReadonlyMap<number, (old: Node) => Node>,
  ): Program | undefined {
    const block = this.parent(stmtId);
    if (block?.kind !== 'block') return undefined;
    const inner = alsoReplace ?? new Map<number, (old: Node) => Node>();
    const rec = (n: Node): Node => {
      const r = inner.get(n.id);
      if (r) return r(n);
      return mapChildren(n, rec);
    };
    // A switch body declares nothing (a jump to a case would skip the declaration, and the emitter
    // prints none there): its new locals go to the top of the function, in scope everywhere in it.
    // A switch maze's statements sit directly in its body.
    const top = locals.length && this.parent(block.id)?.kind === 'switch' ? this.functionOf(stmtId)?.body : undefined;
    const p = this.replace(block.id, (old) => {
      const b = old as Block;
      const out: Stmt[] = [];
      for (const s of b.stmts) {
        if (s.id === stmtId) out.push(...stmts);
        out.push(s.id === stmtId ? (rec(s) as Stmt) : s);
      }
      return { ...b, locals: top ? b.locals : [...b.locals, ...locals], stmts: out };
    });
    if (!p || !top) return p;
    return this.replace(top.id, (old) => ({ ...(old as Block), locals: [...(old as Block).locals, ...locals] }));
  }

  /** A constant of an integer type, clamped into range. */
  constant(t: IntType, v: bigint): Expr {
    const u = unqualified(t) as IntType;
    const c = v < intMin(u) ? intMin(u) : v > intMax(u) ? intMax(u) : v;
    return this.b.lit(c, u);
  }

  /** A copy of an expression with fresh ids (IR nodes are never shared). */
  clone<E extends Node>(e: E): E {
    const rec = (n: Node): Node => {
      const c = mapChildren(n, rec);
      return { ...c, id: this.b.id() };
    };
    return rec(e) as E;
  }
}

/** A map from node ids to values, stored in an array indexed by id. */
class IdMap<V> {
  private items: (V | undefined)[] = [];

  reserve(n: number): void {
    if (n <= this.items.length) return;
    if (this.items.length === 0) this.items = new Array<V | undefined>(n).fill(undefined);
    else this.items = this.items.concat(new Array<V | undefined>(n - this.items.length).fill(undefined));
  }

  get(id: number): V | undefined {
    return this.items[id];
  }

  set(id: number, v: V): void {
    this.items[id] = v;
  }

  has(id: number): boolean {
    return this.items[id] !== undefined;
  }

  delete(id: number): void {
    if (id < this.items.length) this.items[id] = undefined;
  }
}

/** A map from node ids to node ids (non-negative), stored in a typed array: no garbage, no boxing. */
class IdNumbers {
  private items = new Int32Array(0);

  reserve(n: number): void {
    if (n <= this.items.length) return;
    const grown = new Int32Array(Math.max(n, this.items.length * 2)).fill(-1);
    grown.set(this.items);
    this.items = grown;
  }

  get(id: number): number | undefined {
    const v = id < this.items.length ? this.items[id]! : -1;
    return v < 0 ? undefined : v;
  }

  set(id: number, v: number): void {
    if (id >= this.items.length) this.reserve(id + 1024);
    this.items[id] = v;
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  delete(id: number): void {
    if (id < this.items.length) this.items[id] = -1;
  }
}

/** Whether an expression is free of side effects (no assignment, ++/--, call, or volatile access). */
export function pure(e: Expr): boolean {
  switch (e.kind) {
    case 'assign':
    case 'incdec':
    case 'call':
      return false;
    case 'var':
    case 'field':
    case 'index':
    case 'deref':
      if (e.type.volatile) return false;
      break;
    default:
      break;
  }
  return childExprs(e).every(pure);
}

/** The expression children of an expression. */
export function childExprs(e: Expr): Expr[] {
  return children(e).filter(isExpr);
}

/** A zero value expression of a scalar type (integer 0 or the null pointer), or a vector of zeros. */
export function zeroOf(ed: Editor, t: Type): Expr {
  const u = unqualified(t);
  if (u.kind === 'vector')
    return vecLanes(
      ed.b,
      u,
      Array.from({ length: u.lanes }, () => zeroOf(ed, u.of)),
    );
  if (u.kind === 'int') return ed.b.lit(0n, u);
  if (u.kind === 'float') return ed.b.lit(0, u);
  if (u.kind === 'ptr') return ed.b.nullptr(u);
  throw new Error(`no zero value for ${u.kind}`);
}
