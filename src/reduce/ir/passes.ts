import { C, declaredType, intMax, intMin, isBitfieldType, type IntType } from '../../c/types.js';
import { IRBuilder } from '../../ir/build.js';
import type { Block, Expr, FuncDecl, IndirectGotoStmt, Node, Program, Stmt, VarDecl } from '../../ir/nodes.js';
import { isExpr } from '../../ir/nodes.js';
import { retypeProgram } from '../../ir/retype.js';
import { arrayOf, isArith, pointerTo, qualify, sameType, unqualified, type Type } from '../../ir/types.js';
import {
  mapChildren,
  replaceNode,
  replaceNodes,
  transform,
  transformProgram,
  walk,
  walkProgram,
} from '../../ir/visit.js';
import { VARIED } from '../../interp/runtime.js';
import type { Candidate, IRPass } from './candidate.js';
import { scalariseVectors } from './vector-pass.js';

/*
 * The IR reducer's passes. Each pass lists, for the current program, its candidate edits in
 * preference order; a candidate is a thunk giving the edited program (or undefined when the edit
 * does not apply). The engine checks each with the interpreter (UB-free, terminating) and the
 * interestingness test, and commits the first success in order.
 *
 * Passes follow Nagai et al.'s minimiser (B5) and C-Reduce's kinds of edits: statement deletion
 * by delta debugging (halves, quarters, … — the binary search of the first passes), removal of
 * functions, parameters and unused declarations, expression replacement top-down (by an operand)
 * and bottom-up (by the value it had at run time), and type, constant, array and loop shrinking.
 * (The pass interface, IRPass, is in candidate.ts, so pass modules do not import this one.)
 */

/** The smallest chunk of expressions the coarse passes edit together. */
const COARSE_CHUNK = 8;

/** How fine the passes go. */
export interface PassOptions {
  /**
   * Edits of single expressions and constants (default true). Off, the expression passes stop at
   * chunks of eight and constants are not shrunk: for tests that cost seconds each (a compile-time
   * hog near its limit), where one candidate per expression of a 300-line program takes an hour.
   */
  readonly fine?: boolean;
}

/** The passes in order: coarse and cheap first. */
export function irPasses(opts: PassOptions = {}): IRPass[] {
  const fine = opts.fine ?? true;
  // Structure first (most of the size), then expressions, then cosmetic shrinking.
  return [
    removeFunctions,
    removeStatements,
    unwrapStatements,
    plainGotos,
    dropTableEntries,
    straightenGotos,
    removeUnused,
    replaceByValue(fine),
    scalariseVectors,
    replaceByOperand(fine),
    removeParameters,
    shrinkLoops,
    shrinkArrays,
    simplifyTypes,
    ...(fine ? [shrinkConstants] : []),
    dropInert,
    refreshChecks,
  ];
}

// ---- helpers --------------------------------------------------------------------------------

function builder(p: Program): IRBuilder {
  return IRBuilder.continuing(p);
}

function zero(b: IRBuilder, t: Type): Expr | undefined {
  const u = unqualified(t);
  if (u.kind === 'int') return b.lit(0n, declaredType(u));
  if (u.kind === 'float') return b.lit(0, u);
  if (u.kind === 'ptr') return b.nullptr(u);
  return undefined;
}

/** Drops the statements with these ids from every block. */
function dropStatements(p: Program, ids: ReadonlySet<number>): Program {
  return transformProgram(p, (n) =>
    n.kind === 'block' && n.stmts.some((s) => ids.has(s.id))
      ? { ...n, stmts: n.stmts.filter((s) => !ids.has(s.id)) }
      : n,
  );
}

/** Ids of expressions that designate objects (assignment targets, bases of a[i] and s.f, operands of &). */
function lvaluePositions(p: Program): Set<number> {
  const out = new Set<number>();
  const mark = (e: Expr): void => {
    out.add(e.id);
    if (e.kind === 'field' || e.kind === 'index') mark(e.base);
  };
  walkProgram(p, (n) => {
    if (n.kind === 'assign' || n.kind === 'incdec' || n.kind === 'addr') mark(n.target);
    else if (n.kind === 'index' || n.kind === 'field') mark(n.base);
  });
  return out;
}

/**
 * Delta-debugging candidates over `items`: the halves, then the quarters, … down to single items,
 * each made by `edit`. Edits that succeed on large chunks cost one test for many items, which is
 * what makes slow tests (a compile-time hog near its limit, an emulated target) affordable: a
 * pass that offers one candidate per item needs a test per item even when all of them succeed.
 */
