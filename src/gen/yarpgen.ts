import type { IntType } from '../c/types.js';
import type { Block, Expr, FuncDecl, Program, Stmt, VarDecl } from '../ir/nodes.js';
import { arrayOf, qualify, unqualified, VOID, type Type, type VectorT } from '../ir/types.js';
import { Rng } from '../random/rng.js';
import { GenContext, type BlockCtx } from './context.js';
import { declarable, genInt } from './expr.js';
import type { Policy } from './policy.js';
import { drawSafeMathForm, programPolicy } from './shuffle.js';
import { enableVectors, genVector, maybeVectorType, vectorInitialiser } from './gnu-vector.js';
import { constant } from './types.js';
import { slpGroup } from './vector.js';

/**
 * The `yarpgen` mode (YARPGen v1, Livinskii et al. §3; digest A1–A4): loop-free scalar test
 * functions over global variables in three roles — *inputs* (only read; some `const`), *mixed*
 * (read and written) and *outputs* (only written) — an `init` function giving the globals their
 * values, and a driver `main` that calls `init`, every test function, and hashes the outputs and
 * mixed globals. Test functions are assignments, new locals and `if`/`else`, with expressions
 * drawn by the shared expression generator under YARPGen's policies (operator contexts, constant
 * policies, the CSE buffer, parameter shuffling, swarm) and Kiln's SLP groups. With
 * `features.vectors` (Kiln's addition; YARPGen has none) globals of every role may be GNU vectors:
 * `init` gives each lane its value, test functions assign whole vectors computed by element-wise
 * operators and builtins and read and write lanes as scalars, and `main` hashes every lane.
 *
 * The emitter (src/emit/files.ts) prints these programs as separate translation units, so the
 * values `init` gives are invisible to the code of the test functions. As in every mode, the
 * raw program may have UB: the repair loop executes it and rewrites each offending site.
 */

/** Name of the function giving every global its value (printed into `init.c`). */
export const YARPGEN_INIT = 'init';
/** Prefix of test function names (`test_1`, `test_2`, …; printed into `func.c`). */
export const YARPGEN_TEST_PREFIX = 'test_';

/** Most test functions in one program (YARPGen v1 makes 5 by default). */
const MAX_TESTS = 5;
/** Deepest nesting of `if` statements (YARPGen v1's default `if` depth). */
const MAX_IF_DEPTH = 3;
/** Array lengths, as YARPGen v1's (2–10 elements). */
const MIN_ARRAY = 2;
const MAX_ARRAY = 10;

/**
 * The policy of the mode: the base policy with every feature YARPGen's subset lacks switched off
 * (pointers, records, loops, goto, side effects inside expressions, volatile, calls of user
 * functions). Operator weights, constant policies, contexts, CSE, shuffling and swarm carry over.
 */
function yarpgenPolicy(base: Policy): Policy {
  return {
    ...base,
    features: {
      ...base.features,
      pointers: false,
      structs: false,
      unions: false,
      bitfields: false,
      packedStructs: false,
      volatile: false,
      goto: false,
      comma: false,
      embeddedAssign: false,
      incDec: false,
      compoundAssign: false,
      loops: false,
    },
    choices: { ...base.choices, userCall: 0 },
  };
}

/** The roles of a program's globals. */
interface Globals {
  readonly inputs: VarDecl[];
  readonly mixed: VarDecl[];
  readonly outputs: VarDecl[];
}

/** Draws a raw (not yet repaired) program of the `yarpgen` mode for `seed`. */
export function generateYarpgenRaw(seed: number | bigint | string, basePolicy: Policy): Program {
  const rng = Rng.seeded(`yarpgen:${String(seed)}`);
  // Per-program distributions (shuffling) and switched-off features (swarm), within the subset.
  const shaped = programPolicy(yarpgenPolicy(basePolicy), rng);
  const lim = shaped.limits;
  const count = (): number =>
    rng.int(Math.max(1, lim.minGlobals), Math.max(1, lim.minGlobals, Math.min(lim.maxGlobals, lim.minGlobals * 2)));
  const nInputs = count();
  const nMixed = count();
  const nOutputs = Math.max(1, Math.ceil(count() / 2));
  // Expressions read inputs and mixed globals only; `maxGlobals` stops them creating more, so a
  // variable an expression wants but cannot find becomes a new local.
  const policy: Policy = { ...shaped, limits: { ...lim, maxGlobals: nInputs + nMixed } };
  const g = new GenContext(rng, policy);
  // From a stream of its own, as in csmith mode: programs without vectors draw what they did.
  enableVectors(g, Rng.seeded(`yarpgen:${String(seed)}:vectors`));
  const gl: Globals = { inputs: [], mixed: [], outputs: [] };
  for (let i = 0; i < nInputs; i++) gl.inputs.push(g.addGlobal(newGlobal(g, 'in_', true)));
  for (let i = 0; i < nMixed; i++) gl.mixed.push(g.addGlobal(newGlobal(g, 'var_', false)));
  for (let i = 0; i < nOutputs; i++) gl.outputs.push(newGlobal(g, 'out_', false));

  const init = initFunction(g, gl);
  const nTests = rng.int(1, Math.max(1, Math.min(MAX_TESTS, lim.maxFuncs)));
  const tests: FuncDecl[] = [];
  for (let i = 1; i <= nTests; i++) tests.push(testFunction(g, `${YARPGEN_TEST_PREFIX}${i}`, gl));
  const main = driverMain(g, init, tests, gl);
  const safeMath = drawSafeMathForm(rng, policy);
  return g.b.program({
    records: [],
    globals: [...gl.inputs, ...gl.mixed, ...gl.outputs],
    funcs: [init, ...tests, main],
    main,
    meta: { seed: String(seed), mode: 'yarpgen', safeMath },
  });
}

