import { intMax, intMin, type IntType } from '../c/types.js';
import type { Expr, LabelStmt, Stmt, VarDecl } from '../ir/nodes.js';
import { unqualified } from '../ir/types.js';
import { loopContinues } from '../ir/visit.js';
import type { BlockCtx, GenContext, LoopCtx } from './context.js';
import { genInt } from './expr.js';
import { type BlockOptions, drawStatements, genStmt, placePendingLabels } from './stmt.js';

/**
 * Arbitrary control flow (after Reify, PLDI 2026): a function's code drawn as a control-flow
 * graph rather than as nested statements. Reify needs a solver to make one path through such a
 * graph free of undefined behaviour; Kiln draws the graph freely and lets the interpreter run it,
 * and the repair loop fixes what the executed path hits, as for any other code.
 *
 * Three shapes, each a statement kind with its own policy weight:
 *
 * - a *region* ({@link cfgRegion}): basic blocks in a row, each ending in a fall-through, a goto,
 *   a conditional goto, a two-way goto or a switch of gotos to any block of the region (back edges
 *   included), some runs of blocks wrapped in loops, so that gotos enter loops in the middle (loops
 *   with several entries, irreducible) and leave them from deep inside;
 * - a *switch maze* ({@link switchMaze}): fall-through, `default` anywhere, `case` labels inside
 *   nested blocks and loops (Duff's device), often in a loop that changes the controlling value;
 * - an *induction-variable loop* ({@link ivLoop}): several induction variables of different widths
 *   and signs, non-unit and changing strides, an exit on a value the body computes, and nested
 *   loops whose bounds depend on the outer ones (the shapes SCEV and IV passes handle).
 *
 * Termination is guaranteed by construction, so these shapes do not cost runs over the step budget:
 * every back edge of a region is taken only while a counter of its own is below a bound (the
 * counter is read-only to the rest of the program), and every loop has a header bound on an
 * induction variable the body cannot write, with the data-dependent conditions only added to it.
 * A goto that enters a loop in the middle skips the loop's initialisation: the induction variable
 * keeps its value, which only moves towards the bound, so the loop still ends.
 *
 * Blocks that labels (goto or case) can enter declare no locals: a jump past a declaration leaves the
 * object uninitialised. Their statements' locals are declared at the top of the region instead.
 */

/** One item of a region's layout: a basic block, or a loop around a run of items. */
type Item = { readonly bb: number } | { readonly loop: readonly Item[] };

/** How a basic block ends. */
type Exit =
  | { readonly kind: 'fall' }
  | { readonly kind: 'goto'; readonly to: number }
  | { readonly kind: 'cond'; readonly to: number }
  | { readonly kind: 'two'; readonly to: number; readonly other: number }
  /** A switch of gotos; an arm whose target is -1 runs a statement and falls into the next. */
  | { readonly kind: 'switch'; readonly to: readonly number[] }
  /** A computed goto through a table of the targets' label addresses (GNU C). */
  | { readonly kind: 'table'; readonly to: readonly number[] };

/** A region under construction. */
interface Region {
  /** The region's locals: counters, induction variables and the locals its statements declare. */
  readonly locals: VarDecl[];
  /** Label of each block (and of the exit, last), created only when something jumps there. */
  readonly labels: (LabelStmt | undefined)[];
  /** Largest trip count of the loops around its blocks (`limits.maxLoopTrip` unless smaller). */
  readonly maxTrip: number;
  /** A statement that opens a block, by block number (the entry region's loop nest). */
  readonly opening?: ReadonlyMap<number, (opts: BlockOptions) => Stmt>;
}

/** The region's own blocks under construction share its locals (see the module comment). */
function spine(g: GenContext, region: Region, inLoop: boolean): BlockCtx {
  return { locals: region.locals, stmts: [], pendingLabels: [], inLoop, depth: g.fn.blocks.length };
}

