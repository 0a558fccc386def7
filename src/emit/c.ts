import { hashWidth, isBitfieldType, isInt128, promote, toUnsigned, typeName, type IntType } from '../c/types.js';
import {
  checkTarget,
  isExpr,
  type Block,
  type Expr,
  type FuncDecl,
  type Init,
  type Program,
  type Stmt,
  type VarDecl,
} from '../ir/nodes.js';
import { unqualified, type RecordT } from '../ir/types.js';
import { loopContinues, walk, walkProgram } from '../ir/visit.js';
import { HASH_PRIME, HASH_SEED } from '../interp/runtime.js';
import { attributePrefix, factsPrelude } from './facts.js';
import { baseSpelling, declare, safeName } from './names.js';
import { safeDefinition, safeKey, type SafeUse } from './safe-math.js';
import { printVec, printVecBinary, vectorTypedefs } from './vector.js';

/** Options of the C printer. */
export interface EmitOptions {
  /** The expected output line, recorded in the file's first comment. */
  readonly expected?: string;
  /** Extra lines for the header comment (seed, generator options). */
  readonly header?: readonly string[];
  /**
   * Prefix for every file-scope identifier (globals, functions, record tags, runtime helpers),
   * and the entry function is named `<prefix>main` and returns the checksum line's status:
   * lets several programs share one translation unit (used by tests to amortise compiler start-up).
   */
  readonly prefix?: string;
  /**
   * Compact layout for reduced test cases: braces on the statement's line, one-statement blocks
   * on one line, callees before callers (no prototypes), no blank lines.
   */
  readonly compact?: boolean;
}

const INDENT = '    ';

/**
 * Prints an IR program as one standalone C11 file using only <stdint.h> and <stdio.h>. The file
 * prints exactly one line, `checksum = %016llX`, computed by the same hash the interpreter uses.
 */
export function emitC(p: Program, opts: EmitOptions = {}): string {
  if (opts.compact) return emitCompact(p, opts);
  const px = opts.prefix ?? '';
  const names = nameTable(p, px);
  const crc = `${px}kiln_crc`;
  const hashFn = `${px}kiln_hash`;
  const out: string[] = [];
  if (opts.expected !== undefined) out.push(`/* kiln: expected "${opts.expected}" */`);
  const header = [...(opts.header ?? []), ...(p.meta.notes ?? [])];
  if (header.length) out.push(`/*\n${header.map((h) => ` * ${h}`).join('\n')}\n */`);
  out.push('#include <stdint.h>', '#include <stdio.h>', '');
  out.push(...factsPrelude(p));
  out.push(...vectorTypedefs(p, px));
  out.push(...p.records.map((r) => recordDefinition(r, px)), '');
  out.push(`static uint64_t ${crc} = 0x${HASH_SEED.toString(16).toUpperCase()}ULL;`);
  out.push(
    `static void ${hashFn}(uint64_t v)`,
    '{',
    `${INDENT}${crc} = (${crc} ^ v) * 0x${HASH_PRIME.toString(16).toUpperCase()}ULL;`,
    `${INDENT}${crc} ^= ${crc} >> 29;`,
    '}',
    '',
  );
  out.push(...wideHashes(p).map((t) => wideHashDefinition(t, px)));
  const safes = safeUses(p);
  if (safes.length) {
    out.push(...safes.map((u) => safeDefinition(u, p.meta.safeMath ?? 'function', px)), '');
  }
  for (const g of p.globals)
    out.push(
      `${storage(g)}${declare(g.type, names.vars.get(g.id)!, px)}${g.init ? ` = ${printInit(g.init, names)}` : ''};`,
    );
  out.push('');
  const main = p.funcs.find((f) => f.id === p.main);
  for (const f of p.funcs) if (f.id !== p.main) out.push(`${signature(f, names)};`);
  out.push('');
  for (const f of p.funcs) {
    if (f.id === p.main) continue;
    out.push(`${signature(f, names)}`, printBlock(f.body, names, 0), '');
  }
  if (main) {
    const body = printBlock(main.body, names, 0).split('\n');
    body.splice(
      body.length - 1,
      0,
      `${INDENT}printf("checksum = %016llX\\n", (unsigned long long)${crc});`,
      `${INDENT}return 0;`,
    );
    out.push(`${px ? 'static ' : ''}int ${px}main(void)`, body.join('\n'), '');
  }
  return out.join('\n');
}

