import type { Expr, FuncDecl, Node, Program } from './nodes.js';
import { isExpr } from './nodes.js';
import { isCompare } from '../c/ops.js';
import type { IntType } from '../c/types.js';
import { isRecord, pointerDepth, type Type } from './types.js';
import { isPunUnion } from './vector.js';
import { walk, walkProgram } from './visit.js';

/** Operations that could hit arithmetic UB, and how many of them are wrapped in safe-math calls. */
export interface WrappedShare {
  /** Safe-math wrappers. */
  readonly wrapped: number;
  /**
   * Arithmetic operations of the kinds a wrapper can guard (+ − * / % << >>, unary −, their compound forms, ++/--),
   * wrapped or raw.
   */
  readonly operations: number;
}

/**
 * Counts the operations Csmith would wrap and how many Kiln wrapped. Csmith wraps every one of
 * them; Kiln wraps only the sites that kept hitting UB at run time.
 */
export function wrappedShare(p: Program): WrappedShare {
  let wrapped = 0;
  let operations = 0;
  walkProgram(p, (n) => {
    switch (n.kind) {
      case 'safe':
        wrapped++;
        operations++;
        break;
      case 'binary':
        if (
          n.op === '+' ||
          n.op === '-' ||
          n.op === '*' ||
          n.op === '/' ||
          n.op === '%' ||
          n.op === '<<' ||
          n.op === '>>'
        )
          operations++;
        break;
      case 'unary':
        if (n.op === '-') operations++;
        break;
      case 'assign':
        if (n.op !== '=' && n.op !== '&=' && n.op !== '|=' && n.op !== '^=') operations++;
        break;
      case 'incdec':
        operations++;
        break;
    }
  });
  return { wrapped, operations };
}

/**
 * C99's 47 operators, by meaning (C11 6.5): the unit of Csmith's "41 of 47 operators" count.
 * Unary and binary uses of `& * + -` count separately, as do prefix and postfix `++ --`.
 */
// biome-ignore format: data table
export const C99_OPERATORS = [
  '[]', '()', '.', '->', 'x++', 'x--', '++x', '--x',
  'unary &', 'unary *', 'unary +', 'unary -', '~', '!', 'sizeof', 'cast',
  '*', '/', '%', '+', '-', '<<', '>>', '<', '>', '<=', '>=', '==', '!=', '&', '^', '|', '&&', '||',
  '?:', '=', '*=', '/=', '%=', '+=', '-=', '<<=', '>>=', '&=', '^=', '|=', ',',
] as const;

/** C99's keywords (C11 6.4.1 without the C11 additions). */
// biome-ignore format: data table
export const C99_KEYWORDS = [
  'auto', 'break', 'case', 'char', 'const', 'continue', 'default', 'do', 'double', 'else', 'enum', 'extern', 'float',
  'for', 'goto', 'if', 'inline', 'int', 'long', 'register', 'restrict', 'return', 'short', 'signed', 'sizeof',
  'static', 'struct', 'switch', 'typedef', 'union', 'unsigned', 'void', 'volatile', 'while', '_Bool', '_Complex', '_Imaginary',
] as const;

/** The C99 operators an expression node uses. */
function operatorsOf(e: Expr, out: Set<string>): void {
  switch (e.kind) {
    case 'index':
      out.add('[]');
      break;
    case 'call':
      out.add('()');
      break;
    case 'field':
      out.add(e.base.kind === 'deref' ? '->' : '.');
      break;
    case 'deref':
      out.add('unary *');
      break;
    case 'addr':
      out.add('unary &');
      break;
    case 'unary':
      out.add(e.op === '-' || e.op === '+' ? `unary ${e.op}` : e.op);
      break;
    case 'binary':
      out.add(e.op);
      break;
    case 'cond':
      out.add('?:');
      break;
    case 'cast':
      out.add('cast');
      break;
    case 'assign':
      out.add(e.op);
      break;
    case 'incdec':
      out.add(e.prefix ? `${e.op}x` : `x${e.op}`);
      break;
    case 'comma':
      out.add(',');
      break;
    case 'safe':
      // A wrapper call stands for its operator (Csmith's safe-math functions count so too).
      out.add('()');
      out.add(e.op === 'neg' ? 'unary -' : e.op);
      break;
    default:
      break;
  }
}

