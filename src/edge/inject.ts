// Undefined behaviour on purpose (`kiln gen --ub KIND`), as UBfuzz injects it, but exact: a
// UB-free generated program gets one new statement, before a statement its profile shows executed,
// whose first execution is undefined in the chosen way. Its operands are fresh non-static globals
// (other translation units could read them, so no optimiser may assume their values or drop their
// stores), plus locals of a new block where the kind needs an object's lifetime. The interpreter
// then runs the result: its first report must be that node, of that kind; everything before it is
// the original program's UB-free path. Candidates that fail this are dropped and another site is
// tried, so a returned injection is proven, never assumed.
import { intMax, intMin, type IntType } from '../c/types.js';
import type { UBKind as InterpKind } from '../c/ub.js';
import { emitC, nameTable, printExpr, stripParens } from '../emit/c.js';
import type { Policy } from '../gen/policy.js';
import { IRBuilder } from '../ir/build.js';
import type { Block, Expr, Init, Program, Stmt, VarDecl } from '../ir/nodes.js';
import { arrayOf, pointerTo, type Type } from '../ir/types.js';
import { replaceNode, walk } from '../ir/visit.js';
import { interpret, type Profile } from '../interp/interpret.js';
import { Rng } from '../random/rng.js';
import { generateProgram } from '../repair/generate.js';

/** The kinds `kiln gen --ub` injects. */
export const INJECT_KINDS = [
  'signed-overflow',
  'shift',
  'division-by-zero',
  'out-of-bounds',
  'null-dereference',
  'dangling',
  'uninitialised-read',
  'unsequenced',
] as const;
/** A kind `kiln gen --ub` injects. */
export type InjectKind = (typeof INJECT_KINDS)[number];

/** The interpreter's kinds that count as each injected kind. */
const INTERP_KINDS: Record<InjectKind, readonly InterpKind[]> = {
  'signed-overflow': ['signed-overflow'],
  shift: ['shift-count-negative', 'shift-count-too-large', 'shift-negative-value', 'shift-overflow'],
  'division-by-zero': ['division-by-zero'],
  'out-of-bounds': ['out-of-bounds'],
  'null-dereference': ['null-dereference'],
  dangling: ['dangling-pointer-use', 'dangling-dereference'],
  'uninitialised-read': ['uninitialised-read'],
  unsequenced: ['unsequenced-access'],
};

/** A program with one UB on its executed path, and where it is. */
export interface Injection {
  readonly program: Program;
  readonly kind: InjectKind;
  /** What exactly was injected (`signed-overflow: +`, `out-of-bounds: write past the end`, …). */
  readonly variant: string;
  /** The node whose evaluation is undefined, as the interpreter reported it. */
  readonly site: number;
  readonly interpKind: InterpKind;
  /** The inserted statement that holds the site (a block for kinds that need a lifetime). */
  readonly stmt: number;
  /** The expression statement that holds the site (inside `stmt`). */
  readonly siteStmt: Stmt;
}

/** A statement to insert, the node expected to be undefined, and a description. */
interface Candidate {
  readonly stmt: Stmt;
  readonly siteStmt: Stmt;
  readonly site: number;
  readonly globals: readonly VarDecl[];
  readonly variant: string;
}

/** Integer types whose arithmetic is not promoted (so overflow and shift bounds are theirs). */
function wideTypes(b: IRBuilder): IntType[] {
  return [b.types.int, b.types.int32, b.types.int64, b.types.long];
}

function freshName(taken: Set<string>, stem: string): string {
  let i = 0;
  let name: string;
  do name = `${stem}_${taken.size + 900 + i++}`;
  while (taken.has(name));
  taken.add(name);
  return name;
}

