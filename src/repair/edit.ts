import { intMax, intMin, type IntType } from '../c/types.js';
import { IRBuilder } from '../ir/build.js';
import type { Block, Expr, FuncDecl, Node, Program, Stmt, VarDecl } from '../ir/nodes.js';
import { isExpr } from '../ir/nodes.js';
import { unqualified, type Type } from '../ir/types.js';
import { indexProgram, isStmt, mapChildren, type ProgramIndex } from '../ir/visit.js';

/**
 * A program being repaired: the current IR plus an id index and a builder continuing its id
 * space. Rules read through it and return a new program; `Editor` keeps the two consistent.
 */
export class Editor {
  readonly index: ProgramIndex;
  readonly b: IRBuilder;
  private readonly newGlobals: VarDecl[] = [];
  /** Globals to insert before an existing global (so an earlier initialiser may refer to them). */
  private readonly globalsBefore = new Map<number, VarDecl[]>();

  constructor(readonly program: Program) {
    this.index = indexProgram(program);
    this.b = IRBuilder.continuing(program);
  }

  /** The node with this id. */
  node(id: number): Node {
    const n = this.index.nodes.get(id);
    if (!n) throw new Error(`repair: no node ${id}`);
    return n;
  }

  /** The node with this id, if it exists. */
  find(id: number): Node | undefined {
    return this.index.nodes.get(id);
  }

  /** The parent of a node. */
  parent(id: number): Node | undefined {
    const p = this.index.parent.get(id);
    return p === undefined ? undefined : this.index.nodes.get(p);
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
    const f = this.index.funcOf.get(id);
    return f === undefined ? undefined : (this.index.nodes.get(f) as FuncDecl);
  }

  /** A declaration by id. */
  decl(id: number): VarDecl | undefined {
    const n = this.index.nodes.get(id);
    return n?.kind === 'var-decl' ? n : undefined;
  }

  /** Adds a global variable, after all existing globals or just before global `before`. */
  addGlobal(d: VarDecl, before?: number): VarDecl {
    if (before === undefined) this.newGlobals.push(d);
    else this.globalsBefore.set(before, [...(this.globalsBefore.get(before) ?? []), d]);
    return d;
  }

  /** All globals in file order, including those added during this edit. */
  globals(): readonly VarDecl[] {
    return [...this.program.globals.flatMap((g) => [...(this.globalsBefore.get(g.id) ?? []), g]), ...this.newGlobals];
  }

  /** The global declaration whose initialiser contains the node, if any. */
  enclosingGlobal(id: number): VarDecl | undefined {
    if (this.index.funcOf.has(id)) return undefined;
    const top = [this.node(id), ...this.ancestors(id)].pop();
    return top?.kind === 'var-decl' && top.storage === 'global' ? top : undefined;
  }

  /** The program with the given replacements applied (ids must not be nested in one another). */
  apply(replacements: ReadonlyMap<number, (old: Node) => Node>): Program {
    const rec = (n: Node): Node => {
      const r = replacements.get(n.id);
      if (r) return r(n);
      return mapChildren(n, rec);
    };
    const globals = [...this.program.globals.flatMap((g) => [...(this.globalsBefore.get(g.id) ?? []), rec(g) as VarDecl]), ...this.newGlobals];
    const funcs = this.program.funcs.map((f) => rec(f) as FuncDecl);
    return { ...this.program, globals, funcs, nextId: this.b.nextId };
  }

  /** Replaces one node. */
  replace(id: number, f: (old: Node) => Node): Program {
    return this.apply(new Map([[id, f]]));
  }

  /**
   * Inserts statements before statement `stmtId` in its block (optionally declaring new locals in
   * that block). Returns undefined when the statement is not directly inside a block.
   */
  insertBefore(stmtId: number, stmts: readonly Stmt[], locals: readonly VarDecl[] = [], alsoReplace?: ReadonlyMap<number, (old: Node) => Node>): Program | undefined {
    const block = this.parent(stmtId);
    if (!block || block.kind !== 'block') return undefined;
    const inner = alsoReplace ?? new Map<number, (old: Node) => Node>();
    const rec = (n: Node): Node => {
      const r = inner.get(n.id);
      if (r) return r(n);
      return mapChildren(n, rec);
    };
    return this.replace(block.id, (old) => {
      const b = old as Block;
      const out: Stmt[] = [];
      for (const s of b.stmts) {
        if (s.id === stmtId) out.push(...stmts);
        out.push(rec(s) as Stmt);
      }
      return { ...b, locals: [...b.locals, ...locals], stmts: out };
    });
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
  const out: Expr[] = [];
  const n = e as Node;
  mapChildren(n, (c) => {
    if (isExpr(c)) out.push(c);
    return c;
  });
  return out;
}

/** A zero value expression of a scalar type (integer 0 or the null pointer). */
export function zeroOf(ed: Editor, t: Type): Expr {
  const u = unqualified(t);
  if (u.kind === 'int') return ed.b.lit(0n, u);
  if (u.kind === 'float') return ed.b.lit(0, u);
  if (u.kind === 'ptr') return ed.b.nullptr(u);
  throw new Error(`no zero value for ${u.kind}`);
}