/** The C99 keywords a C text uses (comments and string literals excluded). */
export function keywordsIn(text: string): Set<string> {
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/[^\n]*/g, ' ')
    .replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const words = new Set(code.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  return new Set(C99_KEYWORDS.filter((k) => words.has(k)));
}

/** Feature names the census reports, with a description (shown by `kiln stats`). */
export const FEATURES = {
  'type:int8': '8-bit integers',
  'type:int16': '16-bit integers',
  'type:int32': '32-bit integers',
  'type:int64': '64-bit integers',
  'type:classic-names': 'classic spellings (char, short, long, …)',
  'type:int128': '__int128 and unsigned __int128',
  'type:bitint': 'bit-precise types _BitInt(N) and unsigned _BitInt(N)',
  'bitint:1-8': '_BitInt widths 1 to 8',
  'bitint:9-64': '_BitInt widths 9 to 64',
  'bitint:65-128': '_BitInt widths 65 to 128',
  'bitint:wider': '_BitInt widths above 128',
  'bitfield:bitint': 'bit-fields of _BitInt type',
  'op:bitint-arith': 'arithmetic computed in a _BitInt type (never promoted)',
  'type:vector': 'GNU vector types (vector_size)',
  'vector:float': 'GNU vectors of float or double lanes (with features.floats)',
  'vector:in-record': 'vectors as struct or union members',
  'vector:array': 'arrays of vectors',
  'vector:param': 'vector parameters or return values',
  'op:vector-arith': 'element-wise vector arithmetic, bitwise operators and shifts',
  'op:vector-broadcast': 'a vector operator with a scalar operand',
  'op:vector-compare': 'vector comparisons (lane masks)',
  'op:vector-lane': 'vector lane subscripts v[i]',
  'op:vector-cast': 'casts between vector types (the bytes reinterpreted)',
  'op:vector-assign': 'whole-vector assignment',
  'vector:shufflevector': '__builtin_shufflevector',
  'vector:convertvector': '__builtin_convertvector',
  'vector:shuffle': "GCC's __builtin_shuffle",
  'vector:pun-union': 'unions punning a vector with an array of its lanes',
  struct: 'structs',
  union: 'unions',
  'struct:nested': 'structs nested in structs or unions',
  'struct:pointer-member': 'structs or unions with a pointer member',
  'struct:array-member': 'structs or unions with an array member',
  'bitfield:signed': 'signed bit-fields',
  'bitfield:unsigned': 'unsigned bit-fields',
  'bitfield:zero-width': 'unnamed :0 bit-fields',
  'struct:packed': 'packed structs',
  array: 'arrays',
  'array:multi-dim': 'multi-dimensional arrays',
  'array:of-records': 'arrays of structs or unions',
  pointer: 'pointers',
  'pointer:multi-level': 'pointers to pointers',
  'pointer:to-record': 'pointers to structs or unions',
  'qual:const-object': 'const objects',
  'qual:volatile-object': 'volatile objects',
  'qual:const-pointee': 'pointers to const',
  'qual:volatile-pointee': 'pointers to volatile',
  'qual:volatile-field': 'volatile or const struct fields',
  'pointer:param': 'pointer parameters',
  'pointer:return': 'functions returning pointers',
  'record:param': 'struct or union parameters',
  'op:address-of': '& (address of)',
  'op:deref': '* (dereference)',
  'op:arrow': '-> (member through a pointer)',
  'op:pointer-assign': 'pointer assignment',
  'op:pointer-compare': 'comparison of two pointers',
  'op:null-compare': 'comparison with NULL',
  'op:record-assign': 'struct or union assignment',
  'op:comma': 'comma expressions',
  'op:embedded-assign': 'assignments inside expressions',
  'op:incdec-pre': 'pre ++/--',
  'op:incdec-post': 'post ++/--',
  'op:compound-assign': 'compound assignment',
  'op:conditional': '?:',
  'op:cast': 'casts',
  'op:safe-math': 'safe-math wrappers',
  'stmt:if': 'if-else',
  'stmt:for': 'for loops',
  'stmt:while': 'while loops',
  'stmt:do': 'do-while loops',
  'stmt:array-loop': 'array loops (for i in 0..len over an array)',
  'stmt:switch': 'switch',
  'stmt:goto-forward': 'forward goto',
  'stmt:goto-backward': 'backward goto',
  'stmt:igoto': 'computed goto through a table of label addresses (GNU labels as values)',
  'stmt:break': 'break',
  'stmt:continue': 'continue',
  'stmt:early-return': 'return before the end of a function',
  'func:call': 'calls of program functions',
  'func:inline': 'inline functions',
  'local:register': 'register locals',
} as const;

