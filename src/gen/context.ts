import { bitInt, typesOf, type CTypes, type IntType } from '../c/types.js';
import { IRBuilder, type FuncSig } from '../ir/build.js';
import type { Expr, FuncDecl, LabelStmt, Stmt, VarDecl } from '../ir/nodes.js';
import type { RecordT, Type, VectorT } from '../ir/types.js';
import type { Rng } from '../random/rng.js';
import type { Policy } from './policy.js';

/** YARPGen's operator contexts (§3.3): each restricts a region to one family of operators. */
export type OperatorContext =
  | 'additive'
  | 'bitwise'
  | 'logical'
  | 'multiplicative'
  | 'bitwise-shift'
  | 'additive-multiplicative';

/** A function of the program being generated. Only complete functions may be called (so no recursion can arise). */
export interface FuncInfo {
  readonly sig: FuncSig & { readonly name: string };
  decl: FuncDecl | undefined;
  complete: boolean;
}

/** A block under construction: its locals and the statements generated so far. */
export interface BlockCtx {
  readonly locals: VarDecl[];
  readonly stmts: Stmt[];
  /** Labels not yet placed: each goes somewhere after statement index `after`. */
  readonly pendingLabels: { label: LabelStmt; after: number }[];
  /** Whether this block is (directly or transitively) inside a loop of the current function. */
  readonly inLoop: boolean;
  readonly depth: number;
}

/** An enclosing loop whose induction variable array indices may use. */
export interface LoopCtx {
  readonly induction: Expr;
  readonly decl: VarDecl | undefined;
  /** The values the induction variable ranges over, when known from the header. */
  readonly lo: number;
  readonly hi: number;
}

/** A function under construction. */
export interface FnCtx {
  readonly info: FuncInfo;
  readonly params: readonly VarDecl[];
  readonly blocks: BlockCtx[];
  readonly loops: LoopCtx[];
}

/** All the state of one program's generation; one instance per program, nothing global. */
export class GenContext {
  /**
   * The id source; live-guided extension points it at the repaired program's builder, so ids stay unique across
   * generation and repair.
   */
  b: IRBuilder;
  readonly records: RecordT[] = [];
  readonly globals: VarDecl[] = [];
  readonly funcs: FuncInfo[] = [];
  /** Stack of functions under construction (a call may start a new function mid-expression). */
  readonly fnStack: FnCtx[] = [];
  /** Integer types enabled by the policy (exact-width spellings). */
  readonly intTypes: readonly IntType[];
  /** The arithmetic types of the policy's target model: every type the program declares comes from here. */
  readonly types: CTypes;
  /** The same types spelled classically (char, short, …, long long). */
  readonly classicTypes: readonly IntType[];
  private names = new Map<string, number>();
  /** Operators left in the expression being generated. */
  complexity = 0;
  /** Statements generated so far (bounded by `limits.maxStatements`). */
  statements = 0;
  /** Variables that must not be written (induction variables of array loops). */
  readonly readOnly = new Set<number>();
  /** Operator context of the subtree being generated (YARPGen): operators are drawn from it only. */
  opContext: OperatorContext | undefined;
  /** Constant policy of the subtree being generated: every leaf constant, or about half. */
  constMode: 'all' | 'half' | undefined;
  /** Recent side-effect-free operations and loads, for reuse (CSE, GVN and LICM targets). */
  readonly cseBuffer: { readonly operation: Expr[]; readonly load: Expr[] } = { operation: [], load: [] };
  /** Invariant expressions of the loops being generated, innermost last, with the function they belong to. */
  readonly invariants: { readonly fn: FnCtx; readonly expr: Expr }[] = [];
  /** Generating a loop's invariant expressions: no user calls, comma or embedded assignments. */
  pure = false;
  /** Recent constants, for reuse with their negation or complement. */
  readonly constBuffer: bigint[] = [];
  /** The union member last stored (in generation order) per union object path: a heuristic for reads. */
  readonly unionMembers = new Map<string, number>();
  /** Inside an array loop: a raised chance of indexing with its induction variable. */
  loopIndexBias: number | undefined;
  /**
   * Statements the program may have: `limits.maxStatements`, lowered while the raw program of live-guided generation is
   * drawn.
   */
  statementBudget: number;
  /** No new globals (live-guided extension: the checksum harness in `main` already hashes every global there is). */
  globalsFrozen = false;
  /**
   * Blocks below this depth of the function under construction are not goto targets (extension leaves enclosing blocks
   * as they are).
   */
  gotoFloor = 0;
  /**
   * While extending code that ran: how often the code being generated will run (`runs`, from the
   * profile, times the trip counts of the loops entered since) and the steps it may still add
   * (`steps`, less what each statement, loop iteration and call drawn so far will cost), so a
   * loop's trip count can be drawn as long as the step budget allows (see `forLoop`). `costs`:
   * steps per call of the program's functions (measured, or estimated for those never entered),
   * so a call to an existing function is drawn only where its cost, times `runs`, fits the steps
   * (see `callFunction`).
   */
  live: { runs: number; steps: number; readonly costs?: ReadonlyMap<number, number> } | undefined;