function ddmin<T>(
  items: readonly T[],
  edit: (chunk: readonly T[]) => () => Program | undefined,
  minChunk = 1,
): (() => Program | undefined)[] {
  const out: (() => Program | undefined)[] = [];
  if (items.length === 0) return out;
  for (let parts = 2; ; parts *= 2) {
    const size = Math.ceil(items.length / parts);
    if (size < minChunk) break;
    for (let i = 0; i < items.length; i += size) out.push(edit(items.slice(i, i + size)));
    if (size <= 1) break;
  }
  return out;
}

function expressions(p: Program): Expr[] {
  const out: Expr[] = [];
  for (const f of p.funcs) {
    walk(f, (n) => {
      if (isExpr(n)) out.push(n);
    });
  }
  return out;
}

// ---- passes ---------------------------------------------------------------------------------

/** Removes a function: its calls become zeros of its return type. */
const removeFunctions: IRPass = {
  name: 'remove-functions',
  candidates({ program }) {
    return program.funcs
      .filter((f) => f.id !== program.main)
      .map((f) => () => {
        const b = builder(program);
        let ok = true;
        const p = transformProgram(program, (n) => {
          if (n.kind !== 'call' || n.func !== f.id) return n;
          const z = zero(b, n.type);
          if (!z) ok = false;
          return z ?? n;
        });
        if (!ok) return undefined;
        return { ...p, funcs: p.funcs.filter((x) => x.id !== f.id), nextId: b.nextId };
      });
  },
};

/** Deletes statements by delta debugging: halves, then quarters, … down to single statements. */
const removeStatements: IRPass = {
  name: 'remove-statements',
  // After a success the engine resumes at the same position, i.e. at the same chunk size (ddmin).
  candidates({ program }) {
    const stmts: number[] = [];
    for (const f of program.funcs) {
      walk(f.body, (n) => {
        if (n.kind === 'block') for (const s of n.stmts) stmts.push(s.id);
      });
    }
    return ddmin(stmts, (chunk) => () => dropStatements(program, new Set(chunk)));
  },
};

/**
 * Replaces a compound statement by part of it: an if by one branch, a loop by its body run once, a block by its
 * contents.
 */
const unwrapStatements: IRPass = {
  name: 'unwrap-statements',
  candidates({ program }) {
    const out: (() => Program | undefined)[] = [];
    for (const f of program.funcs) {
      walk(f.body, (n) => {
        if (n.kind === 'if') {
          out.push(() => replaceNode(program, n.id, () => n.then));
          if (n.else) out.push(() => replaceNode(program, n.id, () => n.else!));
        } else if (n.kind === 'for') {
          const b = builder(program);
          out.push(() => {
            const stmts: Stmt[] = n.init ? [b.stmt(n.init), n.body] : [n.body];
            return { ...replaceNode(program, n.id, () => b.block(stmts)), nextId: b.nextId };
          });
        } else if (n.kind === 'switch') {
          const b = builder(program);
          out.push(() => ({
            ...replaceNode(program, n.id, () =>
              b.block(n.body.stmts.filter((s) => s.kind !== 'case' && s.kind !== 'break')),
            ),
            nextId: b.nextId,
          }));
        }
      });
      // A nested block merges into its parent (its locals have program-unique names).
      walk(f.body, (n) => {
        if (n.kind !== 'block') return;
        const inner = n.stmts.filter((s): s is Block => s.kind === 'block');
        for (const child of inner) {
          out.push(() =>
            replaceNode(program, n.id, (old) => {
              const o = old as Block;
              return {
                ...o,
                locals: [...o.locals, ...child.locals],
                stmts: o.stmts.flatMap((s) => (s.id === child.id ? [...child.stmts] : [s])),
              };
            }),
          );
        }
      });
    }
    return out;
  },
};

/**
 * The table position a computed goto jumped to on every execution: its constant index, or the one
 * value the profile saw its index take (undefined when it took several, or never ran).
 */
function takenEntry(s: IndirectGotoStmt, c: Candidate): number | undefined {
  const v = s.index.kind === 'const' ? s.index.value : c.profile.nodeValues?.get(s.index.id);
  if (v === undefined || v === VARIED) return undefined;
  const k = Number(v);
  return k >= 0 && k < s.labels.length ? k : undefined;
}

function indirectGotos(p: Program): IndirectGotoStmt[] {
  const out: IndirectGotoStmt[] = [];
  for (const f of p.funcs)
    walk(f.body, (n) => {
      if (n.kind === 'igoto') out.push(n);
      return !isExpr(n);
    });
  return out;
}

