// Crash signatures from a compiler's own crash report: what names the bug, so that one bug gets
// one bucket across the versions of a compiler family and across options, and another bug does not.
//   GCC   the normalised `internal compiler error: … in FN, at FILE` (line number dropped); for a
//         signal (`internal compiler error: Segmentation fault`) the top frames of GCC's own
//         backtrace, or the pass it was in (`during RTL pass: postreload`) when the backtrace
//         names no GCC function (Debian's release builds print only libc frames);
//   LLVM  the assertion text, LLVM's fatal error or the UNREACHABLE message, else the two
//         innermost frames of the stack dump without the signal handler, libc, pass-manager
//         scaffolding, addresses, argument lists and template arguments; always with the pass
//         that was running (the innermost `…Pass::run` frame, else the innermost `Running pass`).
// The text never holds a version or an option. Besides the key, a signature lists `needles`:
// verbatim pieces of the report, in the order they appear in it, which repro.sh looks for in the
// compiler's output (a C-Reduce/C-Vise test cannot call Kiln).
import { diagnosticLines, MAX_LINE_CHARS, normaliseMessage } from './bucket.js';
import type { Compiler } from './compilers.js';

/** A crash named by its report. */
export interface CrashSignature {
  /** `gcc`, `clang`, or a cross compiler's `gcc@aarch64`: the first part of its bucket. */
  readonly family: string;
  /** The normalised signature: the bucket is `compiler-crash:FAMILY:KEY`. */
  readonly key: string;
  /** What kind of report named it. */
  readonly kind: 'ice' | 'assertion' | 'fatal' | 'unreachable' | 'frames' | 'signal';
  /** The pass that was running, when the report says (`LoopDeletionPass`, `RTL pass: postreload`). */
  readonly pass?: string;
  /** The frames of the key, innermost first (LLVM frames; GCC frames of a signal). */
  readonly frames: readonly string[];
  /** One line for people. */
  readonly detail: string;
  /** Verbatim pieces of the report, in order of appearance: all of them show while the bug does. */
  readonly needles: readonly string[];
}

/** Compiler families whose crash reports Kiln reads; other families keep keys of their own message. */
export type ReportFamily = 'gcc' | 'clang';

/** The family part of a crash bucket (`gcc`, `clang`, `gcc@aarch64`), or undefined for tcc, pcc and others. */
export function crashFamily(c: Pick<Compiler, 'family' | 'target'>): string | undefined {
  if (c.family !== 'gcc' && c.family !== 'clang') return undefined;
  return c.target === undefined ? c.family : `${c.family}@${c.target}`;
}

/** Frames a signature keeps (innermost first). Two: a third already differed between clang 16 and 22 for one bug. */
const FRAMES_KEPT = 2;

/** The most needles a signature carries (each bounded by MAX_LINE_CHARS). */
const MAX_NEEDLES = 6;

/**
 * The signature of a crash report, or undefined when the text holds no report Kiln can read
 * (the caller keeps its message key). `family` says whose report format to read.
 */
export function crashSignature(stderr: string, family: ReportFamily, bucketFamily: string): CrashSignature | undefined {
  const lines = diagnosticLines(stderr);
  const s = family === 'gcc' ? gccSignature(lines) : llvmSignature(lines);
  if (!s) return undefined;
  return { ...s, family: bucketFamily, needles: ordered(stderr, s.needles) };
}

/**
 * The signature of a crash report whose compiler is not known (`kiln reduce --crash CC`): GCC's
 * format when the text holds an ICE line, else LLVM's.
 */
export function reportSignature(stderr: string): CrashSignature | undefined {
  const family: ReportFamily = /internal compiler error/.test(stderr) ? 'gcc' : 'clang';
  return crashSignature(stderr, family, family);
}

/**
 * A shell test (sh, awk) that exits 0 when FILE holds every needle, in order (each on the line
 * where the one before it is, or after): the check repro.sh and `--crash` scripts make.
 */