/** Builds the candidate statement for one kind (a fresh one each call: the choices vary with `rng`). */
function candidate(kind: InjectKind, b: IRBuilder, rng: Rng, taken: Set<string>): Candidate {
  const globals: VarDecl[] = [];
  const global = (t: Type, init?: Init): VarDecl => {
    const g = b.global(freshName(taken, 'g'), t, init, false);
    globals.push(g);
    return g;
  };
  const lit = (v: bigint, t: IntType): Expr => b.lit(v, t);
  const t = rng.pick(wideTypes(b));
  const small = (): bigint => BigInt(rng.int(0, 9));
  const plain = (stmt: Stmt, site: number, variant: string): Candidate => ({
    stmt,
    siteStmt: stmt,
    site,
    globals,
    variant,
  });
  switch (kind) {
    case 'signed-overflow': {
      const op = rng.pick(['+', '-', '*'] as const);
      const k = small();
      const a = op === '+' ? intMax(t) - k : op === '-' ? intMin(t) + k : (intMax(t) >> 1n) + 1n + k;
      const c = op === '*' ? 2n + small() : k + 1n + small();
      const ga = global(t, lit(a, t));
      const gt = global(t, lit(0n, t));
      const e = b.bin(op, b.v(ga), lit(c, t));
      return plain(b.stmt(b.assign(b.v(gt), e)), e.id, `signed-overflow: ${op} on ${t.name}`);
    }
    case 'shift': {
      const sub = rng.pick(['count too large', 'negative count', 'negative value', 'result overflow'] as const);
      const bits = BigInt(t.bits);
      const [a, c] =
        sub === 'count too large'
          ? [1n + small(), bits + small()]
          : sub === 'negative count'
            ? [1n + small(), -1n - small()]
            : sub === 'negative value'
              ? [-1n - small(), 1n + (small() % 4n)]
              : [(intMax(t) >> 2n) + 1n + small(), 2n + (small() % 3n)];
      const ga = global(t, lit(a, t));
      const gc = global(b.types.int, lit(c, b.types.int));
      const gt = global(t, lit(0n, t));
      const e = b.bin(sub === 'negative count' && rng.chance(0.5) ? '>>' : '<<', b.v(ga), b.v(gc));
      return plain(b.stmt(b.assign(b.v(gt), e)), e.id, `shift: ${sub} (${t.name})`);
    }
    case 'division-by-zero': {
      const op = rng.pick(['/', '%'] as const);
      const ga = global(t, lit(1n + small() * 7n, t));
      const gz = global(t, lit(0n, t));
      const gt = global(t, lit(0n, t));
      const e = b.bin(op, b.v(ga), b.v(gz));
      return plain(b.stmt(b.assign(b.v(gt), e)), e.id, `division-by-zero: ${op} (${t.name})`);
    }
    case 'out-of-bounds': {
      const et = rng.pick([b.types.int32, b.types.int16, b.types.uint8, b.types.int64]);
      const n = rng.int(2, 8);
      const init = b.list(Array.from({ length: n }, (_, i) => lit(BigInt(i * 3 + 1), et)));
      const past = rng.chance(0.5);
      const gi = global(b.types.int, lit(past ? BigInt(n) : -1n, b.types.int));
      const write = rng.chance(0.5);
      const onStack = rng.chance(0.5);
      const gt = global(et, lit(5n, et));
      const arr = onStack ? b.local(freshName(taken, 'l'), arrayOf(et, n), init) : global(arrayOf(et, n), init);
      const access = b.idx(b.v(arr), b.v(gi));
      const s = b.stmt(write ? b.assign(access, b.v(gt)) : b.assign(b.v(gt), access));
      const variant =
        `out-of-bounds: ${write ? 'write' : 'read'} ${past ? 'past the end' : 'before the start'} of ` +
        `a ${onStack ? 'local' : 'global'} ${et.name}[${n}]`;
      if (!onStack) return plain(s, access.id, variant);
      return { stmt: b.block([s], [arr]), siteStmt: s, site: access.id, globals, variant };
    }
    case 'null-dereference': {
      const et = rng.pick([b.types.int32, b.types.int64, b.types.int16]);
      const pt = pointerTo(et);
      const gp = global(pt, b.nullptr(pt));
      const gt = global(et, lit(3n, et));
      const write = rng.chance(0.5);
      const d = b.deref(b.v(gp));
      const s = b.stmt(write ? b.assign(d, b.v(gt)) : b.assign(b.v(gt), d));
      return plain(s, d.id, `null-dereference: ${write ? 'write' : 'read'} through a null ${et.name} *`);
    }
    case 'dangling': {
      const et = rng.pick([b.types.int32, b.types.int64]);
      const pt = pointerTo(et);
      const gp = global(pt, b.nullptr(pt));
      const gt = global(et, lit(0n, et));
      const l = b.local(freshName(taken, 'l'), et, lit(7n + small(), et));
      const inner = b.block([b.stmt(b.assign(b.v(gp), b.addr(b.v(l))))], [l]);
      const write = rng.chance(0.5);
      // The first undefined evaluation is the load of the pointer itself: its value became
      // indeterminate when the local's lifetime ended (C11 6.2.4p2), before the dereference.
      const ptr = b.v(gp);
      const d = b.deref(ptr);
      const s = b.stmt(write ? b.assign(d, b.v(gt)) : b.assign(b.v(gt), d));
      return {
        stmt: b.block([inner, s]),
        siteStmt: s,
        site: ptr.id,
        globals,
        variant: `dangling: ${write ? 'write' : 'read'} through a pointer to a local whose block ended`,
      };
    }
    case 'uninitialised-read': {
      const et = rng.pick([b.types.int32, b.types.int64, b.types.int]);
      const u = b.local(freshName(taken, 'l'), et);
      const gt = global(et, lit(0n, et));
      const read = b.v(u);
      // The read decides a branch: that is where MemorySanitizer and valgrind report it.
      const s = b.if(b.bin('>', read, lit(small(), et)), b.block([b.stmt(b.assign(b.v(gt), lit(1n, et)))]));
      return {
        stmt: b.block([s], [u]),
        siteStmt: s,
        site: read.id,
        globals,
        variant: `uninitialised-read: a ${et.name} local read in a condition`,
      };
    }
    case 'unsequenced': {
      const ga = global(t, lit(small(), t));
      const gt = global(t, lit(0n, t));
      const e = b.bin('+', b.assign(b.v(ga), lit(1n + small(), t)), b.v(ga));
      return plain(
        b.stmt(b.assign(b.v(gt), e)),
        e.id,
        `unsequenced: a write and a read of one ${t.name} as operands of +`,
      );
    }
  }
}