/**
 * A computed goto becomes a plain `goto` to one of its labels: the one every execution took (the
 * profile's), first alone and then after its index evaluated as a statement (which keeps the
 * index's side effects); else each label in table order.
 */
const plainGotos: IRPass = {
  name: 'plain-gotos',
  candidates(c) {
    const { program } = c;
    const out: (() => Program | undefined)[] = [];
    for (const s of indirectGotos(program)) {
      const taken = takenEntry(s, c);
      const to = (label: number, keepIndex: boolean) => () => {
        const b = builder(program);
        const jump = b.goto({ id: label });
        const p = replaceNode(program, s.id, () => (keepIndex ? b.block([b.stmt(s.index), jump]) : jump));
        return { ...p, nextId: b.nextId };
      };
      if (taken !== undefined) out.push(to(s.labels[taken]!, false), to(s.labels[taken]!, true));
      else for (const l of new Set(s.labels)) out.push(to(l, false));
    }
    return out;
  },
};

/**
 * A computed goto's table loses entries. Where every execution took one entry, the table first
 * becomes that entry alone at index 0; then chunks of entries go by delta debugging (entries after
 * a dropped one move down, so the interpreter rejects what jumps elsewhere or past the end).
 */
const dropTableEntries: IRPass = {
  name: 'drop-table-entries',
  candidates(c) {
    const { program } = c;
    const out: (() => Program | undefined)[] = [];
    for (const s of indirectGotos(program)) {
      if (s.labels.length < 2) continue;
      const taken = takenEntry(s, c);
      if (taken !== undefined)
        out.push(() => {
          const b = builder(program);
          const t = unqualified(s.index.type) as IntType;
          const index = b.lit(0n, t.declBits ? declaredType(t) : isBitfieldType(t) ? C.int : t);
          const p = replaceNode(program, s.id, () => ({ ...s, labels: [s.labels[taken]!], index }));
          return { ...p, nextId: b.nextId };
        });
      const positions = s.labels.map((_, i) => i);
      out.push(
        ...ddmin(positions, (chunk) => () => {
          if (chunk.length === s.labels.length) return undefined;
          const labels = s.labels.filter((_, i) => !chunk.includes(i));
          return replaceNode(program, s.id, () => ({ ...s, labels }));
        }),
      );
    }
    return out;
  },
};

/** Statements after which a block's next statement runs only when a jump reaches it. */
function jumpsAway(s: Stmt): boolean {
  return s.kind === 'goto' || s.kind === 'igoto' || s.kind === 'return' || s.kind === 'break' || s.kind === 'continue';
}

/** Where a statement sits: its block, its index there, and what is in scope and what it breaks out of. */
interface Place {
  readonly block: Block;
  readonly index: number;
  /** Declarations visible there (parameters and the locals of the blocks around it). */
  readonly scope: ReadonlySet<number>;
  /** The loop or switch a `break` there leaves, and the loop a `continue` steps (statement ids). */
  readonly breaks: number | undefined;
  readonly continues: number | undefined;
}

/** The place of every statement directly in a block of `f`. */
function places(f: FuncDecl): Map<number, Place> {
  const out = new Map<number, Place>();
  const inBlock = (blk: Block, outer: ReadonlySet<number>, breaks?: number, continues?: number): void => {
    const scope = new Set([...outer, ...blk.locals.map((l) => l.id)]);
    blk.stmts.forEach((s, index) => {
      out.set(s.id, { block: blk, index, scope, breaks, continues });
      if (s.kind === 'block') inBlock(s, scope, breaks, continues);
      else if (s.kind === 'if') {
        inBlock(s.then, scope, breaks, continues);
        if (s.else) inBlock(s.else, scope, breaks, continues);
      } else if (s.kind === 'for') inBlock(s.body, scope, s.id, s.id);
      else if (s.kind === 'switch') inBlock(s.body, scope, s.id, continues);
    });
  };
  inBlock(f.body, new Set(f.params.map((p) => p.id)));
  return out;
}

/**
 * Whether statements taken from `from` still mean the same at `to`: every local they use is in
 * scope there (or declared inside them), and every `case`, `break` and `continue` not inside a
 * switch or loop of their own binds to the same statement at both places.
 */