/** Runs `body` with a spine block pushed on the function's block stack. */
function inSpine<T>(g: GenContext, ctx: BlockCtx, body: () => T): T {
  g.fn.blocks.push(ctx);
  // Gotos drawn in the blocks' statements land in those statements or in this spine block.
  const floor = g.gotoFloor;
  g.gotoFloor = g.fn.blocks.length - 1;
  try {
    return body();
  } finally {
    g.gotoFloor = floor;
    g.fn.blocks.pop();
  }
}

/** A run of items from `lo` to `hi` (basic block numbers), some of it wrapped in loops. */
function layout(g: GenContext, lo: number, hi: number, depth: number): Item[] {
  const items: Item[] = [];
  let i = lo;
  while (i <= hi) {
    const room = hi - i + 1;
    if (room >= 2 && depth < 3 && g.rng.chance(g.policy.choices.regionLoop)) {
      const len = g.rng.int(2, Math.min(room, 4));
      items.push({ loop: layout(g, i, i + len - 1, depth + 1) });
      i += len;
    } else {
      items.push({ bb: i++ });
    }
  }
  return items;
}

/** The exits of `n` blocks: targets are any block of the region, or its exit (`n`); `forced` ones as given. */
function drawExits(g: GenContext, n: number, forced: ReadonlyMap<number, Exit> = new Map()): Exit[] {
  const { rng } = g;
  const target = (from: number): number => {
    // Forward more often than backward, and the exit now and then.
    const r = rng.float();
    if (r < 0.15) return n;
    if (r < 0.55 && from + 1 < n) return rng.int(from + 1, n - 1);
    return rng.int(0, n - 1);
  };
  const exits: Exit[] = [];
  for (let i = 0; i < n; i++) {
    const kind = rng.weighted<Exit['kind']>([
      ['fall', 2],
      ['goto', 1],
      ['cond', 4],
      ['two', 2],
      ['switch', 1.5],
      ['table', g.policy.features.labelValues ? 1 : 0],
    ]);
    switch (kind) {
      case 'fall':
        exits.push({ kind });
        break;
      case 'goto':
      case 'cond':
        exits.push({ kind, to: target(i) });
        break;
      case 'two':
        exits.push({ kind, to: target(i), other: target(i) });
        break;
      case 'table':
        exits.push({ kind, to: Array.from({ length: rng.int(1, 4) }, () => target(i)) });
        break;
      case 'switch': {
        // One arm (or none) runs statements and falls into the next instead of jumping.
        const fallInto = rng.int(-1, 1);
        exits.push({
          kind,
          to: Array.from({ length: rng.int(2, 4) }, (_, k) => (k === fallInto + 1 && k > 0 ? -1 : target(i))),
        });
        break;
      }
    }
  }
  for (const [i, e] of forced) exits[i] = e;
  // Every block reachable from the first: a block that only a jump skipping it would precede is
  // dead code, and calls in dead code leave the functions they create never entered. Going in
  // order, an unreachable block's predecessor (reachable by then) gets a conditional exit instead,
  // which falls through to it.
  for (let j = 1; j < n; j++) {
    if (reachable(exits, n).has(j)) continue;
    const e = exits[j - 1]!;
    if (e.kind === 'fall') continue; // falls through already (so it is unreachable too)
    exits[j - 1] = { kind: 'cond', to: typeof e.to === 'number' ? e.to : (e.to.find((t) => t >= 0) ?? n) };
  }
  return exits;
}

/** The blocks an exit jumps to (-1: a switch arm that falls through instead). */
function targetsOf(e: Exit): readonly number[] {
  return e.kind === 'fall' ? [] : 'other' in e ? [e.to, e.other] : typeof e.to === 'number' ? [e.to] : e.to;
}

/** The blocks a region's first block reaches through `exits` (a backward jump may not be taken). */
function reachable(exits: readonly Exit[], n: number): Set<number> {
  const succ = (i: number): number[] => {
    const e = exits[i]!;
    const to = targetsOf(e);
    const falls = e.kind !== 'goto' && e.kind !== 'two' && e.kind !== 'table';
    return [...to.filter((t) => t >= 0), ...(falls || to.some((t) => t <= i) ? [i + 1] : [])];
  };
  const seen = new Set<number>([0]);
  const work = [0];
  while (work.length) {
    const i = work.pop()!;
    if (i >= n) continue;
    for (const t of succ(i))
      if (!seen.has(t)) {
        seen.add(t);
        work.push(t);
      }
  }
  return seen;
}