/**
 * A global of a random integer type, sometimes an array; inputs are sometimes `const` (given their value where
 * defined).
 */
function newGlobal(g: GenContext, prefix: string, input: boolean): VarDecl {
  const { rng, policy, b } = g;
  const vector = maybeVectorType(g);
  if (vector) {
    const name = g.name(prefix);
    if (input && policy.features.const && rng.chance(policy.choices.constShare))
      return b.global(name, qualify(vector, { const: true }), vectorInitialiser(g, vector), false);
    return b.global(name, vector, undefined, false);
  }
  let t: Type = g.intType();
  if (policy.features.arrays && rng.chance(policy.choices.arrayShare))
    t = arrayOf(t, rng.int(MIN_ARRAY, Math.max(MIN_ARRAY, Math.min(MAX_ARRAY, policy.limits.maxArrayLen))));
  const name = g.name(prefix);
  if (input && policy.features.const && rng.chance(policy.choices.constShare)) {
    // A const array is an array of const elements (C prints the qualifier on the element type).
    if (t.kind === 'array') {
      const elem = t.of as IntType;
      return b.global(
        name,
        arrayOf(qualify(elem, { const: true }), t.length),
        b.list(Array.from({ length: t.length }, () => constant(g, elem))),
        false,
      );
    }
    return b.global(name, qualify(t, { const: true }), constant(g, t as IntType), false);
  }
  return b.global(name, t, undefined, false);
}

/** Whether a global is a const input (a const scalar or an array of const elements). */
export function isConstGlobal(d: VarDecl): boolean {
  return !!d.type.const || (d.type.kind === 'array' && !!d.type.of.const);
}

/** Every scalar object inside a global: the variable, or each element of an array or lane of a vector. */
function leaves(g: GenContext, d: VarDecl): Expr[] {
  const { b } = g;
  if (d.type.kind === 'array') return Array.from({ length: d.type.length }, (_, i) => b.idx(b.v(d), b.lit(i)));
  if (d.type.kind === 'vector') return Array.from({ length: d.type.lanes }, (_, i) => b.idx(b.v(d), b.lit(i)));
  return [b.v(d)];
}

/** `void init(void)`: a constant into every non-const global (const inputs are initialised where defined). */
function initFunction(g: GenContext, gl: Globals): FuncDecl {
  const { b } = g;
  const stmts: Stmt[] = [];
  for (const d of [...gl.inputs, ...gl.mixed, ...gl.outputs]) {
    if (isConstGlobal(d)) continue;
    for (const lv of leaves(g, d)) {
      const t = unqualified(lv.type);
      // Floating lanes (vectors with features.floats) start as floating scalars do.
      const value = t.kind === 'float' ? b.lit(g.rng.int(-100, 100), t) : constant(g, t as IntType);
      stmts.push(b.stmt(b.assign(lv, value)));
    }
  }
  return b.func(YARPGEN_INIT, VOID, [], b.block(stmts), undefined, false);
}

/** `void test_N(void)`: a block of assignments, new locals and if/else (no loops, calls or jumps). */
function testFunction(g: GenContext, name: string, gl: Globals): FuncDecl {
  const { b } = g;
  const id = b.id();
  g.fnStack.push({
    info: { sig: { id, name, ret: VOID, params: [] }, decl: undefined, complete: false },
    params: [],
    blocks: [],
    loops: [],
  });
  const lim = g.policy.limits;
  const max = Math.max(1, lim.maxBlockSize);
  // The top-level block is the function's bulk: YARPGen's scopes hold 5–10 statements.
  const body = testBlock(g, gl, g.rng.int(max, 3 * max));
  g.fnStack.pop();
  return b.func(name, VOID, [], body, id, false);
}