function movable(stmts: readonly Stmt[], from: Place, to: Place): boolean {
  let ok = true;
  const inside = new Set<number>();
  for (const s of stmts)
    walk(s, (n) => {
      if (n.kind === 'block') for (const l of n.locals) inside.add(l.id);
    });
  const visit = (n: Node, loops: number, switches: number): void => {
    if (!ok) return;
    if (n.kind === 'var' && !inside.has(n.decl) && from.scope.has(n.decl) && !to.scope.has(n.decl)) ok = false;
    else if (n.kind === 'case' && switches === 0) ok = false;
    else if (n.kind === 'break' && loops + switches === 0 && from.breaks !== to.breaks) ok = false;
    else if (n.kind === 'continue' && loops === 0 && from.continues !== to.continues) ok = false;
    const l = n.kind === 'for' ? loops + 1 : loops;
    const w = n.kind === 'switch' ? switches + 1 : switches;
    mapChildren(n, (c) => {
      visit(c, l, w);
      return c;
    });
  };
  for (const s of stmts) visit(s, 0, 0);
  return ok;
}

/**
 * Whether statements a conditional goto jumps over can sit in an `else` block: no label in them
 * that a jump targets (it would enter the block), and no case label of the switch around them.
 */
function skippable(stmts: readonly Stmt[], refs: ReadonlyMap<number, number>): boolean {
  let ok = true;
  const visit = (n: Node, switches: number): void => {
    if (!ok || isExpr(n)) return;
    if ((n.kind === 'label' && refs.has(n.id)) || (n.kind === 'case' && switches === 0)) ok = false;
    const w = n.kind === 'switch' ? switches + 1 : switches;
    mapChildren(n, (c) => {
      visit(c, w);
      return c;
    });
  };
  for (const s of stmts) visit(s, 0);
  return ok;
}

/**
 * Straightens the control-flow graph, turning the blocks of a goto region back into structured
 * code (text reducers see no graph, so they cannot). Two edits, each for a label only one goto
 * targets:
 * - a forward conditional goto over statements of its own block, `if (c) goto L; S…; L:`, becomes
 *   `if (c) {} else { S… }`;
 * - a `goto L` where nothing falls into `L` (the statement before it jumps away) is replaced by
 *   the code from `L` up to the first statement that jumps away, which leaves its old place:
 *   `if (c) goto L; … L: x = 1; goto M;` becomes `if (c) { x = 1; goto M; }`.
 * Then `remove-statements` drops what is left over.
 */
const straightenGotos: IRPass = {
  name: 'straighten-gotos',
  candidates({ program }) {
    const out: (() => Program | undefined)[] = [];
    for (const f of program.funcs) {
      const refs = new Map<number, number>();
      const note = (l: number): void => {
        refs.set(l, (refs.get(l) ?? 0) + 1);
      };
      walk(f.body, (n) => {
        if (n.kind === 'goto') note(n.label);
        else if (n.kind === 'igoto') n.labels.forEach(note);
        return !isExpr(n);
      });
      const at = places(f);
      // `if (c) goto L; S…; L:` → `if (c) {} else { S… }`.
      for (const [, where] of at) {
        const s = where.block.stmts[where.index]!;
        const jump = s.kind === 'if' && !s.else && s.then.stmts.length === 1 ? s.then.stmts[0] : undefined;
        if (s.kind !== 'if' || jump?.kind !== 'goto' || refs.get(jump.label) !== 1) continue;
        const target = at.get(jump.label);
        if (!target || target.block !== where.block || target.index <= where.index) continue;
        const skipped = where.block.stmts.slice(where.index + 1, target.index);
        if (!skippable(skipped, refs)) continue;
        const qid = where.block.id;
        out.push(() => {
          const b = builder(program);
          const structured: Stmt = { ...s, then: b.block([]), else: b.block(skipped) };
          const p = replaceNode(program, qid, (old) => {
            const o = old as Block;
            const stmts = [...o.stmts.slice(0, where.index), structured, ...o.stmts.slice(target.index + 1)];
            return { ...o, stmts };
          });
          return { ...p, nextId: b.nextId };
        });
      }
      // `goto L;` → the code from `L` on, moved.
      for (const [id, where] of at) {
        const s = where.block.stmts[where.index]!;
        if (s.kind !== 'goto' || refs.get(s.label) !== 1) continue;
        const target = at.get(s.label);
        if (!target || target.index === 0) continue;
        const q = target.block.stmts;
        if (!jumpsAway(q[target.index - 1]!)) continue;
        let end = target.index + 1;
        while (end < q.length && !jumpsAway(q[end]!)) end++;
        if (end === q.length) continue; // the code would run on past the block's end
        const moved = q.slice(target.index + 1, end + 1);
        const segment = new Set(q.slice(target.index, end + 1).map((x) => x.id));
        // The goto, and the block holding it, must not be part of what moves.
        let inside = false;
        for (const x of q.slice(target.index, end + 1))
          walk(x, (n) => {
            if (n.id === id || n.id === where.block.id) inside = true;
            return !inside && !isExpr(n);
          });
        if (inside || !movable(moved, target, where)) continue;
        const qid = target.block.id;
        const pid = where.block.id;
        out.push(() =>
          replaceNode(program, f.id, (old) =>
            transform(old, (n) => {
              if (n.kind !== 'block' || (n.id !== qid && n.id !== pid)) return n;
              let stmts = n.stmts;
              if (n.id === qid) stmts = stmts.filter((x) => !segment.has(x.id));
              if (n.id === pid) stmts = stmts.flatMap((x) => (x.id === id ? moved : [x]));
              return { ...n, stmts };
            }),
          ),
        );
      }
    }
    return out;
  },
};