/**
 * A region of `n` basic blocks joined by gotos (see the module comment), as one block statement:
 * its locals first, then the blocks in layout order, then the exit label when something jumps to it.
 */
export function cfgRegion(g: GenContext, opts: BlockOptions): Stmt {
  const n = g.rng.int(2, Math.max(2, g.policy.limits.regionBlocks));
  const exits = drawExits(g, n);
  return regionCode(g, opts, n, exits, layout(g, 0, n - 1, 0), g.policy.limits.maxLoopTrip);
}

/**
 * The entry region (`choices.entryRegion` for `func_1`, which every run enters once;
 * `choices.functionRegion` for the other functions): a region drawn so that the shapes the random
 * regions make only now and then are sure to be there and to run.
 * - Layout: `bb0; loop1 { bb1; loop2 { bb2; loop3 { bb3 … } } bbM; } bbL;`.
 * - bb0's conditional goto to bbM enters loop1 after loop2: loop1 has two entries (irreducible).
 * - bb1, bb2 and bbM fall through, into the loops after them and to loop1's step (with a jump
 *   there instead, loop1 would not hold loop2 at all); the blocks of loop3 end in a fall-through
 *   or a conditional goto.
 * - bbL ends in a counted computed goto where the compiler has labels as values (to the region's
 *   exit, or back to bb1 or bbM), else in a counted conditional goto back to one of them.
 * - bb3 opens with three nested induction-variable loops: the loops nest six deep. Their bodies
 *   draw no break or continue (a plain `break` ending a body is a loop that never loops), only
 *   {@link ivLoop}'s computed exits.
 * - No fixed edge enters loop2 or loop3 from outside. A loop entered in the middle, or at its
 *   body's first statement past the test, is irreducible, and the loop-nesting forest loses it
 *   and the loops it holds (a first version's table jumped into loop3: median nesting 5, not 6).
 * The rest is drawn as in any region, and it ends by construction like any region.
 */
export function entryRegion(g: GenContext, opts: BlockOptions): Stmt {
  const { rng, policy } = g;
  const n = rng.int(7, 8);
  const inner = Array.from({ length: n - 5 }, (_, k) => ({ bb: 3 + k }));
  const items: Item[] = [
    { bb: 0 },
    { loop: [{ bb: 1 }, { loop: [{ bb: 2 }, { loop: inner }] }, { bb: n - 2 }] },
    { bb: n - 1 },
  ];
  // No fixed edge enters loop2 or loop3 from outside them (their blocks' own exits, drawn at
  // random, can only jump within or out of the loops around them).
  const forced = new Map<number, Exit>([
    [0, { kind: 'cond', to: n - 2 }],
    [1, { kind: 'fall' }],
    [2, { kind: 'fall' }],
    [n - 2, { kind: 'fall' }],
    [
      n - 1,
      policy.features.labelValues
        ? { kind: 'table', to: [n, ...Array.from({ length: rng.int(1, 3) }, () => rng.pick([1, n - 2, n]))] }
        : { kind: 'cond', to: rng.pick([1, n - 2]) },
    ],
  ]);
  // At most 3 trips per loop, six loops deep: 729 runs of the innermost body at most. With full
  // trip counts (16) the termination repair emptied most of these loops (seeds 1-40), the calls
  // in their statements being the hot code.
  const maxTrip = Math.min(3, policy.limits.maxLoopTrip);
  const opening = new Map([[3, (o: BlockOptions) => ivLoop(g, o, { depth: 3, maxTrip })]]);
  // No break, continue or return in the blocks' own statements: one in bb1 would leave loop2
  // dead (seed 6 of a first version), and the fixed edges would no longer be there to run.
  const blocks: BlockOptions = { ...opts, noJumps: true };
  // The blocks of loop3 end in a fall-through or a conditional goto: an unconditional jump (a
  // goto, a table, a switch of gotos) from its last block would leave it without a path to its
  // step, and the loop, with the nest inside it, would not be a loop.
  const exits = drawExits(g, n, forced).map((e, i): Exit => {
    if (i < 3 || i > n - 3 || e.kind === 'fall' || e.kind === 'cond') return e;
    return { kind: 'cond', to: targetsOf(e).find((t) => t >= 0) ?? n };
  });
  return regionCode(g, blocks, n, exits, items, maxTrip, opening);
}