/** Executed statements of user functions (not `main`, Kiln's checksum harness), in program order. */
function executedSites(p: Program, profile: Profile): { block: Block; index: number }[] {
  const out: { block: Block; index: number }[] = [];
  for (const f of p.funcs) {
    if (f.id === p.main) continue;
    walk(f, (n) => {
      if (n.kind !== 'block') return n.kind === 'func' || n.kind === 'if' || n.kind === 'for' || n.kind === 'switch';
      n.stmts.forEach((s, index) => {
        // Not before a label: a jump to it would skip the new statement.
        if (s.kind !== 'case' && s.kind !== 'label' && (profile.stmtCounts.get(s.id) ?? 0) > 0)
          out.push({ block: n, index });
      });
      return true;
    });
  }
  return out;
}

/**
 * Injects one UB of `kind` into a UB-free program whose run produced `profile`: up to `attempts`
 * sites are tried, in an order drawn from `rng`; the first whose interpreter run reports exactly
 * the new site, of the kind asked for, is returned. Undefined when no site works.
 */
function injectUB(p: Program, profile: Profile, kind: InjectKind, rng: Rng, attempts = 8): Injection | undefined {
  const sites = executedSites(p, profile);
  if (sites.length === 0) return undefined;
  const taken = new Set<string>(p.globals.map((g) => g.name));
  for (const f of p.funcs) {
    walk(f, (n) => {
      if (n.kind === 'var-decl') taken.add(n.name);
    });
  }
  for (let a = 0; a < attempts; a++) {
    const at = sites[rng.int(0, sites.length - 1)]!;
    const b = IRBuilder.continuing(p);
    const c = candidate(kind, b, rng, new Set(taken));
    const body = replaceNode(p, at.block.id, (old) => {
      const blk = old as Block;
      return { ...blk, stmts: [...blk.stmts.slice(0, at.index), c.stmt, ...blk.stmts.slice(at.index)] };
    });
    const q: Program = { ...body, globals: [...body.globals, ...c.globals], nextId: b.nextId };
    const r = interpret(q);
    if (r.ok || r.ub.node !== c.site || !INTERP_KINDS[kind].includes(r.ub.kind)) continue;
    return {
      program: q,
      kind,
      variant: c.variant,
      site: c.site,
      interpKind: r.ub.kind,
      stmt: c.stmt.id,
      siteStmt: c.siteStmt,
    };
  }
  return undefined;
}

/** Where a sanitizer reports an injected UB in the emitted C text. */
export interface SiteLocation {
  readonly line: number;
  readonly column: number;
}

/** The statement's own first line, as `printExpr` prints its expression (or condition). */
function statementText(s: Stmt, p: Program): string {
  const names = nameTable(p, '');
  if (s.kind === 'expr') return `${stripParens(printExpr(s.expr, names))};`;
  if (s.kind === 'if') return `if (${stripParens(printExpr(s.cond, names))})`;
  throw new Error(`siteLocation: unexpected statement ${s.kind}`);
}