/** Bottom-up (Nagai et al.): an expression that took a single value at run time becomes that constant. */
const replaceByValue = (fine: boolean): IRPass => ({
  name: 'replace-by-value',
  candidates({ program, profile }) {
    const values = profile.nodeValues;
    if (!values) return [];
    const lvalues = lvaluePositions(program);
    const sites: { id: number; value: bigint; type: IntType }[] = [];
    for (const e of expressions(program)) {
      if (e.kind === 'const' || lvalues.has(e.id) || e.type.kind !== 'int') continue;
      const v = values.get(e.id);
      if (v === undefined || v === VARIED) continue;
      const t = unqualified(e.type) as IntType;
      const decl = declaredType(t);
      const value = typeof v === 'bigint' ? v : BigInt(v);
      if (value < intMin(decl) || value > intMax(decl)) continue;
      sites.push({ id: e.id, value, type: decl });
    }
    // Every site took one value, so replacing any set of them at once keeps the output (unless a
    // replaced expression had side effects, which the test then judges): chunks first. Nested
    // sites in one chunk are fine: the outer replacement wins.
    return ddmin(
      sites,
      (chunk) => () => {
        const b = builder(program);
        const p = replaceNodes(program, new Map(chunk.map((x) => [x.id, () => b.lit(x.value, x.type)] as const)));
        return { ...p, nextId: b.nextId };
      },
      fine ? 1 : COARSE_CHUNK,
    );
  },
});

/** Top-down: an expression becomes one of its operands, or 0, or 1. */
const replaceByOperand = (fine: boolean): IRPass => ({
  name: 'replace-by-operand',
  candidates({ program }) {
    const lvalues = lvaluePositions(program);
    const out: (() => Program | undefined)[] = [];
    const firsts: { id: number; by: Expr }[] = [];
    for (const e of expressions(program)) {
      if (lvalues.has(e.id) || e.kind === 'const' || e.kind === 'var' || e.kind === 'null') continue;
      const kids = childExprs(e).filter((c) => compatible(c.type, e.type) && !lvalues.has(c.id));
      if (kids[0]) firsts.push({ id: e.id, by: kids[0] });
      for (const c of kids) out.push(() => replaceNode(program, e.id, () => c));
      if (e.type.kind === 'int') {
        for (const k of [0n, 1n]) {
          out.push(() => {
            const b = builder(program);
            const t = unqualified(e.type) as IntType;
            return {
              ...replaceNode(program, e.id, () =>
                b.lit(k, t.declBits ? declaredType(t) : isBitfieldType(t) ? C.int : t),
              ),
              nextId: b.nextId,
            };
          });
        }
      }
    }
    // Chunks first (each expression by its first operand), down to pairs; then every single
    // choice. Most chunks fail at once in the interpreter (UB, another output), which is cheap.
    const chunks = ddmin(
      firsts,
      (chunk) => () => replaceNodes(program, new Map(chunk.map((x) => [x.id, () => x.by] as const))),
      fine ? 2 : COARSE_CHUNK,
    );
    return fine ? [...chunks, ...out] : chunks;
  },
});

function childExprs(e: Expr): Expr[] {
  const out: Expr[] = [];
  mapChildren(e as Node, (c) => {
    if (isExpr(c)) out.push(c);
    return c;
  });
  return out;
}

function compatible(from: Type, to: Type): boolean {
  if (isArith(from) && isArith(to)) return true;
  return sameType(unqualified(from), unqualified(to));
}

