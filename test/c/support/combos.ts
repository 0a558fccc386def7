// Hash-compared combo runs: for each (operator, operand types) combination, a C function and
// a JS loop walk the same value pairs in the same order, and each prints one summary line
// (C result type, number of cases, 64-bit hash of all outcomes, UB count per category).
// On a mismatch the C program reruns one combo in detail mode and the JS side names the
// first differing concrete cases.
import { expect } from 'vitest';
import {
  evalBinary,
  evalCast,
  evalUnary,
  binaryResultType,
  unaryResultType,
  type EvalResult,
} from '../../../src/c/eval.js';
import type { BinaryOp, UnaryOp } from '../../../src/c/ops.js';
import type { IntType } from '../../../src/c/types.js';
import { compileC, runExe, type Compiled } from '../../support/cc.js';
import {
  BINARY_MACRO,
  CaseHash,
  ORACLE_HEADER,
  UB_CATEGORIES,
  UNARY_MACRO,
  UNEXPECTED_KIND,
  categoryName,
  categoryOf,
  cLiteral,
  cString,
  jsValue,
  kilnCanonicalName,
  representationError,
  valueHex,
} from './oracle.js';

/** The values one operand ranges over, in iteration order. */
export interface ValueList {
  readonly type: IntType;
  /** Exact values (each in range of `type`). */
  readonly values: readonly bigint[];
  /** Pairs involving a core value are never thinned away. */
  readonly core: readonly boolean[];
  /** floor(log2 |v|), or -1 for 0: used by the multiplication-border selection rule. */
  readonly exp: readonly number[];
}

/**
 * Which pairs (i, j) of a binary combo are checked:
 * core[i] || core[j] || (i + j) % stride == 0 || (mulBorder && W-2 <= exp[i] + exp[j] <= W)
 * (with core[i] && core[j] instead when `core` is 'both'),
 * with W = max(32, bits of either operand). stride 1 means the full cross product.
 */
interface Selection {
  readonly stride: number;
  readonly mulBorder: boolean;
  /** 'either': pairs with a core value on either side are kept; 'both': only core × core pairs. */
  readonly core?: 'either' | 'both';
}

export type Combo =
  | {
      readonly kind: 'binary';
      readonly op: BinaryOp;
      readonly a: ValueList;
      readonly b: ValueList;
      readonly sel: Selection;
    }
  | { readonly kind: 'unary'; readonly op: UnaryOp; readonly a: ValueList }
  | { readonly kind: 'cast'; readonly a: ValueList; readonly to: IntType };

export function makeValueList(
  type: IntType,
  values: readonly bigint[],
  isCore: (v: bigint) => boolean = () => false,
): ValueList {
  return {
    type,
    values,
    core: values.map(isCore),
    exp: values.map((v) => (v === 0n ? -1 : (v < 0n ? -v : v).toString(2).length - 1)),
  };
}

function comboLabel(c: Combo): string {
  if (c.kind === 'binary') return `(${c.a.type.name}) a ${c.op} (${c.b.type.name}) b`;
  if (c.kind === 'unary') return `${c.op}(${c.a.type.name}) a`;
  return `(${c.to.name})(${c.a.type.name}) a`;
}

function selected(c: Extract<Combo, { kind: 'binary' }>, i: number, j: number, w: number): boolean {
  const { stride, mulBorder } = c.sel;
  if (stride <= 1 || (i + j) % stride === 0) return true;
  if (c.sel.core === 'both' ? c.a.core[i] && c.b.core[j] : c.a.core[i] || c.b.core[j]) return true;
  if (!mulBorder) return false;
  const e = c.a.exp[i]! + c.b.exp[j]!;
  return e >= w - 2 && e <= w;
}

// ---------------------------------------------------------------------------------------
// C program

/** Generates the oracle program. `prog` prints one summary line per combo; `prog N` prints
 * every case of combo N as `i j category bits`. */