/** The code of a region of `n` blocks with the given exits and layout. */
function regionCode(
  g: GenContext,
  opts: BlockOptions,
  n: number,
  exits: readonly Exit[],
  items: readonly Item[],
  maxTrip: number,
  opening?: Region['opening'],
): Stmt {
  const { b } = g;
  const region: Region = { locals: [], labels: Array.from({ length: n + 1 }), maxTrip, opening };
  const labelOf = (i: number): LabelStmt => (region.labels[i] ??= b.label(g.name('lbl_')) as LabelStmt);
  // Labels are made before the code, so a backward goto finds its label already there.
  for (const e of exits) for (const t of targetsOf(e)) if (t >= 0) labelOf(t);
  const top = spine(g, region, opts.inLoop);
  inSpine(g, top, () => emitItems(g, region, top, items, exits, n, opts));
  const exit = region.labels[n];
  if (exit) top.stmts.push(exit);
  return b.block(top.stmts, region.locals);
}

/** Appends the code of `items` to the spine block `ctx`. */
function emitItems(
  g: GenContext,
  region: Region,
  ctx: BlockCtx,
  items: readonly Item[],
  exits: readonly Exit[],
  n: number,
  opts: BlockOptions,
): void {
  for (const it of items) {
    if ('bb' in it) {
      basicBlock(g, region, ctx, it.bb, exits[it.bb]!, opts);
      continue;
    }
    const body = spine(g, region, true);
    const loop = loopHeader(g, region.locals, region.maxTrip);
    g.fn.loops.push(loop.range);
    g.readOnly.add(loop.decl.id);
    inSpine(g, body, () =>
      emitItems(g, region, body, it.loop, exits, n, { ...opts, inLoop: true, inSwitch: false, noContinue: false }),
    );
    g.fn.loops.pop();
    const block = g.b.block(body.stmts);
    const form = loopContinues(block) ? 'for' : g.rng.pick(['for', 'for', 'while', 'do'] as const);
    ctx.stmts.push(g.b.for(loop.init, loop.cond, loop.step, block, form));
  }
}

/** One basic block: its label, a few statements, and its exit. */
function basicBlock(g: GenContext, region: Region, ctx: BlockCtx, i: number, exit: Exit, opts: BlockOptions): void {
  const { rng, b } = g;
  const label = region.labels[i];
  if (label) ctx.stmts.push(label);
  const count = rng.int(1, Math.max(1, Math.ceil(g.policy.limits.maxBlockSize / 2)));
  const inner: BlockOptions = { ...opts, functionBody: false, inSwitch: false };
  const opening = region.opening?.get(i);
  if (opening) {
    g.statements++;
    ctx.stmts.push(opening(inner));
  }
  drawStatements(g, ctx, inner, count);
  const jump = (to: number): Stmt => guardedJump(g, region, i, [to], b.goto(region.labels[to]!));
  // A full expression of a fresh complexity budget, of an integer type drawn by `type`.
  const cond = (type: (g: GenContext) => IntType = (x) => x.intType()): Expr => {
    g.complexity = rng.int(1, Math.max(1, g.policy.limits.maxExprComplexity));
    return genInt(g, type(g));
  };
  // The table's index: any value the program computes (the repair wraps one that leaves the table).
  const table = (to: readonly number[]): Stmt =>
    guardedJump(
      g,
      region,
      i,
      to,
      b.igoto(
        to.map((t) => region.labels[t]!),
        cond(),
      ),
    );
  const end = blockExit(g, exit, jump, table, cond, inner);
  if (end) ctx.stmts.push(end);
  // After the exit: a goto drawn in a switch arm of the exit may target this block too.
  placePendingLabels(g, ctx);
}