/** A census feature name. */
export type Feature = keyof typeof FEATURES;

/** What one program uses. */
export interface ProgramCensus {
  readonly features: ReadonlySet<Feature>;
  readonly operators: ReadonlySet<string>;
}

function typeFeatures(t: Type, out: Set<Feature>, seen = new Set<Type>()): void {
  if (seen.has(t)) return;
  seen.add(t);
  switch (t.kind) {
    case 'int':
      if (t.bitPrecise || t.rank === 6) {
        wideIntFeatures(t, out);
        if (t.const) out.add('qual:const-object');
        if (t.volatile) out.add('qual:volatile-object');
        return;
      }
      if (t.bits === 8) out.add('type:int8');
      else if (t.bits === 16) out.add('type:int16');
      else if (t.bits === 32) out.add('type:int32');
      else if (t.bits === 64) out.add('type:int64');
      if (!t.name.endsWith('_t')) out.add('type:classic-names');
      if (t.const) out.add('qual:const-object');
      if (t.volatile) out.add('qual:volatile-object');
      return;
    case 'ptr': {
      out.add('pointer');
      if (pointerDepth(t) >= 2) out.add('pointer:multi-level');
      if (t.to.const) out.add('qual:const-pointee');
      if (t.to.volatile) out.add('qual:volatile-pointee');
      let base: Type = t.to;
      while (base.kind === 'ptr') base = base.to;
      if (isRecord(base)) out.add('pointer:to-record');
      typeFeatures(t.to, out, seen);
      return;
    }
    case 'array':
      out.add('array');
      if (t.of.kind === 'array') out.add('array:multi-dim');
      if (isRecord(t.of)) out.add('array:of-records');
      if (t.of.kind === 'vector') out.add('vector:array');
      typeFeatures(t.of, out, seen);
      return;
    case 'vector':
      out.add('type:vector');
      if (t.of.kind === 'float') out.add('vector:float');
      return;
    case 'struct':
    case 'union':
      out.add(t.kind);
      if (isPunUnion(t)) out.add('vector:pun-union');
      if (t.kind === 'struct' && t.packed) out.add('struct:packed');
      for (const f of t.fields) {
        if (f.bits !== undefined && f.type.kind === 'int' && f.type.bitPrecise) out.add('bitfield:bitint');
        if (f.bits !== undefined)
          out.add(
            f.bits === 0
              ? 'bitfield:zero-width'
              : f.type.kind === 'int' && f.type.signed
                ? 'bitfield:signed'
                : 'bitfield:unsigned',
          );
        if (isRecord(f.type)) out.add('struct:nested');
        if (f.type.kind === 'ptr') out.add('struct:pointer-member');
        if (f.type.kind === 'array') out.add('struct:array-member');
        if (f.type.kind === 'vector') out.add('vector:in-record');
        if (f.type.const || f.type.volatile) out.add('qual:volatile-field');
        typeFeatures(f.type, out, seen);
      }
      return;
    default:
      return;
  }
}

/** The features of an `__int128` or `_BitInt(N)` type (a bit-precise bit-field's by its declared N). */
function wideIntFeatures(t: IntType, out: Set<Feature>): void {
  if (!t.bitPrecise) {
    if (t.rank === 6) out.add('type:int128');
    return;
  }
  out.add('type:bitint');
  const n = t.declBits ?? t.bits;
  out.add(n <= 8 ? 'bitint:1-8' : n <= 64 ? 'bitint:9-64' : n <= 128 ? 'bitint:65-128' : 'bitint:wider');
}