  constructor(
    readonly rng: Rng,
    readonly policy: Policy,
  ) {
    this.b = new IRBuilder();
    const C = (this.types = typesOf(policy.target));
    this.statementBudget = policy.limits.maxStatements;
    const all = [C.int8, C.uint8, C.int16, C.uint16, C.int32, C.uint32, C.int64, C.uint64];
    this.intTypes = policy.features.math64 ? all : all.filter((t) => t.bits <= 32);
    const classic = [C.char, C.schar, C.uchar, C.short, C.ushort, C.int, C.uint, C.long, C.ulong, C.llong, C.ullong];
    this.classicTypes = policy.features.math64 ? classic : classic.filter((t) => t.bits <= 32);
  }

  /** A fresh name with a prefix: g_1, l_2, p_3, func_4, lbl_5, S0, U1 (one counter per prefix). */
  name(prefix: string): string {
    const n = (this.names.get(prefix) ?? 0) + 1;
    this.names.set(prefix, n);
    return prefix.endsWith('_') ? `${prefix}${n}` : `${prefix}${n - 1}`;
  }

  /** The function under construction. */
  get fn(): FnCtx {
    const f = this.fnStack[this.fnStack.length - 1];
    if (!f) throw new Error('no function under construction');
    return f;
  }

  /** The innermost block under construction. */
  get block(): BlockCtx {
    const blocks = this.fn.blocks;
    const b = blocks[blocks.length - 1];
    if (!b) throw new Error('no block under construction');
    return b;
  }

  /**
   * Whether this program draws `_BitInt` and `__int128` types ({@link enableWideTypes}); both
   * off leaves the program drawing exactly what it drew before these types existed.
   */
  wide = { bitInt: false, int128: false };

  /** The vector types of a program that uses vectors (src/gen/gnu-vector.ts), else undefined. */
  vectorTypes: readonly VectorT[] | undefined;

  /**
   * Decides, from a stream of its own (so the program's other draws are untouched), whether this
   * program uses `_BitInt` and `__int128` (csmith mode, the x86_64 model only: gcc has `_BitInt`
   * on few targets, `__int128` needs a 64-bit one).
   */
  enableWideTypes(rng: Rng): void {
    const f = this.policy.features;
    const ch = this.policy.choices;
    if (this.policy.target !== 'x86_64') return;
    const bitInt = rng.chance(ch.bitIntPrograms);
    const int128 = rng.chance(ch.int128Programs);
    this.wide = {
      bitInt: f.bitInt && bitInt && this.policy.limits.maxBitIntWidth >= 1 && ch.bitIntShare > 0,
      int128: f.int128 && int128 && f.math64 && ch.int128Share > 0,
    };
  }

  /** A random enabled integer type (sometimes spelled classically: same semantics, other front-end paths). */
  intType(): IntType {
    const rng = this.rng;
    if (this.wide.bitInt && rng.chance(this.policy.choices.bitIntShare)) return this.bitIntType();
    if (this.wide.int128 && rng.chance(this.policy.choices.int128Share))
      return rng.chance(0.5) ? this.types.int128 : this.types.uint128;
    return rng.pick(rng.chance(this.policy.choices.classicTypeNames) ? this.classicTypes : this.intTypes);
  }

  /** A `_BitInt(N)` type: a width class by its weight, then a width in it (log-uniform above 128). */
  bitIntType(): IntType {
    const rng = this.rng;
    const w = this.policy.choices.bitIntWidths;
    const max = Math.min(this.policy.limits.maxBitIntWidth, this.policy.features.math64 ? Infinity : 32);
    const classes: [number, number, number][] = [
      [1, 8, w.upTo8],
      [9, 64, w.upTo64],
      [65, 128, w.upTo128],
      [129, max, w.wider],
    ];
    const open = classes.filter(([lo, , weight]) => lo <= max && weight > 0);
    if (!open.length) return this.types.int;
    const [lo, hiClass] = rng.weighted(open.map((c) => [c, c[2]] as const));
    const hi = Math.min(hiClass, max);
    const signed = hi >= 2 && rng.chance(0.5);
    const from = signed ? Math.max(2, lo) : lo;
    const bits =
      lo > 128
        ? Math.min(hi, Math.round(Math.exp(rng.float() * (Math.log(hi + 1) - Math.log(from)) + Math.log(from))))
        : rng.int(from, hi);
    return bitInt(Math.max(from, bits), signed);
  }

  /** Whether another global may be created. */
  canAddGlobal(): boolean {
    return !this.globalsFrozen && this.globals.length < this.policy.limits.maxGlobals;
  }

  /** Records a new global (kept in creation order, so initialisers only refer to earlier globals). */
  addGlobal(d: VarDecl): VarDecl {
    this.globals.push(d);
    return d;
  }

  /** Whether a type may be used given the enabled features. */
  typeAllowed(t: Type): boolean {
    const f = this.policy.features;
    switch (t.kind) {
      case 'int':
        return f.math64 || t.bits <= 32;
      case 'ptr':
        return f.pointers && this.typeAllowed(t.to);
      case 'array':
        return f.arrays && this.typeAllowed(t.of);
      case 'struct':
        return f.structs;
      case 'union':
        return f.unions;
      default:
        return true;
    }
  }
}