/** The statement that ends a basic block (none for a fall-through). */
function blockExit(
  g: GenContext,
  exit: Exit,
  jump: (to: number) => Stmt,
  table: (to: readonly number[]) => Stmt,
  cond: (type?: (g: GenContext) => IntType) => Expr,
  inner: BlockOptions,
): Stmt | undefined {
  const { rng, b } = g;
  switch (exit.kind) {
    case 'fall':
      return undefined;
    case 'goto':
      return jump(exit.to);
    case 'cond':
      return b.if(cond(), b.block([jump(exit.to)]));
    case 'two':
      return b.if(cond(), b.block([jump(exit.to)]), b.block([jump(exit.other)]));
    case 'table':
      return table(exit.to);
    case 'switch': {
      // `switch (e) { case a: goto A; case b: x = …; case c: goto C; default: … }`: the
      // statements of one case fall through into the next, and `default` sits anywhere.
      const values = distinctSmall(g, exit.to.length);
      const stmts: Stmt[] = [];
      const dflt = rng.int(0, exit.to.length);
      exit.to.forEach((to, k) => {
        if (k === dflt) stmts.push(b.case());
        stmts.push(b.case(values[k]));
        if (to < 0) {
          g.statements++;
          const s = genStmt(g, { ...inner, inSwitch: true, noJumps: true });
          if (s) stmts.push(s);
        } else stmts.push(jump(to));
      });
      if (dflt === exit.to.length) stmts.push(b.case(), b.brk());
      // The controlling value holds every label (case values go up to 11).
      return b.switch(holdsCases(g, cond(caseType)), b.block(stmts));
    }
  }
}

/**
 * A jump from block `from` to the blocks `to` (a goto, or a computed goto with a table): as it is
 * when every target lies forward, else counted (`if (k < K) { k += s; goto L; }`), the counter
 * only growing, so each back edge is taken at most a few times per entry into the region.
 */
function guardedJump(g: GenContext, region: Region, from: number, to: readonly number[], jump: Stmt): Stmt {
  const { b, rng } = g;
  if (to.every((t) => t > from)) return jump;
  const t = rng.pick(g.intTypes);
  const start = rng.chance(0.6) ? 0n : BigInt(rng.int(-8, 8));
  const c0 = clampTo(start, t);
  const s = BigInt(rng.pick([1, 1, 1, 2, 3]));
  const bound = c0 + s * BigInt(rng.int(1, g.policy.limits.regionBackEdges));
  const k = b.local(g.name('l_'), t, b.lit(c0, t));
  region.locals.push(k);
  g.readOnly.add(k.id);
  const inc = b.stmt(b.assign(b.v(k), b.lit(s, t), '+='));
  return b.if(b.bin('<', b.v(k), b.lit(bound, t)), b.block([inc, jump]));
}

/** `v` moved into the range of `t` (with room for the counters' bounds above it). */
function clampTo(v: bigint, t: IntType): bigint {
  const lo = intMin(t);
  const hi = intMax(t) - 64n;
  return v < lo ? lo : v > hi ? hi : v;
}

/**
 * A type for a switch's controlling value that holds every case label (0 to 11): not a `_BitInt`
 * under 8 bits (gcc warns that such a label is out of range).
 */
function caseType(g: GenContext): IntType {
  const t = g.intType();
  return t.bitPrecise && t.bits < 8 ? g.types.int : t;
}

/**
 * `e`, or `(int)e` when its type cannot hold every case label (0 to 11): an expression drawn for a
 * type may be of a narrower one (a `_BitInt(2)` field read as is), and a label is converted to the
 * controlling type, so 9 and 1 were one label twice for a `_BitInt(2)` (seed 688: `duplicate
 * case value`, a program neither gcc nor clang compiles).
 */
function holdsCases(g: GenContext, e: Expr): Expr {
  const t = unqualified(e.type);
  return t.kind === 'int' && intMax(t) < 11n ? g.b.cast(g.types.int, e) : e;
}