export function signatureShell(needles: readonly string[], file: string): string {
  const q = (v: string): string => `'${v.replace(/'/g, `'\\''`)}'`;
  return (
    `KILN_SIGNATURE=${q(needles.join('\n'))} awk 'BEGIN { n = split(ENVIRON["KILN_SIGNATURE"], w, "\\n"); i = 1 } ` +
    `{ while (i <= n && index($0, w[i])) i++ } END { exit (i <= n) }' ${file}`
  );
}

type Draft = Omit<CrashSignature, 'family'>;

// ---------------------------------------------------------------------------------------------
// GCC

/** `internal compiler error: MSG` as printed (after the file position or the program's name). */
const GCC_ICE = /internal compiler error: (.*)$/;
/** A backtrace frame: `0x1a2b3c name(args)` (its `\tFILE:LINE` line follows). */
const GCC_FRAME = /^0x[0-9a-f]+ (.+)$/;
/** GCC frames of the crash machinery, not of the bug. */
const GCC_NOISE =
  /^(?:\?\?\?|crash_signal|internal_error|fancy_abort|diagnostic_\w+|diagnostics::|_fatal_insn|__libc_|_start|main$)/;
const GCC_SIGNAL = /^(?:Segmentation fault|Aborted|Illegal instruction|Bus error|Floating point exception)\b/;

function gccSignature(lines: readonly string[]): Draft | undefined {
  const at = lines.findIndex((l) => GCC_ICE.test(l));
  if (at < 0) return undefined;
  const line = lines[at]!;
  const message = GCC_ICE.exec(line)![1]!.trim();
  const raw = line.slice(line.indexOf('internal compiler error: '));
  const duringLine = lines.find((l) => /^during [A-Z]+ pass: /.test(l.trim()));
  const pass = duringLine
    ? duringLine
        .trim()
        .replace(/^during /, '')
        .replace(/\d+$/, '')
    : undefined;
  const during = duringLine ? [duringLine.trim()] : [];
  const ice = assertionPlace(message);
  if (ice) {
    const { what, fn, base } = ice;
    const key = normaliseMessage(`internal compiler error: ${what}in ${fn}, at ${base}`);
    // The message up to the file name and the file name itself: both verbatim in the ICE line.
    const upTo = raw.slice(0, raw.lastIndexOf(', at ') + ', at '.length);
    return {
      key,
      kind: 'ice',
      ...(pass ? { pass } : {}),
      frames: [],
      detail: `${key}${pass ? ` (during ${pass})` : ''}`,
      needles: [...stable(upTo), base],
    };
  }
  if (GCC_SIGNAL.test(message)) {
    const frames = gccFrames(lines.slice(at + 1));
    const sig = GCC_SIGNAL.exec(message)![0];
    const where = frames.length ? ` in ${frames.join(' < ')}` : pass ? ` during ${pass}` : '';
    const key = normaliseMessage(`internal compiler error: ${sig}${where}`);
    return {
      key,
      kind: 'signal',
      ...(pass ? { pass } : {}),
      frames,
      detail: `${key}${frames.length && pass ? ` (during ${pass})` : ''}`,
      needles: [`internal compiler error: ${sig}`, ...(frames.length ? frames : during)],
    };
  }
  const key = normaliseMessage(`internal compiler error: ${message}`);
  return { key, kind: 'ice', ...(pass ? { pass } : {}), frames: [], detail: key, needles: stable(raw) };
}

/**
 * GCC's assertion message `WHAT in FN, at FILE:LINE` split (found from the end: no backtracking
 * over a long message), with the file's base name; undefined for other messages.
 */
function assertionPlace(message: string): { what: string; fn: string; base: string } | undefined {
  const at = message.lastIndexOf(', at ');
  if (at < 0) return undefined;
  const file = message.slice(at + ', at '.length).replace(/:\d+$/, '');
  if (!/^[\w./+-]+$/.test(file)) return undefined;
  const inAt = message.lastIndexOf('in ', at);
  if (inAt < 0 || (inAt > 0 && message[inAt - 1] !== ' ')) return undefined;
  const fn = message.slice(inAt + 3, at).trim();
  if (fn === '') return undefined;
  return { what: message.slice(0, inAt), fn, base: file.slice(file.lastIndexOf('/') + 1) };
}