/**
 * The line and column of the injected site in `text` (the program emitted by `emitC`): the line
 * of the statement that holds it, and the column sanitizers give: the operator for arithmetic and
 * unsequenced accesses, the start of the accessed expression for memory kinds.
 */
export function siteLocation(text: string, inj: Injection): SiteLocation {
  const stmtText = statementText(inj.siteStmt, inj.program);
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.trim() === stmtText || l.trim().startsWith(stmtText));
  if (i < 0) throw new Error(`siteLocation: statement not found: ${stmtText}`);
  const line = lines[i]!;
  const names = nameTable(inj.program, '');
  let site: Expr | undefined;
  walk(inj.siteStmt, (n) => {
    if (n.id === inj.site) site = n as Expr;
  });
  // Where clang's sanitizers point: an arithmetic operator; a store's `=`; a load's operand
  // (inside the parentheses Kiln prints around `*p`).
  const access =
    inj.kind === 'dangling' || inj.kind === 'null-dereference' || inj.kind === 'out-of-bounds'
      ? accessOf(inj)
      : undefined;
  const siteText = printExpr(access?.expr ?? site!, names);
  const start = line.indexOf(siteText);
  let column = start + 1;
  if (site!.kind === 'binary') {
    const left = printExpr(site!.left, names);
    column = line.indexOf(` ${site!.op} `, start + left.length - 1) + 2;
  } else if (access?.store) {
    column = line.indexOf(' = ', start + siteText.length - 1) + 2;
  } else if (siteText.startsWith('(*')) {
    column = start + 2;
  }
  return { line: i + 1, column };
}

/** The memory access (`*p`, `a[i]`) that holds a memory kind's site, and whether it is stored to. */
function accessOf(inj: Injection): { expr: Expr; store: boolean } | undefined {
  const s = inj.siteStmt;
  if (s.kind !== 'expr' || s.expr.kind !== 'assign') return undefined;
  const contains = (e: Expr): boolean => {
    let found = false;
    walk(e, (n) => {
      if (n.id === inj.site) found = true;
    });
    return found;
  };
  const a = s.expr;
  if (contains(a.target) && (a.target.kind === 'deref' || a.target.kind === 'index'))
    return { expr: a.target, store: true };
  if (contains(a.value) && (a.value.kind === 'deref' || a.value.kind === 'index'))
    return { expr: a.value, store: false };
  return undefined;
}

/** A generated program with one UB on purpose, emitted, with the site's location in its text. */
export interface UBProgram {
  readonly ok: true;
  readonly seed: string;
  readonly text: string;
  readonly injection: Injection;
  readonly location: SiteLocation;
  readonly genMs: number;
}

/** Why no UB program came from a seed (its program was discarded, or no site took the UB). */
export interface NoUBProgram {
  readonly ok: false;
  readonly seed: string;
  readonly reason: string;
}

/**
 * `kiln gen --ub KIND`: the seed's UB-free csmith-mode program, with one UB of `kind` injected
 * (sites drawn from a stream forked off the seed and the kind, so the same seed and kind give the
 * same program byte for byte), emitted as C. Its first line names the UB and where it is.
 */
export function generateUBProgram(
  seed: bigint,
  policy: Policy,
  kind: InjectKind,
  header: readonly string[] = [],
): UBProgram | NoUBProgram {
  const t0 = performance.now();
  const g = generateProgram(seed, policy, 'csmith');
  if (!g.ok) return { ok: false, seed: String(seed), reason: `the UB-free program was discarded: ${g.reason}` };
  const inj = injectUB(g.program, g.profile, kind, Rng.seeded(`${seed}:ub:${kind}`));
  if (!inj) return { ok: false, seed: String(seed), reason: `no executed site of this program takes a ${kind} UB` };
  // The location is found in the final text; the header only names the kind and variant, so its
  // length does not depend on the location.
  const body = emitC(inj.program, {
    header: [...header, `Undefined behaviour on purpose: ${inj.variant}; nothing undefined happens before it.`],
  });
  const location = siteLocation(body, inj);
  const first = `/* kiln: undefined behaviour "${kind}" at line ${location.line + 1}, column ${location.column} */`;
  const text = `${first}\n${body}`;
  return {
    ok: true,
    seed: String(seed),
    text,
    injection: inj,
    location: { line: location.line + 1, column: location.column },
    genMs: performance.now() - t0,
  };
}