/** Removes declarations nothing refers to: functions, globals, locals, struct and union types. */
const removeUnused: IRPass = {
  name: 'remove-unused',
  candidates({ program }) {
    const used = new Set<number>();
    walkProgram(program, (n) => {
      if (n.kind === 'var') used.add(n.decl);
      if (n.kind === 'call') used.add(n.func);
    });
    const unusedGlobals = program.globals.filter((g) => !used.has(g.id));
    const unusedFuncs = program.funcs.filter((f) => f.id !== program.main && !used.has(f.id));
    const unusedLocals = new Set<number>();
    walkProgram(program, (n) => {
      if (n.kind === 'block') for (const l of n.locals) if (!used.has(l.id)) unusedLocals.add(l.id);
    });
    const usedRecords = new Set<number>();
    const noteType = (t: Type): void => {
      if (t.kind === 'ptr') noteType(t.to);
      else if (t.kind === 'array') noteType(t.of);
      else if (t.kind === 'struct' || t.kind === 'union') {
        if (usedRecords.has(t.id)) return;
        usedRecords.add(t.id);
        for (const f of t.fields) noteType(f.type);
      }
    };
    walkProgram(program, (n) => {
      if (n.kind === 'var-decl') noteType(n.type);
      else if (n.kind === 'func') noteType(n.ret);
      else if (isExpr(n)) noteType(n.type);
    });
    const records = program.records.filter((r) => usedRecords.has(r.id));
    if (!unusedGlobals.length && !unusedFuncs.length && !unusedLocals.size && records.length === program.records.length)
      return [];
    const dropLocals = (p: Program, ids: ReadonlySet<number>): Program =>
      transformProgram(p, (n) =>
        n.kind === 'block' && n.locals.some((l) => ids.has(l.id))
          ? { ...n, locals: n.locals.filter((l) => !ids.has(l.id)) }
          : n,
      );
    // Everything at once first; one declaration at a time when that loses the bug (an unused
    // function can still matter to a compiler bug).
    return [
      () => {
        const p = dropLocals(program, unusedLocals);
        return {
          ...p,
          records,
          globals: p.globals.filter((g) => used.has(g.id)),
          funcs: p.funcs.filter((f) => f.id === p.main || used.has(f.id)),
        };
      },
      () => ({ ...program, records }),
      ...unusedFuncs.map((f) => () => ({ ...program, funcs: program.funcs.filter((x) => x.id !== f.id) })),
      ...unusedGlobals.map((g) => () => ({ ...program, globals: program.globals.filter((x) => x.id !== g.id) })),
      () => dropLocals(program, unusedLocals),
      ...[...unusedLocals].map((id) => () => dropLocals(program, new Set([id]))),
    ];
  },
};

/** Removes a parameter with its argument at every call; uses of it become zeros. */
const removeParameters: IRPass = {
  name: 'remove-parameters',
  candidates({ program }) {
    const out: (() => Program | undefined)[] = [];
    const lvalues = lvaluePositions(program);
    const usedAsObject = new Set<number>();
    walkProgram(program, (n) => {
      if (n.kind === 'var' && lvalues.has(n.id)) usedAsObject.add(n.decl);
    });
    for (const f of program.funcs) {
      f.params.forEach((param, i) => {
        // A parameter that is assigned or whose address is taken cannot become a constant.
        if (usedAsObject.has(param.id)) return;
        out.push(() => {
          const b = builder(program);
          let ok = true;
          const p = transformProgram(program, (n) => {
            if (n.kind === 'var' && n.decl === param.id) {
              const z = zero(b, n.type);
              if (!z) ok = false;
              return z ?? n;
            }
            if (n.kind === 'call' && n.func === f.id) return { ...n, args: n.args.filter((_, k) => k !== i) };
            if (n.kind === 'func' && n.id === f.id)
              return { ...(n as FuncDecl), params: (n as FuncDecl).params.filter((x) => x.id !== param.id) };
            return n;
          });
          return ok ? { ...p, nextId: b.nextId } : undefined;
        });
      });
    }
    return out;
  },
};

/** An expression whose evaluation does nothing: a constant, or a read of a non-volatile variable. */
function inert(e: Expr | undefined): boolean {
  return e !== undefined && (e.kind === 'const' || (e.kind === 'var' && !e.type.volatile));
}

/**
 * Drops what earlier passes leave behind that does nothing (`0;` statements, `for (0; c; 1)`
 * clauses): such leftovers only lengthen the report. One candidate for all of them.
 */