/** `n` distinct small case values. */
function distinctSmall(g: GenContext, n: number): bigint[] {
  const vs = new Set<bigint>();
  // Not negative: a controlling value of unsigned type would make gcc warn that a case is out of range.
  while (vs.size < n) vs.add(BigInt(g.rng.int(0, 11)));
  return [...vs];
}

/** A loop header over a fresh induction variable declared with the region. */
interface Header {
  readonly decl: VarDecl;
  readonly init: Expr;
  readonly cond: Expr;
  readonly step: Expr;
  readonly range: LoopCtx;
}

/**
 * `for (v = c0; v < c1 [&& e]; v += s)` (or downwards), over an induction variable of any width and
 * sign declared (and initialised to `c0`) with the region: entered in the middle, the loop starts
 * from the value the variable has, which only moves towards `c1`. Unsigned downward loops keep `c1`
 * well above zero, so the variable cannot wrap past it.
 */
function loopHeader(g: GenContext, locals: VarDecl[], maxTrip = g.policy.limits.maxLoopTrip): Header {
  const { rng, b } = g;
  const t = rng.pick(g.intTypes);
  const trip = 1 + Math.floor((maxTrip - 1) * rng.float() ** 2);
  const s = rng.chance(0.7) ? 1 : rng.int(2, 4);
  const up = rng.chance(0.65);
  const span = BigInt(trip * s);
  let c0 = BigInt(rng.int(-10, 10));
  if (t.signed === false || up === false) c0 = BigInt(rng.int(0, 10)) + (up ? 0n : span + BigInt(16 * s));
  c0 = clampTo(c0, t);
  const c1 = up ? c0 + span : c0 - span;
  const v = b.local(g.name('l_'), t, b.lit(c0, t));
  locals.push(v);
  const headerBound = b.bin(up ? '<' : '>', b.v(v), b.lit(c1, t));
  // Now and then an exit on a value the program computes as well (an unknown trip count).
  let cond = headerBound;
  if (rng.chance(0.3)) {
    g.complexity = rng.int(1, 3);
    cond = b.bin('&&', headerBound, genInt(g, g.intType()));
  }
  return {
    decl: v,
    init: b.assign(b.v(v), b.lit(c0, t)),
    cond,
    step: b.assign(b.v(v), b.lit(s, t), up ? '+=' : '-='),
    range: { induction: b.v(v), decl: v, lo: Number(up ? c0 : c1), hi: Number(up ? c1 : c0) },
  };
}

/** Up to `count` statements whose locals are declared in `locals` (a block that labels enter). */
function sharedStmts(
  g: GenContext,
  locals: VarDecl[],
  opts: BlockOptions,
  count: number,
  first?: (opts: BlockOptions) => Stmt,
): Stmt[] {
  const ctx: BlockCtx = { locals, stmts: [], pendingLabels: [], inLoop: opts.inLoop, depth: g.fn.blocks.length };
  inSpine(g, ctx, () => {
    if (first) ctx.stmts.push(first(opts));
    drawStatements(g, ctx, opts, count);
    placePendingLabels(g, ctx);
  });
  return ctx.stmts;
}

/**
 * A switch maze: `switch (e) { case a: …  default: …  { … case b: … }  for (…) { … case c: … }
 * if (x) { case d: … } … }` with fall-through between arms, `default` at any position, and case
 * labels inside nested blocks, ifs and loops (Duff's device), often inside a loop whose induction
 * variable is (part of) the controlling value, so several arms run. A loop entered at a case
 * label keeps its variable's value and still ends (see the module comment).
 */