/** The top frames of GCC's backtrace that name a GCC function (argument lists dropped). */
function gccFrames(after: readonly string[]): string[] {
  const out: string[] = [];
  for (const l of after) {
    const m = GCC_FRAME.exec(l.trim());
    if (!m) {
      if (/^(?:Please submit|See <)/.test(l.trim())) break;
      continue;
    }
    const name = simplifySymbol(m[1]!);
    if (name === '' || GCC_NOISE.test(name)) continue;
    out.push(name);
    if (out.length === FRAMES_KEPT) break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// LLVM

/** ` #4 0x00007f… llvm::f(int) (/usr/lib/libLLVM.so+0x…)`: llvm-symbolizer's frames. */
const LLVM_FRAME_SYMBOLIZED = /^#\d+ 0x[0-9a-f]+ (.*)$/;
/** `4  libLLVM.so.22.1      0x00007f… llvm::f(int) + 714`: frames without the symbolizer. */
const LLVM_FRAME_PLAIN = /^\d+\s+\S+\s+0x[0-9a-f]+(?: (.+?) \+ \d+)?$/;
/** Frames of the crash machinery, libc and the pass managers: never the bug. */
const LLVM_NOISE = new RegExp(
  [
    '^llvm::sys::',
    'SignalHandler',
    '^llvm::CrashRecoveryContext',
    '^llvm::report_fatal_error',
    '^llvm::reportFatal',
    '^llvm::llvm_unreachable_internal',
    '^__assert_fail',
    '^__GI_',
    '^__libc_',
    '^__pthread_kill',
    '^pthread_kill',
    '^gsignal$',
    '^raise$',
    '^abort$',
    '^_start$',
    '^main$',
    '^call_init$',
    '^llvm::PassManager::',
    '^llvm::detail::PassModel::',
    'PassAdaptor::run$',
    '^llvm::DevirtSCCRepeatedPass::run$',
    '^llvm::ModuleInlinerWrapperPass::run$',
    '^llvm::FPPassManager::',
    '^llvm::legacy::',
    '^llvm::MPPassManager::',
    '^llvm::MachineFunctionPass::runOnFunction$',
    '^llvm::function_ref::callback_fn$',
  ].join('|'),
);
/** A pass's entry point: `llvm::LoopDeletionPass::run`, `(anonymous)::X86DAGToDAGISel::runOnMachineFunction`. */
const PASS_ENTRY = /(?:^|::)(\w+)::(?:run|runOnFunction|runOnMachineFunction|runOnModule|runOnLoop|runOnSCC)$/;

function llvmSignature(lines: readonly string[]): Draft | undefined {
  const dump = lines.findIndex((l) => l.startsWith('Stack dump:'));
  const assertion = lines.map(assertionText).find((a) => a !== undefined);
  const fatal = lines
    .map((l) => /(?:LLVM ERROR|fatal error: error in backend): (.*)$/.exec(l)?.[1]?.trim())
    .find((m) => m !== undefined);
  const unreachableAt = lines.findIndex((l) => /UNREACHABLE executed/.test(l));
  if (dump < 0 && assertion === undefined && fatal === undefined && unreachableAt < 0) return undefined;
  const raw = dump >= 0 ? framesOf(lines.slice(dump + 1)) : [];
  const frames = raw.filter((f) => !LLVM_NOISE.test(f.name));
  const entry = frames.find((f) => PASS_ENTRY.test(f.name));
  const running = dump >= 0 ? runningPass(lines.slice(dump + 1)) : undefined;
  const pass = entry ? PASS_ENTRY.exec(entry.name)![1]! : running?.name;
  // The pass: its frame (a needle already, when among the kept frames), else its `Running pass` line.
  const passNeedle = entry ? [entry.needle] : running ? [running.needle] : [];
  const kept = frames.slice(0, FRAMES_KEPT);
  const at = pass ? `${pass}: ` : '';
  if (assertion !== undefined) {
    const key = normaliseMessage(`${at}${assertion}`);
    return {
      key,
      kind: 'assertion',
      ...(pass ? { pass } : {}),
      frames: kept.map((f) => f.name),
      detail: key,
      needles: [assertion, ...passNeedle],
    };
  }
  if (fatal !== undefined) {
    // SelectionDAG node numbers (`t12: i32 = …`) change with the program.
    const message = fatal.replace(/\bt\d+\b/g, 't').replace(/%\d+/g, '%');
    const key = normaliseMessage(`${at}LLVM ERROR: ${message}`);
    return {
      key,
      kind: 'fatal',
      ...(pass ? { pass } : {}),
      frames: kept.map((f) => f.name),
      detail: key,
      needles: [...stable(fatal).slice(0, 1), ...passNeedle],
    };
  }
  if (unreachableAt >= 0) {
    const line = lines[unreachableAt]!;
    const before = unreachableAt > 0 ? lines[unreachableAt - 1]!.trim() : '';
    const where = /UNREACHABLE executed at ([^\s:]+)/.exec(line)?.[1] ?? '';
    const base = where.slice(where.lastIndexOf('/') + 1);
    const key = normaliseMessage(`${at}UNREACHABLE executed at ${base}${before ? `: ${before}` : ''}`);
    return {
      key,
      kind: 'unreachable',
      ...(pass ? { pass } : {}),
      frames: kept.map((f) => f.name),
      detail: key,
      needles: [...(before ? stable(before).slice(0, 1) : []), 'UNREACHABLE executed at', ...passNeedle],
    };
  }
  if (kept.length === 0 && !pass) return undefined;
  const where = kept.map((f) => f.name).join(' < ');
  const key = normaliseMessage(`${at}${where || 'crash'}`);
  return {
    key,
    kind: 'frames',
    ...(pass ? { pass } : {}),
    frames: kept.map((f) => f.name),
    detail: `crash in ${where || 'an unnamed frame'}${pass ? ` while running ${pass}` : ''}`,
    needles: [...(kept.some((f) => f.name === entry?.name) ? [] : passNeedle), ...kept.map((f) => f.needle)],
  };
}

/** `Assertion \`x' failed` (without the function and file before it), or undefined. */
function assertionText(line: string): string | undefined {
  const open = /Assertion [`']/.exec(line);
  if (!open) return undefined;
  const close = line.lastIndexOf("' failed");
  if (close < open.index) return undefined;
  return line.slice(open.index, close + "' failed".length);
}

interface Frame {
  /** Qualified name without arguments, template arguments and return type. */
  readonly name: string;
  /** A verbatim piece of the frame's line that holds the name (for repro.sh). */
  readonly needle: string;
}

/** The named frames after `Stack dump:`, innermost first (frames without a symbol are skipped). */
function framesOf(after: readonly string[]): Frame[] {
  const out: Frame[] = [];
  for (const l of after) {
    const t = l.trim();
    let symbol: string | undefined;
    const a = LLVM_FRAME_SYMBOLIZED.exec(t);
    if (a) {
      // ` (module+0x…)` ends the line; a symbolized libc frame ends with `file:line:col` instead.
      symbol = a[1]!.replace(/\s*\([^()]*\+0x[0-9a-f]+\)$/, '').replace(/ \S+:\d+(?::\d+)?$/, '');
    } else {
      const b = LLVM_FRAME_PLAIN.exec(t);
      if (!b) continue;
      symbol = b[1];
    }
    if (!symbol) continue;
    const name = simplifySymbol(symbol);
    if (name === '') continue;
    out.push({ name, needle: verbatimPart(name, symbol) });
  }
  return out;
}

/** The innermost `Running pass 'X' on …` / `Running pass "X" on …` of LLVM's pretty stack trace. */
function runningPass(after: readonly string[]): { name: string; needle: string } | undefined {
  let found: { name: string; needle: string } | undefined;
  for (const l of after) {
    const m = /^\d+\.\s+Running pass (['"])(.*?)\1 on /.exec(l.trim());
    if (!m) continue;
    const text = m[2]!.length > 200 ? `${m[2]!.slice(0, 200)}…` : m[2]!;
    found = { name: text, needle: `Running pass ${m[1]}${m[2]!.slice(0, 200)}` };
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Shared

/**
 * A C++ symbol as a plain qualified name: `std::optional<X> llvm::PM<A, B>::run<C>(args) const`
 * → `llvm::PM::run`. Scans once, keeping depth counts, so a hostile line costs linear time.
 */
export function simplifySymbol(symbol: string): string {
  const s = (symbol.length > MAX_LINE_CHARS ? symbol.slice(0, MAX_LINE_CHARS) : symbol).replace(
    /\(anonymous namespace\)/g,
    '(anonymous)',
  );
  let out = '';
  let angle = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    // `operator<`, `operator<<`, `operator->` are names, not template brackets.
    if (angle === 0 && s.startsWith('operator', i)) {
      const op = /^operator(?:<<=?|>>=?|<=|>=|->|<|>|\(\)|\[\]|[^\s(]*)/.exec(s.slice(i, i + 12))![0];
      out += op;
      i += op.length - 1;
      continue;
    }
    if (ch === '<') angle++;
    else if (ch === '>' && angle > 0) angle--;
    else if (angle === 0) {
      if (ch === '(' && !s.startsWith('(anonymous)', i)) break; // the argument list
      out += ch;
    }
  }
  const words = out.trim().split(/\s+/);
  return (words.at(-1) ?? '').replace(/^\*+|&+$/g, '');
}

/** The longest piece of `name` that occurs verbatim in `symbol` (templates removed split it). */
function verbatimPart(name: string, symbol: string): string {
  if (symbol.includes(name)) return name;
  const parts = name.split('::');
  for (let n = parts.length - 1; n >= 1; n--) {
    const tail = parts.slice(parts.length - n).join('::');
    if (symbol.includes(`${tail}(`)) return `${tail}(`;
    if (symbol.includes(tail)) return tail;
  }
  return parts.at(-1) ?? name;
}

/**
 * Verbatim pieces of a message that do not change with the program: the runs between numbers,
 * addresses, quoted names and the generated program's identifiers, longest first kept in order.
 */
function stable(message: string): string[] {
  const pieces = message
    .slice(0, MAX_LINE_CHARS)
    .split(/0x[0-9a-fA-F]+|\d+|'[^']*'|‘[^’]*’|"[^"]*"|\b(?:func|g|l|p|U|S)_\w*/)
    .map((p) => p.trim())
    .filter((p) => p.length >= 6);
  return pieces.length ? pieces.slice(0, 3) : [message.slice(0, 80).trim()];
}

/** The needles in the order they first appear in the text (each found after the one before), duplicates dropped. */
function ordered(text: string, needles: readonly string[]): string[] {
  const seen = new Set<string>();
  const placed: { at: number; n: string }[] = [];
  for (const n of needles) {
    if (n === '' || seen.has(n)) continue;
    seen.add(n);
    const at = text.indexOf(n);
    if (at >= 0) placed.push({ at, n });
  }
  return placed
    .sort((a, b) => a.at - b.at)
    .slice(0, MAX_NEEDLES)
    .map((p) => p.n);
}

/** Whether the text holds every needle in order, as {@link signatureShell}'s awk line decides it. */
export function showsSignature(text: string, needles: readonly string[]): boolean {
  let i = 0;
  for (const line of text.split('\n')) {
    while (i < needles.length && line.includes(needles[i]!)) i++;
    if (i === needles.length) return true;
  }
  return i === needles.length;
}