function comboProgram(combos: readonly Combo[]): string {
  const lists = new Map<ValueList, number>();
  const out: string[] = [ORACLE_HEADER];
  const listId = (l: ValueList): number => {
    let id = lists.get(l);
    if (id === undefined) {
      id = lists.size;
      lists.set(l, id);
      const t = l.type.name;
      out.push(`static const ${t} V${id}[] = {${l.values.map((v) => cLiteral(v, l.type)).join(',')}};`);
      out.push(`static const unsigned char C${id}[] = {${l.core.map((x) => (x ? 1 : 0)).join(',')}};`);
      out.push(`static const int E${id}[] = {${l.exp.join(',')}};`);
    }
    return id;
  };
  // The loop, the selection rule, hashing and printing live once in run_combo; each combo
  // contributes only a small function evaluating case (i, j) and a table entry.
  // biome-ignore format: embedded text
  out.push(`typedef int (*evalfn)(int i, int j, u64 *bits);
typedef struct {
  const char *op, *ta, *tb, *rt; evalfn f; int na, nb;
  const unsigned char *ca, *cb; const int *ea, *eb; int stride, mul, both, w;
} combo_t;
#define NELEM(x) ((int)(sizeof (x) / sizeof (x)[0]))
#define WIDTH2(TA, TB) ((int)(sizeof(TA) > sizeof(TB) ? sizeof(TA) : sizeof(TB)) * 8 < 32 ? 32 : (int)(sizeof(TA) > sizeof(TB) ? sizeof(TA) : sizeof(TB)) * 8)
static void run_combo(const combo_t *c, int detail) {
  hash_t h; hinit(&h); u64 cnt[${UB_CATEGORIES.length}] = {0}; u64 n = 0;
  for (int i = 0; i < c->na; i++) for (int j = 0; j < c->nb; j++) {
    if (c->stride > 1) {
      int core = c->both ? (c->ca[i] && c->cb[j]) : (c->ca[i] || c->cb[j]);
      int border = c->mul && c->ea[i] + c->eb[j] >= c->w - 2 && c->ea[i] + c->eb[j] <= c->w;
      if (!(core || (i + j) % c->stride == 0 || border)) continue;
    }
    u64 bits = 0; int kind = c->f(i, j, &bits);
    n++; cnt[kind]++; hcase(&h, kind, bits);
    if (detail) printf("%d %d %d %016llx\\n", i, j, kind, bits);
  }
  if (!detail) printf("%s\\t%s\\t%s\\t%s\\t%llu\\t%08x%08x\\t${UB_CATEGORIES.slice(1)
    .map(() => '%llu')
    .join(',')}\\n", c->op, c->ta, c->tb, c->rt, n, h.x, h.y${UB_CATEGORIES.slice(1)
    .map((_, k) => `, cnt[${k + 1}]`)
    .join('')});
}`);
  const entries: string[] = [];
  combos.forEach((c, k) => {
    const ia = listId(c.a);
    const ta = c.a.type.name;
    if (c.kind === 'binary') {
      const ib = listId(c.b);
      const tb = c.b.type.name;
      out.push(
        `static int f${k}(int i, int j, u64 *bits) { ${ta} a = V${ia}[i]; ${tb} b = V${ib}[j]; int kind = ` +
          `0; ${BINARY_MACRO[c.op]}(a, b, kind, *bits); return kind; }`,
      );
      entries.push(
        `{${cString(c.op)}, ${cString(ta)}, ${cString(tb)}, TNAME((${ta})0 ${c.op} (${tb})0), f${k}, ` +
          `NELEM(V${ia}), NELEM(V${ib}), C${ia}, C${ib}, E${ia}, ` +
          `E${ib}, ${c.sel.stride}, ${c.sel.mulBorder ? 1 : 0}, ${c.sel.core === 'both' ? 1 : 0}, ` +
          `WIDTH2(${ta}, ${tb})}`,
      );
    } else {
      const expr = c.kind === 'unary' ? `${c.op}a` : `(${c.to.name})a`;
      const call =
        c.kind === 'unary' ? `${UNARY_MACRO[c.op]}(a, kind, *bits);` : `kind = K_OK; *bits = BITS_OF(${expr});`;
      out.push(
        `static int f${k}(int i, int j, u64 *bits) { (void)j; ${ta} a = V${ia}[i]; int kind = 0; ${call} ` +
          `return kind; }`,
      );
      const typeExpr = c.kind === 'unary' ? `${c.op}(${ta})0` : `(${c.to.name})(${ta})0`;
      const tb = c.kind === 'cast' ? c.to.name : '-';
      entries.push(
        `{${cString(c.kind === 'cast' ? 'cast' : c.op)}, ${cString(ta)}, ${cString(tb)}, ` +
          `TNAME(${typeExpr}), f${k}, NELEM(V${ia}), 1, 0, 0, 0, 0, 1, 0, 0, 0}`,
      );
    }
  });
  out.push(`static const combo_t COMBOS[] = {\n  ${entries.join(',\n  ')}\n};`);
  out.push(`int main(int argc, char **argv) {
  const int n = NELEM(COMBOS);
  if (argc > 1) { int k = atoi(argv[1]); if (k < 0 || k >= n) return 2; run_combo(&COMBOS[k], 1); return 0; }
  for (int k = 0; k < n; k++) run_combo(&COMBOS[k], 0);
  return 0;
}`);
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------
// JS side

interface JsCase {
  readonly i: number;
  readonly j: number;
  readonly category: number;
  readonly bits: string;
}

interface JsComboResult {
  readonly line: string;
  /** Problems C cannot see: a value outside its type's representation, a wrong result type. */
  readonly problems: string[];
}

function evalCase(c: Combo, i: number, j: number, av: (number | bigint)[], bv: (number | bigint)[]): EvalResult {
  if (c.kind === 'binary')
    return evalBinary(c.op, { type: c.a.type, value: av[i]! }, { type: c.b.type, value: bv[j]! });
  if (c.kind === 'unary') return evalUnary(c.op, { type: c.a.type, value: av[i]! });
  return evalCast({ type: c.a.type, value: av[i]! }, c.to);
}

function staticResultType(c: Combo): IntType {
  const t =
    c.kind === 'binary'
      ? binaryResultType(c.op, c.a.type, c.b.type)
      : c.kind === 'unary'
        ? unaryResultType(c.op, c.a.type)
        : c.to;
  if (t.kind !== 'int') throw new Error(`integer operands gave a floating result type for ${comboLabel(c)}`);
  return t;
}

/** Walks a combo with Kiln; calls `each` per case when given (detail mode). */
function runJs(c: Combo, each?: (cs: JsCase) => void): JsComboResult {
  const av = c.a.values.map((v) => jsValue(v, c.a.type));
  const bv = c.kind === 'binary' ? c.b.values.map((v) => jsValue(v, c.b.type)) : [];
  const rt = staticResultType(c);
  const rtName = kilnCanonicalName(rt);
  const narrow = rt.bits <= 32;
  const loN = rt.signed ? -(1n << BigInt(rt.bits - 1)) : 0n;
  const hiN = rt.signed ? (1n << BigInt(rt.bits - 1)) - 1n : (1n << BigInt(rt.bits)) - 1n;
  const lo = Number(loN);
  const hi = Number(hiN);
  const h = new CaseHash();
  const cnt = new Array<number>(UB_CATEGORIES.length).fill(0);
  const problems: string[] = [];
  let n = 0;
  const nb = c.kind === 'binary' ? bv.length : 1;
  const w = c.kind === 'binary' ? Math.max(32, c.a.type.bits, c.b.type.bits) : 0;
  for (let i = 0; i < av.length; i++) {
    for (let j = 0; j < nb; j++) {
      if (c.kind === 'binary' && !selected(c, i, j, w)) continue;
      const r = evalCase(c, i, j, av, bv);
      const cat = categoryOf(r);
      n++;
      if (cat === UNEXPECTED_KIND) {
        if (problems.length < 10)
          problems.push(`${caseText(c, i, j)}: unexpected UB kind '${(r as { ub: string }).ub}'`);
        cnt[0]!++;
      } else cnt[cat]!++;
      let value: number | bigint | undefined;
      if (r.ok) {
        value = r.value as number | bigint;
        if (r.type !== rt && (r.type.kind !== 'int' || kilnCanonicalName(r.type) !== rtName)) {
          if (problems.length < 10)
            problems.push(
              `${caseText(c, i, j)}: evalBinary/evalUnary type ${r.type.name} but static result type ${rt.name}`,
            );
        } else if (
          !(typeof value === 'number'
            ? narrow && value >= lo && value <= hi && Math.floor(value) === value && !Object.is(value, -0)
            : !narrow && value >= loN && value <= hiN)
        ) {
          const bad = representationError(value, rt) ?? 'representation check failed';
          if (problems.length < 10) problems.push(`${caseText(c, i, j)}: ${bad}`);
        }
      }
      h.add(cat, value);
      if (each) each({ i, j, category: cat, bits: value === undefined ? '' : valueHex(value) });
    }
  }
  const tb = c.kind === 'binary' ? c.b.type.name : c.kind === 'cast' ? c.to.name : '-';
  const op = c.kind === 'cast' ? 'cast' : c.op;
  return { line: [op, c.a.type.name, tb, rtName, n, h.hex(), cnt.slice(1).join(',')].join('\t'), problems };
}

function caseText(c: Combo, i: number, j: number): string {
  const a = c.a.values[i]!;
  if (c.kind === 'binary') return `(${c.a.type.name})${a} ${c.op} (${c.b.type.name})${c.b.values[j]!}`;
  if (c.kind === 'unary') return `${c.op}(${c.a.type.name})${a}`;
  return `(${c.to.name})(${c.a.type.name})${a}`;
}

/** Per-case comparison of one combo, to explain a summary mismatch. */
/** Runs `exe`, through the emulator argv `run` when it is not empty. */
function runUnder(
  run: readonly string[],
  exe: string,
  args: readonly string[],
  timeoutMs?: number,
): ReturnType<typeof runExe> {
  return run.length ? runExe(run[0]!, [...run.slice(1), exe, ...args], timeoutMs) : runExe(exe, args, timeoutMs);
}

async function explain(run: readonly string[], exe: string, k: number, c: Combo, maxDiffs = 8): Promise<string> {
  const r = await runUnder(run, exe, [String(k)]);
  if (r.status !== 0) return `detail run of combo ${k} failed: status ${r.status} ${r.stderr.slice(0, 500)}`;
  const cLines = r.stdout.trimEnd().split('\n');
  const diffs: string[] = [];
  let idx = 0;
  runJs(c, (js) => {
    const line = cLines[idx++];
    if (diffs.length >= maxDiffs) return;
    if (line === undefined) {
      diffs.push(`${caseText(c, js.i, js.j)}: C produced no case here (C enumerated fewer cases)`);
      return;
    }
    const [ci, cj, ck, cb] = line.split(' ');
    const cat = Number(ck);
    if (Number(ci) !== js.i || Number(cj) !== js.j) {
      diffs.push(`case order differs: C at (${ci},${cj}), Kiln at (${js.i},${js.j})`);
      return;
    }
    const cText = cat === 0 ? `0x${cb}` : `UB ${categoryName(cat)}`;
    const jText = js.category === 0 ? `0x${js.bits}` : `UB ${categoryName(js.category)}`;
    if (cText !== jText) diffs.push(`${caseText(c, js.i, js.j)}: C says ${cText}, Kiln says ${jText}`);
  });
  if (idx < cLines.length) diffs.push(`C enumerated ${cLines.length} cases, Kiln ${idx}`);
  return diffs.length ? diffs.join('\n') : '(no per-case difference: the summary differs only in the result type)';
}

export interface ComboRunReport {
  readonly combos: number;
  readonly cases: number;
  readonly ubCases: number;
  readonly lines: readonly string[];
  /** Milliseconds spent compiling, running the C programs, and evaluating with Kiln. */
  readonly ms: { readonly compile: number; readonly runC: number; readonly kiln: number };
}

/**
 * Compiles the combo program with each compiler configuration, checks that every
 * configuration prints the same lines (the C side is stable), and compares them with Kiln.
 * Fails with the first differing concrete cases.
 */
export async function checkCombos(
  combos: readonly Combo[],
  configs: readonly { readonly cc: string; readonly flags: readonly string[]; readonly run?: readonly string[] }[],
): Promise<ComboRunReport> {
  const src = comboProgram(combos);
  const builds: { cfg: string; c: Compiled; run: readonly string[] }[] = [];
  const t0 = Date.now();
  try {
    // Two builds at a time (the test machines have two cores).
    for (let k = 0; k < configs.length; k += 2) {
      const batch = configs.slice(k, k + 2);
      const done = await Promise.allSettled(batch.map((cfg) => compileC(src, { cc: cfg.cc, flags: cfg.flags })));
      done.forEach((d, i) => {
        if (d.status === 'fulfilled')
          builds.push({ cfg: `${batch[i]!.cc} ${batch[i]!.flags.join(' ')}`, c: d.value, run: batch[i]!.run ?? [] });
      });
      const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
      if (failed) throw failed.reason;
    }
    const t1 = Date.now();
    const outputs: { cfg: string; lines: string[] }[] = [];
    for (const b of builds) {
      // A cross build runs under its emulator (`run` is the emulator's argv before the program).
      const r = await runUnder(b.run, b.c.exe, [], 120_000);
      expect(r.status, `${b.cfg} oracle exited with ${r.status} ${r.signal ?? ''}\n${r.stderr.slice(0, 2000)}`).toBe(0);
      expect(r.truncated, 'oracle output truncated').toBe(false);
      outputs.push({ cfg: b.cfg, lines: r.stdout.trimEnd().split('\n') });
    }
    const ref = outputs[0]!;
    expect(ref.lines.length, `${ref.cfg}: one line per combo`).toBe(combos.length);
    for (const o of outputs.slice(1)) {
      const k = o.lines.findIndex((l, i) => l !== ref.lines[i]);
      expect(
        k,
        `C oracle unstable: ${o.cfg} differs from ${ref.cfg} at combo ${k}:\n  ${ref.lines[k]}\n  ${o.lines[k]}`,
      ).toBe(-1);
    }
    const t2 = Date.now();
    const failures: string[] = [];
    let cases = 0;
    let ubCases = 0;
    for (let k = 0; k < combos.length; k++) {
      const c = combos[k]!;
      const js = runJs(c);
      const cLine = ref.lines[k]!;
      const fields = cLine.split('\t');
      cases += Number(fields[4]);
      ubCases += (fields[6] ?? '').split(',').reduce((s, x) => s + Number(x), 0);
      if (js.problems.length)
        failures.push(`${comboLabel(c)}: Kiln representation/type problems:\n  ${js.problems.join('\n  ')}`);
      if (js.line !== cLine) {
        if (failures.length < 6) {
          const detail = await explain(builds[0]!.run, builds[0]!.c.exe, k, c);
          failures.push(
            `${comboLabel(c)} (combo ${k}):\n  C    ${cLine}\n  Kiln ${js.line}\n  (op, a type, b type, ` +
              `result type, cases, hash, UB ` +
              `counts ${UB_CATEGORIES.slice(1).join(',')})\n  ${detail.replace(/\n/g, '\n  ')}`,
          );
        } else failures.push(`${comboLabel(c)} (combo ${k}): summary differs`);
      }
    }
    expect(
      failures.length,
      `${failures.length} combo(s) differ between C and Kiln:\n${failures.slice(0, 12).join('\n')}`,
    ).toBe(0);
    return {
      combos: combos.length,
      cases,
      ubCases,
      lines: ref.lines,
      ms: { compile: t1 - t0, runC: t2 - t1, kiln: Date.now() - t2 },
    };
  } finally {
    for (const b of builds) b.c.cleanup();
  }
}