export function switchMaze(g: GenContext, opts: BlockOptions): Stmt {
  const { rng, b, policy } = g;
  const locals: VarDecl[] = [];
  const header = rng.chance(0.6) ? loopHeader(g, locals) : undefined;
  const arms = rng.int(3, Math.max(3, policy.limits.regionBlocks));
  const values = distinctSmall(g, arms);
  const dflt = rng.int(0, arms);
  const small = () => rng.int(1, Math.max(1, Math.ceil(policy.limits.maxBlockSize / 2)));
  if (header) {
    g.fn.loops.push(header.range);
    g.readOnly.add(header.decl.id);
  }
  const inSwitch: BlockOptions = { ...opts, inSwitch: true, inLoop: opts.inLoop || !!header, functionBody: false };
  const labelsFor = (k: number): Stmt[] => (k === dflt ? [b.case(), b.case(values[k])] : [b.case(values[k])]);
  const body: Stmt[] = [];
  for (let k = 0; k < arms; k++) {
    const shape =
      k === 0
        ? 'plain'
        : rng.weighted([
            ['plain', 3],
            ['block', 1],
            ['loop', 1.5],
            ['if', 1],
          ] as const);
    if (shape === 'plain') {
      body.push(...labelsFor(k), ...sharedStmts(g, locals, inSwitch, small()));
      // Half the arms fall through into the next.
      if (rng.chance(0.5)) body.push(b.brk());
      continue;
    }
    const inner = (o: BlockOptions): Stmt[] => [
      ...sharedStmts(g, locals, o, small()),
      ...labelsFor(k),
      ...sharedStmts(g, locals, o, small()),
    ];
    if (shape === 'block') body.push(b.block(inner(inSwitch)));
    else if (shape === 'if') {
      g.complexity = rng.int(1, 3);
      body.push(b.if(genInt(g, g.intType()), b.block(inner(inSwitch))));
    } else {
      const w = loopHeader(g, locals);
      g.fn.loops.push(w.range);
      g.readOnly.add(w.decl.id);
      const loopOpts: BlockOptions = { ...opts, inLoop: true, inSwitch: false, functionBody: false, noContinue: true };
      const stmts = inner(loopOpts);
      g.fn.loops.pop();
      body.push(b.for(w.init, w.cond, w.step, b.block(stmts), rng.pick(['for', 'while', 'do'] as const)));
    }
  }
  if (dflt === arms) body.push(b.case(), ...sharedStmts(g, locals, inSwitch, small()));
  let ctrl: Expr;
  g.complexity = rng.int(1, 4);
  if (header && rng.chance(0.7)) {
    const v = b.v(header.decl);
    ctrl = rng.chance(0.5) ? v : b.bin(rng.pick(['&', '^', '%'] as const), v, b.lit(rng.int(3, 11), g.types.int));
  } else ctrl = holdsCases(g, genInt(g, caseType(g)));
  let s: Stmt = b.switch(ctrl, b.block(body));
  if (header) {
    g.fn.loops.pop();
    s = b.for(header.init, header.cond, header.step, b.block([s]));
  }
  return b.block([s], locals);
}

/** A nest of induction-variable loops drawn on purpose (the entry region's). */
interface IvNest {
  /** Loops in the nest, this one included (1: no loop drawn inside on purpose). */
  readonly depth?: number;
  /** Largest trip count of each (`limits.maxLoopTrip` unless given). */
  readonly maxTrip?: number;
  // A nest keeps its computed exits (`if (e) break;`) under `noJumps`, which only bars the
  // unconditional jumps its statements might draw.
}

/**
 * A loop over several induction variables: `for (i = c0, j = d0, s = s0; i < c1 [&& i < outer]
 * [&& e]; i += s, j -= t [, s += 1])`. `i` bounds the loop; `j` moves by its own stride and `s`,
 * the stride of `i`, may grow each iteration (a second-order recurrence). Inside another loop, the
 * bound may also be the outer induction variable (triangular nests). All three are read-only to
 * the body, which often leaves early on a value it computes (`if (e) break;`).
 */