const dropInert: IRPass = {
  name: 'drop-inert',
  candidates({ program }) {
    let found = false;
    walkProgram(program, (n) => {
      if ((n.kind === 'expr' && inert(n.expr)) || (n.kind === 'for' && (inert(n.init) || inert(n.step)))) found = true;
    });
    if (!found) return [];
    return [
      () =>
        transformProgram(program, (n) => {
          if (n.kind === 'block' && n.stmts.some((x) => x.kind === 'expr' && inert(x.expr)))
            return { ...n, stmts: n.stmts.filter((x) => !(x.kind === 'expr' && inert(x.expr))) };
          if (n.kind === 'for' && (inert(n.init) || inert(n.step)))
            return { ...n, init: inert(n.init) ? undefined : n.init, step: inert(n.step) ? undefined : n.step };
          return n;
        }),
    ];
  },
};

/**
 * Self-checks expect the value the interpreter computes now (Nagai et al. recompute expected
 * values after every edit: `t == 2` becomes `t == 12`), so a reduced program prints @NG@ only
 * where the compiler is wrong. One candidate updates every stale check at once.
 */
const refreshChecks: IRPass = {
  name: 'refresh-checks',
  candidates({ program, profile }) {
    const values = profile.nodeValues;
    if (!values) return [];
    const fresh = new Map<number, bigint | number>();
    walkProgram(program, (n) => {
      if (n.kind !== 'check') return;
      const v = values.get(n.value.id);
      if (v === undefined || v === VARIED) return;
      const want = n.value.type.kind === 'float' ? Number(v) : typeof v === 'bigint' ? v : BigInt(v);
      if (want !== n.expected) fresh.set(n.id, want);
    });
    if (fresh.size === 0) return [];
    return [
      () =>
        transformProgram(program, (n) =>
          n.kind === 'check' && fresh.has(n.id) ? { ...n, expected: fresh.get(n.id)! } : n,
        ),
    ];
  },
};

/** Constants move toward 0: 0, 1, then half their value. */
const shrinkConstants: IRPass = {
  name: 'shrink-constants',
  candidates({ program }) {
    const out: (() => Program | undefined)[] = [];
    walkProgram(program, (n) => {
      if (n.kind !== 'const' || n.type.kind !== 'int') return;
      const v = n.value as bigint;
      const options = [0n, 1n, v / 2n].filter((x, i, a) => a.indexOf(x) === i && (x < 0n ? -x : x) < (v < 0n ? -v : v));
      for (const x of options) out.push(() => replaceNode(program, n.id, () => ({ ...n, value: x })));
    });
    return out;
  },
};

/**
 * Integer variables become `int`, keeping their qualifiers (types in the rest of the program
 * follow). A variable whose address is stored in a pointer of its old type cannot change alone:
 * the candidate checker refuses the program (`&g` would be an `int *` in a `uint64_t *`), so such
 * a variable changes together with the pointer objects it flows into, when all of them are
 * variables of that pointer type (`uint64_t *p = &g` → `int *p = &g`).
 */
const simplifyTypes: IRPass = {
  name: 'simplify-types',
  candidates({ program }) {
    const out: (() => Program | undefined)[] = [];
    const addressed = addressFlows(program);
    walkProgram(program, (n) => {
      if (n.kind !== 'var-decl' || n.type.kind !== 'int' || n.type.name === 'int') return;
      const retype = new Map<number, Type>([
        [n.id, qualify(C.int, { const: !!n.type.const, volatile: !!n.type.volatile })],
      ]);
      const flows = addressed.get(n.id);
      if (flows === 'blocked') return; // its address goes where no variable's type can follow
      if (flows) for (const [id, t] of flows) retype.set(id, t);
      out.push(() => {
        const p = transformProgram(program, (m) =>
          m.kind === 'var-decl' && retype.has(m.id) ? { ...m, type: retype.get(m.id)! } : m,
        );
        return retypeProgram(p);
      });
    });
    return out;
  },
};

/**
 * For each integer variable whose address is taken (`&g`, not of a field or element), the pointer
 * variables it is stored in (initialised, assigned, passed as an argument) with their types
 * rewritten for an `int` pointee; 'blocked' when the address also goes anywhere else (a field,
 * an element, a return value, a comparison), where a variable's type change cannot follow.
 */