/** Whether a `for` loop is an array loop: `for (i = 0; i < n; i++)` whose body indexes with `i`. */
function isArrayLoop(n: Node): boolean {
  if (n.kind !== 'for' || !n.init || !n.cond || n.init.kind !== 'assign' || n.init.target.kind !== 'var') return false;
  const v = n.init.target.decl;
  if (n.cond.kind !== 'binary' || n.cond.op !== '<' || n.cond.right.kind !== 'const') return false;
  let indexed = false;
  walk(n.body, (x) => {
    if (x.kind === 'index' && x.index.kind === 'var' && x.index.decl === v) indexed = true;
    return !indexed;
  });
  return indexed;
}

/** The features and operators one program uses (the program's own code; main's checksum loops excluded). */
export function censusOf(p: Program): ProgramCensus {
  const features = new Set<Feature>();
  const operators = new Set<string>();
  for (const r of p.records) typeFeatures(r, features);
  for (const g of p.globals) typeFeatures(g.type, features);
  for (const f of p.funcs) {
    if (f.id === p.main) continue;
    functionCensus(f, features, operators);
  }
  return { features, operators };
}

function functionCensus(f: FuncDecl, features: Set<Feature>, operators: Set<string>): void {
  if (f.isInline) features.add('func:inline');
  if (f.ret.kind === 'ptr') features.add('pointer:return');
  typeFeatures(f.ret, features);
  if (f.ret.kind === 'vector' || f.params.some((p) => p.type.kind === 'vector')) features.add('vector:param');
  for (const p of f.params) {
    if (p.type.kind === 'ptr') features.add('pointer:param');
    if (isRecord(p.type)) features.add('record:param');
    typeFeatures(p.type, features);
  }
  const lastStmt = f.body.stmts[f.body.stmts.length - 1];
  const labelPos = new Map<number, number>();
  let pos = 0;
  walk(f.body, (n) => {
    if (n.kind === 'label') labelPos.set(n.id, pos);
    pos++;
  });
  pos = 0;
  walk(f.body, (n, parent) => {
    pos++;
    if (isExpr(n)) {
      operatorsOf(n, operators);
      exprFeatures(n, parent, features);
      return;
    }
    switch (n.kind) {
      case 'var-decl':
        if (n.isRegister) features.add('local:register');
        typeFeatures(n.type, features);
        break;
      case 'if':
        features.add('stmt:if');
        break;
      case 'for':
        features.add(n.form === 'while' ? 'stmt:while' : n.form === 'do' ? 'stmt:do' : 'stmt:for');
        if (isArrayLoop(n)) features.add('stmt:array-loop');
        break;
      case 'switch':
        features.add('stmt:switch');
        break;
      case 'goto':
        features.add((labelPos.get(n.label) ?? Infinity) < pos ? 'stmt:goto-backward' : 'stmt:goto-forward');
        break;
      case 'igoto':
        features.add('stmt:igoto');
        break;
      case 'break':
        features.add('stmt:break');
        break;
      case 'continue':
        features.add('stmt:continue');
        break;
      case 'return':
        if (n !== lastStmt) features.add('stmt:early-return');
        break;
    }
  });
}

function exprFeatures(e: Expr, parent: Node | undefined, out: Set<Feature>): void {
  if (e.type.kind === 'int' && (e.type.bitPrecise || e.type.rank === 6)) {
    wideIntFeatures(e.type, out);
    if (e.type.bitPrecise && (e.kind === 'binary' || e.kind === 'unary' || e.kind === 'safe'))
      out.add('op:bitint-arith');
    if (e.type.bitPrecise && (e.kind === 'incdec' || (e.kind === 'assign' && e.op !== '='))) out.add('op:bitint-arith');
  }
  vectorExprFeatures(e, out);
  switch (e.kind) {
    case 'addr':
      out.add('op:address-of');
      break;
    case 'deref':
      out.add('op:deref');
      break;
    case 'field':
      if (e.base.kind === 'deref') out.add('op:arrow');
      break;
    case 'assign':
      if (e.type.kind === 'ptr') out.add('op:pointer-assign');
      if (isRecord(e.type)) out.add('op:record-assign');
      if (e.op !== '=') out.add('op:compound-assign');
      if (parent && parent.kind !== 'expr' && !(parent.kind === 'for' && (parent.init === e || parent.step === e)))
        out.add('op:embedded-assign');
      break;
    case 'incdec':
      out.add(e.prefix ? 'op:incdec-pre' : 'op:incdec-post');
      if (parent && parent.kind !== 'expr' && parent.kind !== 'for') out.add('op:embedded-assign');
      break;
    case 'binary':
      if ((e.op === '==' || e.op === '!=') && e.left.type.kind === 'ptr') {
        out.add(e.left.kind === 'null' || e.right.kind === 'null' ? 'op:null-compare' : 'op:pointer-compare');
      }
      break;
    case 'comma':
      out.add('op:comma');
      break;
    case 'cond':
      out.add('op:conditional');
      break;
    case 'cast':
      out.add('op:cast');
      break;
    case 'safe':
      out.add('op:safe-math');
      break;
    case 'call':
      out.add('func:call');
      break;
    default:
      break;
  }
}