/** A block of `n` statements (nested blocks draw their own size). */
function testBlock(g: GenContext, gl: Globals, n: number): Block {
  const fn = g.fn;
  const ctx: BlockCtx = { locals: [], stmts: [], pendingLabels: [], inLoop: false, depth: fn.blocks.length };
  fn.blocks.push(ctx);
  for (let i = 0; i < n; i++) {
    const s = testStatement(g, gl, ctx);
    if (s) ctx.stmts.push(s);
  }
  fn.blocks.pop();
  return g.b.block(ctx.stmts, ctx.locals);
}

/** Starts a fresh operator budget for one full expression. */
function budget(g: GenContext): void {
  g.complexity = g.rng.int(1, Math.max(1, g.policy.limits.maxExprComplexity));
}

/**
 * One statement, YARPGen's three kinds: a new local initialised from an expression, an
 * assignment to an output, mixed global or local, or an `if` with one or two blocks. The
 * weights come from the (shuffled) statement weights: `assign` for assignments and half of it
 * for new locals, `if` for if statements. With the SLP policy an assignment may instead be a
 * group of them (see `slpGroup`), added to the block directly.
 */
function testStatement(g: GenContext, gl: Globals, block: BlockCtx): Stmt | undefined {
  const { rng, policy, b } = g;
  const w = policy.statements;
  const ifDepth = Math.min(MAX_IF_DEPTH, Math.max(0, policy.limits.maxBlockDepth - 1));
  const kind = rng.weighted<'decl' | 'assign' | 'if'>([
    ['decl', block.locals.length < policy.limits.maxLocalsPerBlock ? w.assign / 2 : 0],
    ['assign', w.assign],
    ['if', g.fn.blocks.length <= ifDepth ? w.if : 0],
  ]);
  switch (kind) {
    case 'decl': {
      const t = g.intType();
      budget(g);
      const init = genInt(g, t);
      // Pushed after its initialiser is drawn: locals are initialised in order at block entry,
      // so an initialiser reads only earlier locals.
      block.locals.push(b.local(g.name('l_'), t, init));
      return undefined;
    }
    case 'assign': {
      // A whole vector, in programs with vectors (no draw in the others).
      if (g.vectorTypes && rng.chance(policy.choices.vectorStatements)) {
        const targets = [...gl.outputs, ...gl.mixed].filter((d) => d.type.kind === 'vector');
        if (targets.length) {
          const d = rng.pick(targets);
          budget(g);
          return b.stmt(b.assign(b.v(d), genVector(g, unqualified(d.type) as VectorT)));
        }
      }
      // The chance is drawn only with the policy on, so programs without it are what they were.
      if (policy.policies.slpGroups > 0 && rng.chance(policy.policies.slpGroups)) {
        const arrays = [...gl.outputs, ...gl.mixed].filter((d) => d.type.kind === 'array');
        if (arrays.length) {
          block.stmts.push(...slpGroup(g, rng.pick(arrays), [...gl.inputs, ...gl.mixed]));
          return undefined;
        }
      }
      const target = assignTarget(g, gl);
      if (!target) return undefined;
      budget(g);
      return b.stmt(b.assign(target, genInt(g, declarable(g, unqualified(target.type) as IntType))));
    }
    case 'if': {
      budget(g);
      const cond = genInt(g, g.intType());
      const inner = (): Block => testBlock(g, gl, rng.int(1, Math.max(1, policy.limits.maxBlockSize)));
      const then = inner();
      return b.if(cond, then, rng.chance(0.5) ? inner() : undefined);
    }
  }
}

/** An object to assign: an output, a mixed global or a local of an open block (array elements by constant index). */
function assignTarget(g: GenContext, gl: Globals): Expr | undefined {
  const { rng, b } = g;
  const locals = g.fn.blocks.flatMap((x) => x.locals).filter((d) => d.type.kind === 'int');
  const w = g.policy.scopes;
  const from = rng.weighted<'output' | 'mixed' | 'local'>([
    ['output', w.global],
    ['mixed', gl.mixed.length ? w.global : 0],
    ['local', locals.length ? w.local : 0],
  ]);
  const d = rng.pick(from === 'output' ? gl.outputs : from === 'mixed' ? gl.mixed : locals);
  if (d.type.kind === 'array') return b.idx(b.v(d), b.lit(rng.int(0, d.type.length - 1)));
  if (d.type.kind === 'vector') return b.idx(b.v(d), b.lit(rng.int(0, d.type.lanes - 1)));
  return b.v(d);
}

/** `int main(void)`: init, every test, then the checksum over every output and mixed scalar. */
function driverMain(g: GenContext, init: FuncDecl, tests: readonly FuncDecl[], gl: Globals): FuncDecl {
  const { b } = g;
  const stmts: Stmt[] = [b.stmt(b.call(init, [])), ...tests.map((t) => b.stmt(b.call(t, [])))];
  for (const d of [...gl.mixed, ...gl.outputs]) for (const lv of leaves(g, d)) stmts.push(b.hash(lv));
  return b.func('main', g.types.int, [], b.block(stmts), undefined, false);
}