function addressFlows(program: Program): Map<number, Map<number, Type> | 'blocked'> {
  const out = new Map<number, Map<number, Type> | 'blocked'>();
  const decls = new Map<number, VarDecl>();
  walkProgram(program, (n) => {
    if (n.kind === 'var-decl') decls.set(n.id, n);
  });
  const paramsOf = new Map<number, readonly VarDecl[]>(program.funcs.map((f) => [f.id, f.params]));
  /** The variable `&v` points to, when the expression is exactly that. */
  const target = (e: Expr | undefined): number | undefined =>
    e?.kind === 'addr' && e.target.kind === 'var' ? e.target.decl : undefined;
  const into = (v: number, holder: VarDecl | undefined): void => {
    if (out.get(v) === 'blocked') return;
    const t = holder?.type;
    if (!holder || t?.kind !== 'ptr' || t.to.kind !== 'int') {
      out.set(v, 'blocked');
      return;
    }
    const m = (out.get(v) as Map<number, Type> | undefined) ?? new Map<number, Type>();
    m.set(
      holder.id,
      qualify(pointerTo(qualify(C.int, { const: !!t.to.const, volatile: !!t.to.volatile })), {
        const: !!t.const,
        volatile: !!t.volatile,
      }),
    );
    out.set(v, m);
  };
  const handled = new Set<number>();
  walkProgram(program, (n) => {
    let v: number | undefined;
    if (n.kind === 'var-decl' && (v = target(n.init as Expr | undefined)) !== undefined) {
      handled.add((n.init as Expr).id);
      into(v, n);
    } else if (n.kind === 'assign' && n.op === '=' && (v = target(n.value)) !== undefined) {
      handled.add(n.value.id);
      into(v, n.target.kind === 'var' ? decls.get(n.target.decl) : undefined);
    } else if (n.kind === 'call') {
      n.args.forEach((a, i) => {
        const w = target(a);
        if (w === undefined) return;
        handled.add(a.id);
        into(w, paramsOf.get(n.func)?.[i]);
      });
    }
  });
  walkProgram(program, (n) => {
    const v = target(n as Expr);
    if (v !== undefined && !handled.has(n.id)) out.set(v, 'blocked');
  });
  // A pointer variable that also holds other addresses, or is itself read into another pointer,
  // would need its own flows followed: the checker refuses what this leaves inconsistent.
  return out;
}

/** Arrays halve their length (initialiser lists are cut to match; out-of-range indices make a candidate invalid). */
const shrinkArrays: IRPass = {
  name: 'shrink-arrays',
  candidates({ program }) {
    const out: (() => Program | undefined)[] = [];
    walkProgram(program, (n) => {
      if (n.kind !== 'var-decl' || n.type.kind !== 'array' || n.type.length <= 1) return;
      const half = Math.max(1, Math.floor(n.type.length / 2));
      out.push(() => {
        const t = arrayOf(n.type.kind === 'array' ? n.type.of : n.type, half);
        const init = n.init?.kind === 'init-list' ? { ...n.init, items: n.init.items.slice(0, half) } : n.init;
        const p = replaceNode(program, n.id, (old) => ({ ...(old as VarDecl), type: t, init }));
        return retypeProgram(shrinkHashLoops(p, n.id, half));
      });
    });
    return out;
  },
};

/** The checksum loop over an array must follow its new length. */
function shrinkHashLoops(p: Program, decl: number, length: number): Program {
  return transformProgram(p, (n) => {
    if (n.kind !== 'for' || !n.cond || n.cond.kind !== 'binary' || n.cond.right.kind !== 'const') return n;
    let hashesDecl = false;
    walk(n.body, (x) => {
      if (x.kind === 'hash') {
        let e = x.value;
        while (e.kind === 'index' || e.kind === 'field') e = e.base;
        if (e.kind === 'var' && e.decl === decl) hashesDecl = true;
      }
    });
    if (!hashesDecl) return n;
    return { ...n, cond: { ...n.cond, right: { ...n.cond.right, value: BigInt(length) } } };
  });
}

/** Loops run half as many times: the bound moves halfway toward the start. */
const shrinkLoops: IRPass = {
  name: 'shrink-loops',
  candidates({ program }) {
    const out: (() => Program | undefined)[] = [];
    walkProgram(program, (n) => {
      if (n.kind !== 'for' || !n.init || n.init.kind !== 'assign' || n.init.value.kind !== 'const') return;
      if (n.cond?.kind !== 'binary' || n.cond.right.kind !== 'const') return;
      const c0 = n.init.value.value as bigint;
      const c1 = n.cond.right.value as bigint;
      const mid = c0 + (c1 - c0) / 2n;
      if (mid === c1) return;
      const bound = n.cond.right;
      out.push(() => replaceNode(program, bound.id, () => ({ ...bound, value: mid })));
    });
    return out;
  },
};