/** The vector features of an expression node. */
function vectorExprFeatures(e: Expr, out: Set<Feature>): void {
  switch (e.kind) {
    case 'vec':
      if (e.op !== 'lanes') out.add(`vector:${e.op}`);
      return;
    case 'index':
      if (e.base.type.kind === 'vector') out.add('op:vector-lane');
      return;
    case 'binary':
      if (e.type.kind !== 'vector') return;
      out.add(isCompare(e.op) ? 'op:vector-compare' : 'op:vector-arith');
      if (e.left.type.kind !== 'vector' || e.right.type.kind !== 'vector') out.add('op:vector-broadcast');
      return;
    case 'unary':
      if (e.type.kind === 'vector') out.add('op:vector-arith');
      return;
    case 'cast':
      if (e.type.kind === 'vector') out.add('op:vector-cast');
      return;
    case 'assign':
      if (e.type.kind === 'vector') out.add('op:vector-assign');
      return;
    default:
      return;
  }
}

/**
 * What a program needs of a compiler beyond C11: `__int128`, `_BitInt` up to a width (0:
 * none), and GNU labels as values (an `igoto`). Computed from the IR (types of records,
 * declarations and every expression; the statements), so a reduction or an EMI variant of a
 * program carries its own.
 */
export interface ProgramRequires {
  readonly int128: boolean;
  readonly bitIntWidth: number;
  readonly labelValues: boolean;
  /** GNU vectors, with the builtins the program calls; absent when it has no vector type. */
  readonly vectors?: VectorBuiltins;
}

/** Which of the vector builtins a program calls, or a compiler accepts. */
export interface VectorBuiltins {
  readonly shufflevector: boolean;
  readonly convertvector: boolean;
  readonly shuffle: boolean;
}

/** The {@link ProgramRequires} of a program. */
export function programRequires(p: Program): ProgramRequires {
  let int128 = false;
  let bitIntWidth = 0;
  const seen = new Set<Type>();
  const visit = (t: Type): void => {
    if (seen.has(t)) return;
    seen.add(t);
    switch (t.kind) {
      case 'int':
        if (t.rank === 6) int128 = true;
        if (t.bitPrecise) bitIntWidth = Math.max(bitIntWidth, t.declBits ?? t.bits);
        return;
      case 'ptr':
        return visit(t.to);
      case 'array':
        return visit(t.of);
      case 'struct':
      case 'union':
        for (const f of t.fields) visit(f.type);
        return;
      case 'vector':
        vectors = true;
        return;
      default:
        return;
    }
  };
  let vectors = false;
  const builtins = { shufflevector: false, convertvector: false, shuffle: false };
  for (const r of p.records) visit(r);
  for (const g of p.globals) visit(g.type);
  for (const f of p.funcs) {
    visit(f.ret);
    for (const x of f.params) visit(x.type);
  }
  let labelValues = false;
  walkProgram(p, (n) => {
    if (isExpr(n) || n.kind === 'var-decl') visit(n.type);
    else if (n.kind === 'igoto') labelValues = true;
    if (n.kind === 'vec' && n.op !== 'lanes') builtins[n.op] = true;
  });
  return { int128, bitIntWidth, labelValues, ...(vectors ? { vectors: builtins } : {}) };
}