export function ivLoop(g: GenContext, opts: BlockOptions, nest: IvNest = {}): Stmt {
  const { rng, b, policy } = g;
  const locals: VarDecl[] = [];
  const pickT = (): IntType => rng.pick(g.intTypes);
  const ti = pickT();
  const up = rng.chance(0.7);
  const maxTrip = nest.maxTrip ?? policy.limits.maxLoopTrip;
  const trip = 1 + Math.floor((maxTrip - 1) * rng.float() ** 2);
  const s0 = BigInt(rng.int(1, 3));
  const growing = rng.chance(0.35);
  // The furthest `i` can move: the trip count times the largest stride it reaches.
  const reach = BigInt(trip) * (s0 + (growing ? BigInt(trip) : 0n));
  let c0 = BigInt(rng.int(-10, 10));
  if (ti.signed === false || !up) c0 = BigInt(rng.int(0, 10)) + (up ? 0n : reach + 64n);
  c0 = clampTo(c0, ti);
  // The bound at c0 ± reach, unless that leaves the type: then as far as the type allows.
  let c1 = up ? c0 + reach : c0 - reach;
  if (c1 > intMax(ti) - 64n) c1 = intMax(ti) - 64n;
  if (c1 < intMin(ti) + 64n) c1 = intMin(ti) + 64n;
  const i = b.local(g.name('l_'), ti, b.lit(c0, ti));
  const tj = pickT();
  const j0 = clampTo(BigInt(rng.int(-10, 10)), tj);
  const j = b.local(g.name('l_'), tj, b.lit(j0, tj));
  const ts = pickT();
  const st = b.local(g.name('l_'), ts, b.lit(s0, ts));
  locals.push(i, j, st);
  const tStep = BigInt(rng.int(1, 3));
  let cond = b.bin(up ? '<' : '>', b.v(i), b.lit(c1, ti));
  const outer = g.fn.loops[g.fn.loops.length - 1];
  if (outer?.induction.kind === 'var' && rng.chance(0.5))
    cond = b.bin('&&', cond, b.bin(up ? '<' : '>', b.v(i), { ...outer.induction, id: b.id() }));
  if (rng.chance(0.25)) {
    g.complexity = rng.int(1, 3);
    cond = b.bin('&&', cond, genInt(g, g.intType()));
  }
  // With comma expressions (features.comma) all three move in the header; without, `j` and `s`
  // move at the end of the body (their declarations initialise them each time the loop starts).
  const comma = policy.features.comma;
  const moveJ = b.assign(b.v(j), b.lit(tStep, tj), '-=');
  const growS = growing ? b.incdec('++', b.v(st), rng.chance(0.5)) : undefined;
  const init = comma
    ? b.comma(
        b.comma(b.assign(b.v(i), b.lit(c0, ti)), b.assign(b.v(j), b.lit(j0, tj))),
        b.assign(b.v(st), b.lit(s0, ts)),
      )
    : b.assign(b.v(i), b.lit(c0, ti));
  let step: Expr = b.assign(b.v(i), b.v(st), up ? '+=' : '-=');
  if (comma) {
    step = b.comma(step, moveJ);
    if (growS) step = b.comma(step, growS);
  }
  for (const d of locals) g.readOnly.add(d.id);
  g.fn.loops.push({ induction: b.v(i), decl: i, lo: Number(up ? c0 : c1), hi: Number(up ? c1 : c0) });
  const inner: BlockOptions = { ...opts, inLoop: true, inSwitch: false, functionBody: false, noContinue: false };
  const depth = nest.depth ?? 1;
  const first = depth > 1 ? (o: BlockOptions) => ivLoop(g, o, { maxTrip, depth: depth - 1 }) : undefined;
  const body = sharedStmts(g, locals, inner, rng.int(1, Math.max(1, policy.limits.maxBlockSize)), first);
  g.fn.loops.pop();
  // An exit on a value the body computed.
  let stmts = comma ? body : [...body, b.stmt(moveJ), ...(growS ? [b.stmt(growS)] : [])];
  if ((!opts.noJumps || nest.depth !== undefined) && rng.chance(0.5)) {
    g.complexity = rng.int(1, 4);
    stmts = [...stmts, b.if(genInt(g, g.intType()), b.block([b.brk()]))];
  }
  for (const d of locals) g.readOnly.delete(d.id);
  const loop = b.for(init, cond, step, b.block(stmts));
  return b.block([loop], locals);
}