/** The compact layout (see `EmitOptions.compact`). */
function emitCompact(p: Program, opts: EmitOptions): string {
  const names = nameTable(p, '');
  const out: string[] = [];
  if (opts.expected !== undefined) out.push(`/* kiln: expected "${opts.expected}" */`);
  for (const h of opts.header ?? []) out.push(`/* ${h} */`);
  out.push('#include <stdint.h>', '#include <stdio.h>');
  out.push(...factsPrelude(p).filter((l) => l !== ''));
  out.push(...vectorTypedefs(p, ''));
  // One line per record, except that a packed struct's #pragma lines must stay lines of their own.
  for (const r of p.records)
    out.push(
      ...recordDefinition(r, '')
        .split(/\n(?=#)|(?<=^#.*)\n/m)
        .map((part) => part.replace(/\n\s*/g, ' ')),
    );
  out.push(`static uint64_t kiln_crc = 0x${HASH_SEED.toString(16).toUpperCase()}ULL;`);
  out.push(
    `static void kiln_hash(uint64_t v) { kiln_crc = (kiln_crc ^ v) * ` +
      `0x${HASH_PRIME.toString(16).toUpperCase()}ULL; kiln_crc ^= kiln_crc >> 29; }`,
  );
  out.push(...wideHashes(p).map((t) => wideHashDefinition(t, '').replace(/\n\s*/g, ' ').trim()));
  for (const u of safeUses(p)) out.push(safeDefinition(u, p.meta.safeMath ?? 'function').replace(/\n\s*/g, ' '));
  for (const g of p.globals)
    out.push(
      `${storage(g)}${declare(g.type, names.vars.get(g.id)!)}${g.init ? ` = ${printInit(g.init, names)}` : ''};`,
    );
  const ordered = calleesFirst(p);
  if (!ordered) for (const f of p.funcs) if (f.id !== p.main) out.push(`${signature(f, names)};`);
  for (const f of ordered ?? p.funcs) {
    if (f.id === p.main) continue;
    out.push(...compactBlock(f.body, names, 0, signature(f, names)));
  }
  const main = p.funcs.find((f) => f.id === p.main);
  if (main) {
    const body = compactBlock(main.body, names, 0, 'int main(void)', true);
    body.splice(
      body.length - 1,
      0,
      `${INDENT}printf("checksum = %016llX\\n", (unsigned long long)kiln_crc);`,
      `${INDENT}return 0;`,
    );
    out.push(...body);
  }
  return `${out.join('\n')}\n`;
}

/** Functions ordered so that every callee precedes its callers, or undefined if that is impossible. */
function calleesFirst(p: Program): FuncDecl[] | undefined {
  const byId = new Map(p.funcs.map((f) => [f.id, f]));
  const done = new Set<number>();
  const visiting = new Set<number>();
  const out: FuncDecl[] = [];
  let cyclic = false;
  const visit = (f: FuncDecl): void => {
    if (done.has(f.id)) return;
    if (visiting.has(f.id)) {
      cyclic = true;
      return;
    }
    visiting.add(f.id);
    walk(f.body, (n) => {
      if (n.kind === 'call') {
        const callee = byId.get(n.func);
        if (callee) visit(callee);
      }
    });
    visiting.delete(f.id);
    done.add(f.id);
    out.push(f);
  };
  p.funcs.forEach(visit);
  return cyclic ? undefined : out;
}

/** A block in the compact layout: `head {` … `}`, or `head { stmt }` for one simple statement. */
function compactBlock(b: Block, n: Names, depth: number, head: string, multiline = false): string[] {
  const pad = INDENT.repeat(depth);
  const inner = INDENT.repeat(depth + 1);
  const single =
    !multiline && b.locals.length === 0 && b.stmts.length <= 1 && (b.stmts.length === 0 || simple(b.stmts[0]!));
  if (single)
    return [
      `${pad}${head}${head ? ' ' : ''}` +
        `{${b.stmts.length ? ` ${compactStmt(b.stmts[0]!, n, 0)[0]!.trim()} ` : ' '}}`,
    ];
  const lines = [`${pad}${head}${head ? ' ' : ''}{`];
  for (const d of b.locals)
    lines.push(
      `${inner}${d.isRegister ? 'register ' : ''}${declare(d.type, d.name)}` +
        `${d.init ? ` = ${printInit(d.init, n)}` : ''};`,
    );
  for (const st of b.stmts) lines.push(...compactStmt(st, n, depth + 1));
  lines.push(`${pad}}`);
  return lines;
}

function simple(s: Stmt): boolean {
  return (
    s.kind === 'expr' ||
    s.kind === 'return' ||
    s.kind === 'break' ||
    s.kind === 'continue' ||
    s.kind === 'goto' ||
    s.kind === 'igoto' ||
    s.kind === 'hash' ||
    s.kind === 'check' ||
    s.kind === 'unreachable' ||
    s.kind === 'assume'
  );
}

function compactStmt(s: Stmt, n: Names, depth: number): string[] {
  const part = (e: Expr | undefined): string => (e ? stripParens(printExpr(e, n)) : '');
  switch (s.kind) {
    case 'block':
      return compactBlock(s, n, depth, '');
    case 'if': {
      const lines = compactBlock(s.then, n, depth, `if (${ifCondition(s, n)})`);
      if (!s.else || (s.else.stmts.length === 0 && s.else.locals.length === 0)) return lines;
      const els = compactBlock(s.else, n, depth, 'else');
      lines[lines.length - 1] = `${lines[lines.length - 1]} ${els[0]!.trim()}`;
      return [...lines, ...els.slice(1)];
    }
    case 'for':
      if (!s.form || s.form === 'for' || !s.cond || loopContinues(s.body)) {
        if (s.form === 'do' && loopContinues(s.body))
          throw new Error(`do loop ${s.id} contains continue: cannot print it exactly`);
        return compactBlock(
          s.body,
          n,
          depth,
          `for (${s.init ? printEffect(s.init, n) : ''}; ${part(s.cond)}; ${s.step ? printEffect(s.step, n) : ''})`,
        );
      }
      break;
    case 'switch':
      break;
    default:
      return printStmt(s, n, depth).split('\n');
  }
  // while/do loops and switches: the regular layout is already compact enough.
  return printStmt(s, n, depth).split('\n');
}

function storage(d: VarDecl): string {
  return d.isStatic ? 'static ' : '';
}

function signature(f: FuncDecl, n: Names): string {
  const params = f.params.length ? f.params.map((p) => declare(p.type, p.name, n.prefix)).join(', ') : 'void';
  return (
    `${attributePrefix(f.attributes)}${f.isStatic ? 'static ' : ''}${f.isInline ? 'inline ' : ''}` +
    `${declare(f.ret, `${n.funcs.get(f.id)!}(${params})`, n.prefix)}`
  );
}

function recordDefinition(r: RecordT, prefix: string): string {
  const fields = r.fields.map((f) => {
    if (f.bits !== undefined) {
      const bp = f.type.kind === 'int' && f.type.bitPrecise;
      const base = bp ? typeName(f.type as IntType) : f.type.kind === 'int' && f.type.signed ? 'signed' : 'unsigned';
      return (
        `${INDENT}${f.type.const ? 'const ' : ''}${f.type.volatile ? 'volatile ' : ''}${base}` +
        `${f.bits === 0 ? '' : ` ${f.name}`} : ${f.bits};`
      );
    }
    return `${INDENT}${declare(f.type, f.name, prefix)};`;
  });
  const body = `${r.kind} ${prefix}${r.name} {\n${fields.join('\n')}\n};`;
  if (r.kind === 'struct' && r.packed) return `#pragma pack(push, 1)\n${body}\n#pragma pack(pop)`;
  return body;
}

/** Declaration id → printed name, label id → printed name, indirect goto id → its table's name. */
interface Names {
  readonly vars: ReadonlyMap<number, string>;
  readonly labels: ReadonlyMap<number, string>;
  readonly funcs: ReadonlyMap<number, string>;
  readonly tables?: ReadonlyMap<number, string>;
  readonly prefix: string;
}

/** The C names of a program's variables, labels and functions (globals and functions prefixed). */
export function nameTable(p: Program, prefix: string): Names {
  const vars = new Map<number, string>();
  const labels = new Map<number, string>();
  const funcs = new Map<number, string>();
  const igotos: number[] = [];
  for (const f of p.funcs) funcs.set(f.id, prefix + f.name);
  for (const g of p.globals) vars.set(g.id, prefix + g.name);
  // Locals and labels are declared in statements: expressions and initialisers need no visit.
  for (const f of p.funcs) {
    walk(f, (n) => {
      if (n.kind === 'var-decl') {
        if (n.storage !== 'global') vars.set(n.id, n.name);
        return false;
      }
      if (n.kind === 'label') labels.set(n.id, n.name);
      else if (n.kind === 'igoto') igotos.push(n.id);
      return !isExpr(n);
    });
  }
  // A table is declared in a block of its own around its goto, so its name must only differ from
  // every identifier its index expression could name: no variable or function of the program has it.
  const tables = new Map<number, string>();
  if (igotos.length) {
    const taken = new Set([...vars.values(), ...funcs.values(), ...labels.values()]);
    for (const id of igotos) {
      let name = `tbl_${id}`;
      while (taken.has(name)) name += '_';
      tables.set(id, name);
    }
  }
  return { vars, labels, funcs, tables, prefix };
}

/** The name of the checksum helper of a type wider than 64 bits (its promoted type, when a bit-field). */
function wideHashName(t: IntType): string {
  const p = toUnsigned(promote(t));
  return `kiln_hash_${p.bitPrecise ? 'b' : 'i'}${p.bits}`;
}

/** The unsigned types wider than 64 bits whose values a program hashes, in first-use order. */
function wideHashes(p: Program): IntType[] {
  const seen = new Map<string, IntType>();
  walkProgram(p, (n) => {
    if (n.kind === 'init-list') return false;
    if (n.kind !== 'hash' || n.value.type.kind !== 'int' || hashWidth(n.value.type) <= 64) return;
    const name = wideHashName(n.value.type);
    if (!seen.has(name)) seen.set(name, toUnsigned(promote(n.value.type)));
  });
  return [...seen.values()];
}

/** A helper hashing a wide value in 64-bit pieces, lowest first (as the interpreter's `hash` statement). */
function wideHashDefinition(t: IntType, px: string): string {
  const lines = [`static void ${px}${wideHashName(t)}(${baseSpelling(t)} v)`, '{'];
  for (let k = 0; k < t.bits; k += 64) lines.push(`${INDENT}${px}kiln_hash((uint64_t)${k ? `(v >> ${k})` : 'v'});`);
  lines.push('}', '');
  return lines.join('\n');
}

/** The safe-math wrappers a program uses, in first-use order. */
export function safeUses(p: Program): SafeUse[] {
  const seen = new Map<string, SafeUse>();
  walkProgram(p, (n) => {
    // Initialiser lists hold only constants and addresses (see gen/types.ts `initialiser`).
    if (n.kind === 'init-list') return false;
    if (n.kind !== 'safe') return;
    const u = safeUseOf(n);
    const k = safeKey(u);
    if (!seen.has(k)) seen.set(k, u);
  });
  return [...seen.values()];
}

function safeUseOf(e: Expr & { kind: 'safe' }): SafeUse {
  const t = e.type as IntType;
  if ((e.op === '<<' || e.op === '>>') && e.right) {
    return { op: e.op, type: t, count: promote(unqualified(e.right.type) as IntType) };
  }
  return { op: e.op, type: t };
}

/** Prints an integer or floating constant with a literal whose C type is the constant's promoted type. */
export function printConst(e: Expr & { kind: 'const' }): string {
  const t = e.type;
  if (t.kind === 'float') {
    const v = Number(e.value);
    const lit = floatLiteral(Math.abs(v), t.bits);
    return v < 0 || Object.is(v, -0) ? `(-${lit})` : lit;
  }
  const pt = promote(t);
  const v = e.value as bigint;
  if (pt.bitPrecise || isInt128(pt)) return wideConst(v, pt);
  // By rank, not width: on ILP32 a 32-bit `long` constant needs its `L` to have type long.
  const suffix =
    pt.rank === 5 ? (pt.signed ? 'LL' : 'ULL') : pt.rank === 4 ? (pt.signed ? 'L' : 'UL') : pt.signed ? '' : 'U';
  if (v >= 0n) return `${v}${suffix}`;
  const min = -(1n << BigInt(pt.bits - 1));
  if (v === min) return `(-${-(v + 1n)}${suffix} - 1${suffix})`;
  return `(-${-v}${suffix})`;
}

/**
 * A constant of a type without literals of its own (`__int128`; `_BitInt(N)`, whose `wb` suffix
 * only C23 compilers read): a cast of an ordinary literal when the value fits `long long` or
 * `unsigned long long`, else the unsigned type's 64-bit pieces shifted into place and or-ed,
 * then cast (conversion to a signed type reduces modulo 2^N in gcc and clang).
 */
function wideConst(v: bigint, t: IntType): string {
  const T = baseSpelling(t);
  if (v >= -(1n << 63n) && v < 1n << 63n) {
    if (v >= 0n) return `((${T})${v}LL)`;
    if (v === -(1n << 63n)) return `((${T})(-${(1n << 63n) - 1n}LL - 1LL))`;
    return `((${T})(-${-v}LL))`;
  }
  if (v >= 0n && v < 1n << 64n) return `((${T})${v}ULL)`;
  const U = baseSpelling(toUnsigned(t));
  const u = BigInt.asUintN(t.bits, v);
  const parts: string[] = [];
  for (let k = 0n; k < BigInt(t.bits); k += 64n) {
    const piece = BigInt.asUintN(64, u >> k);
    if (piece === 0n) continue;
    const hex = `0x${piece.toString(16).toUpperCase()}ULL`;
    parts.unshift(k === 0n ? `(${U})${hex}` : `((${U})${hex} << ${k})`);
  }
  return `((${T})(${parts.join(' | ')}))`;
}

/**
 * An exact literal for a non-negative float or double value: integers below 2^53 in decimal
 * (`12.0`, `12.0f`), anything else as a hexadecimal floating constant, which C reads back
 * without rounding (`0x1.8p-1`). A `float` value is representable, so its `f` literal is exact.
 */
function floatLiteral(v: number, bits: 32 | 64): string {
  const suffix = bits === 32 ? 'f' : '';
  if (Number.isInteger(v) && v < 2 ** 53) return `${v}.0${suffix}`;
  if (!Number.isFinite(v)) throw new Error(`cannot print the floating constant ${v}`);
  // v = m * 2^e with m an integer below 2^53: print m in hex, then scale.
  let e = 0;
  let m = v;
  while (!Number.isInteger(m)) {
    m *= 2;
    e--;
  }
  // Dividing an even integer by 2 is exact: the shortest mantissa, the same value.
  while (m >= 2 ** 53 || (m > 0 && m % 2 === 0)) {
    m /= 2;
    e++;
  }
  return `0x${m.toString(16)}p${e}${suffix}`;
}

/** Prints an expression, fully parenthesised. */
export function printExpr(e: Expr, n: Names): string {
  switch (e.kind) {
    case 'const':
      return printConst(e);
    case 'null':
      return '(void*)0';
    case 'var':
      return n.vars.get(e.decl) ?? `v_${e.decl}`;
    case 'index':
      return `${printExpr(e.base, n)}[${printExpr(e.index, n)}]`;
    case 'field': {
      const rec = e.base.type as RecordT;
      const fname = rec.fields[e.field]!.name;
      const text =
        e.base.kind === 'deref' ? `${printPointer(e.base.ptr, n)}->${fname}` : `${printExpr(e.base, n)}.${fname}`;
      // A bit-field of type _BitInt(N) converts to _BitInt(N) (C23 6.3.1.1p2, gcc); clang
      // promotes narrow ones to int. The cast makes every compiler compute as the interpreter.
      return e.type.kind === 'int' && e.type.declBits ? `((${baseSpelling(e.type)})${text})` : text;
    }
    case 'deref':
      return `(*${printPointer(e.ptr, n)})`;
    case 'addr':
      return `(&${printLvalue(e.target, n)})`;
    case 'unary':
      return `(${e.op}${printExpr(e.operand, n)})`;
    case 'binary':
      if (e.type.kind === 'vector') return printVecBinary(e, (x) => printExpr(x, n), n.prefix);
      return `(${printExpr(e.left, n)} ${e.op} ${printExpr(e.right, n)})`;
    case 'cond':
      return `(${printExpr(e.cond, n)} ? ${printExpr(e.then, n)} : ${printExpr(e.else, n)})`;
    case 'cast':
      return `((${declare(e.type, '', n.prefix)})${printExpr(e.operand, n)})`;
    case 'call':
      return `${n.funcs.get(e.func) ?? `func_${e.func}`}(${e.args.map((a) => printExpr(a, n)).join(', ')})`;
    case 'assign':
      return declBitsCast(e.target.type, `(${printLvalue(e.target, n)} ${e.op} ${printExpr(e.value, n)})`, n);
    case 'incdec': {
      if (e.prefix) return declBitsCast(e.target.type, `(${e.op}${printLvalue(e.target, n)})`, n);
      const s = declBitsCast(e.target.type, `(${printLvalue(e.target, n)}${e.op})`, n);
      // Compilers disagree on the type of `x++` and `x--` when x is an unsigned bit-field narrower
      // than int: gcc gives it the bit-field's type, which promotes to int, as the interpreter
      // does (src/c/types.ts, bitfieldType); clang, tcc and pcc give it unsigned int, so
      // `(s.f0++) < -1` is 0 with gcc and 1 with them. (Prefix forms, assignments, reads, `?:`
      // and `,` agree.) The cast to the promoted type makes every compiler read it as the
      // interpreter does. As a statement of its own the value is unused and the cast is left out.
      return isNarrowUnsignedBitfield(e.type) ? `((${declare(promote(e.type as IntType), '', n.prefix)})${s})` : s;
    }
    case 'comma':
      return `(${printExpr(e.left, n)} , ${printExpr(e.right, n)})`;
    case 'safe': {
      const u = safeUseOf(e);
      const args = e.right ? `${printExpr(e.left, n)}, ${printExpr(e.right, n)}` : printExpr(e.left, n);
      return `${safeName(u.op, u.type, u.count, n.prefix)}(${args})`;
    }
    case 'vec':
      return printVec(e, (x) => printExpr(x, n), n.prefix);
  }
}

/**
 * A pointer operand of `*` or `->`. The null pointer prints as `(void*)0`, which cannot be
 * dereferenced in C, so a null in value position (possibly the right of a comma, or both arms of
 * `?:`) gets its IR type: repairs may leave `*NULL` in code the program never executes, and it
 * must still compile.
 */
function printPointer(e: Expr, n: Names): string {
  const s = printExpr(e, n);
  return voidNull(e) ? `((${declare(e.type, '', n.prefix)})${s})` : s;
}

function voidNull(e: Expr): boolean {
  switch (e.kind) {
    case 'null':
      return true;
    case 'comma':
      return voidNull(e.right);
    case 'cond':
      return voidNull(e.then) && voidNull(e.else);
    default:
      return false;
  }
}

/** An lvalue: as printExpr, without the cast of a bit-precise bit-field's value. */
function printLvalue(e: Expr, n: Names): string {
  if (e.kind !== 'field' || e.type.kind !== 'int' || !e.type.declBits) return printExpr(e, n);
  const fname = (e.base.type as RecordT).fields[e.field]!.name;
  return e.base.kind === 'deref' ? `${printPointer(e.base.ptr, n)}->${fname}` : `${printExpr(e.base, n)}.${fname}`;
}

/** The value of an assignment to a bit-precise bit-field, cast to its declared type (see the field read). */
function declBitsCast(t: Expr['type'], text: string, n: Names): string {
  return t.kind === 'int' && t.declBits ? `((${declare(promote(t), '', n.prefix)})${text})` : text;
}

/** Whether a type is an unsigned bit-field type narrower than int (see `printExpr`'s `x++`). */
function isNarrowUnsignedBitfield(t: Expr['type']): boolean {
  return t.kind === 'int' && !t.signed && isBitfieldType(t);
}

/**
 * A full expression whose value is discarded (an expression statement, a for loop's init or step), without outer
 * parentheses.
 */
function printEffect(e: Expr, n: Names): string {
  if (e.kind === 'incdec' && !e.prefix) return stripParens(`(${printLvalue(e.target, n)}${e.op})`);
  return stripParens(printExpr(e, n));
}

/** A full expression's text without the parentheses `printExpr` puts around the whole of it. */
export function stripParens(s: string): string {
  if (!s.startsWith('(') || !s.endsWith(')')) return s;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    if (depth === 0 && i < s.length - 1) return s;
  }
  return s.slice(1, -1);
}

export function printInit(i: Init, n: Names): string {
  if (i.kind === 'init-list') return `{${i.items.map((x) => printInit(x, n)).join(', ')}}`;
  if (i.kind === 'const' && i.type.kind === 'int') return initConstText(i);
  return stripParens(printExpr(i, n));
}

/**
 * The text of a constant in an initialiser list, memoised per type and value: array initialisers
 * repeat a few values (see gen/types.ts, `initialiser`), and their constants are most of a
 * program's nodes. Integers only: a float map key would not tell -0.0 from 0.0.
 */
function initConstText(e: Expr & { kind: 'const' }): string {
  let byValue = constTexts.get(e.type);
  if (!byValue) constTexts.set(e.type, (byValue = new Map()));
  const v = e.value as bigint;
  let text = byValue.get(v);
  if (text === undefined) byValue.set(v, (text = stripParens(printConst(e))));
  return text;
}
const constTexts = new WeakMap<Expr['type'], Map<bigint, string>>();

/** A block in the normal layout (locals, then statements), indented `depth` levels. */
export function printBlock(b: Block, n: Names, depth: number): string {
  const pad = INDENT.repeat(depth);
  const inner = INDENT.repeat(depth + 1);
  const lines: string[] = [`${pad}{`];
  for (const d of b.locals)
    lines.push(
      `${inner}${d.isRegister ? 'register ' : ''}${declare(d.type, d.name, n.prefix)}` +
        `${d.init ? ` = ${printInit(d.init, n)}` : ''};`,
    );
  for (const s of b.stmts) lines.push(printStmt(s, n, depth + 1));
  lines.push(`${pad}}`);
  return lines.join('\n');
}

function printStmt(s: Stmt, n: Names, depth: number): string {
  const pad = INDENT.repeat(depth);
  switch (s.kind) {
    case 'block':
      return printBlock(s, n, depth);
    case 'expr':
      return `${pad}${printEffect(s.expr, n)};`;
    case 'if': {
      const head = `${pad}if (${ifCondition(s, n)})\n${printBlock(s.then, n, depth)}`;
      return s.else ? `${head}\n${pad}else\n${printBlock(s.else, n, depth)}` : head;
    }
    case 'for': {
      const part = (e: Expr | undefined): string => (e ? stripParens(printExpr(e, n)) : '');
      const effect = (e: Expr | undefined): string => (e ? printEffect(e, n) : '');
      // `continue` in a while loop would skip the step appended to the body: print it as a for loop.
      // A do loop cannot be: its first iteration skips the test (generators never put continue in one).
      if (s.form === 'do' && loopContinues(s.body))
        throw new Error(`do loop ${s.id} contains continue: cannot print it exactly`);
      const form = s.form && s.cond && !loopContinues(s.body) ? s.form : 'for';
      if (form === 'for')
        return `${pad}for (${effect(s.init)}; ${part(s.cond)}; ${effect(s.step)})\n${printBlock(s.body, n, depth)}`;
      const body = s.step
        ? { ...s.body, stmts: [...s.body.stmts, { kind: 'expr', id: -1, expr: s.step } as Stmt] }
        : s.body;
      const init = s.init ? `${pad}${effect(s.init)};\n` : '';
      if (form === 'while') return `${init}${pad}while (${part(s.cond)})\n${printBlock(body, n, depth)}`;
      return `${init}${pad}do\n${printBlock(body, n, depth)}\n${pad}while (${part(s.cond)});`;
    }
    case 'switch': {
      const ct = promote(unqualified(s.cond.type) as IntType);
      const inner = INDENT.repeat(depth + 1);
      const lines = [`${pad}switch (${stripParens(printExpr(s.cond, n))})`, `${pad}{`];
      s.body.stmts.forEach((st, i) => {
        if (st.kind !== 'case') {
          lines.push(printStmt(st, n, depth + 1));
          return;
        }
        const label =
          st.value === undefined
            ? 'default:'
            : `case ${printConst({ kind: 'const', id: -1, type: ct, value: st.value })}:`;
        // A label must label a statement: the last one gets a null statement.
        lines.push(`${inner}${label}${i === s.body.stmts.length - 1 ? ' ;' : ''}`);
      });
      lines.push(`${pad}}`);
      return lines.join('\n');
    }
    case 'case':
      return `${pad}${s.value === undefined ? 'default' : `case ${s.value}`}: ;`;
    case 'return':
      return s.value ? `${pad}return ${stripParens(printExpr(s.value, n))};` : `${pad}return;`;
    case 'break':
      return `${pad}break;`;
    case 'continue':
      return `${pad}continue;`;
    case 'goto':
      return `${pad}goto ${n.labels.get(s.label) ?? `lbl_${s.label}`};`;
    case 'igoto': {
      // GNU labels as values, through a function-local table of the labels' addresses.
      const targets = s.labels.map((l) => `&&${n.labels.get(l) ?? `lbl_${l}`}`).join(', ');
      const table = n.tables?.get(s.id) ?? `tbl_${s.id}`;
      const index = stripParens(printExpr(s.index, n));
      return `${pad}{ static void *const ${table}[] = { ${targets} }; goto *${table}[${index}]; }`;
    }
    case 'label':
      return `${s.name}: ;`;
    case 'check': {
      const t = unqualified(s.value.type);
      if (t.kind !== 'int' && t.kind !== 'float') throw new Error(`check ${s.id}: value must be arithmetic`);
      const target = checkTarget(t, s.expected);
      const v = stripParens(printExpr(s.value, n));
      if (target === undefined) return `${pad}(void)(${v}); printf("@NG@\\n");`;
      const want = printConst({ kind: 'const', id: -1, type: t, value: target });
      return `${pad}if (${v} == ${want}) printf("@OK@\\n"); else printf("@NG@\\n");`;
    }
    case 'hash': {
      const t = s.value.type;
      const v = stripParens(printExpr(s.value, n));
      if (t.kind === 'int' && hashWidth(t) > 64) return `${pad}${n.prefix}${wideHashName(t)}(${v});`;
      return t.kind === 'float'
        ? `${pad}${n.prefix}kiln_hash((uint64_t)(int64_t)(${v}));`
        : `${pad}${n.prefix}kiln_hash((uint64_t)(${v}));`;
    }
    case 'unreachable':
      return `${pad}__builtin_unreachable();`;
    case 'assume':
      return `${pad}__builtin_assume(${stripParens(printExpr(s.cond, n))});`;
  }
}

/** An if's condition, wrapped in `__builtin_expect` when the statement carries a hint. */
function ifCondition(s: Stmt & { kind: 'if' }, n: Names): string {
  const c = stripParens(printExpr(s.cond, n));
  return s.expect === undefined ? c : `__builtin_expect(!!(${c}), ${s.expect})`;
}
