// Reading UB detectors' reports. Each tool words its first report its own way; these parsers turn
// it into one shape: the tool, a UB kind from Kiln's vocabulary (the kinds `kiln gen --ub` will
// inject), and the source location the tool names. Only the first report counts, as in
// CsmithEdge's validation (§1.5): a program with one UB is already rejected.
import { alarmStatements, innerSequencePoint } from './seqpoint.js';

/** The UB detectors `kiln check` runs, in CsmithEdge's order (cheapest and most precise first). */
export type CheckTool = 'asan' | 'msan' | 'ubsan' | 'valgrind' | 'eva';

/** Every tool, in the order they run. */
export const CHECK_TOOLS: readonly CheckTool[] = ['asan', 'msan', 'ubsan', 'valgrind', 'eva'];

/** Kinds of undefined behaviour, named as Kiln's interpreter and `kiln gen --ub` name them. */
export type UBKind =
  | 'signed-overflow'
  | 'shift'
  | 'division-by-zero'
  | 'out-of-bounds'
  | 'null-dereference'
  | 'dangling'
  | 'uninitialised-read'
  | 'unsequenced'
  | 'invalid-conversion'
  | 'other';

/** One tool's first report. */
export interface ToolReport {
  readonly tool: CheckTool;
  readonly kind: UBKind;
  /** Source file as the tool printed it (basename when the tool printed a path), if any. */
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  /** The tool's own words (one line). */
  readonly message: string;
}

function baseName(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? p : p.slice(i + 1);
}

/**
 * A location `file.c:12:5` or `file.c:12` inside a stack frame or message; the first frame in one of `sources` wins.
 */
function firstSourceLocation(
  text: string,
  sources: readonly string[],
): { file: string; line: number; column?: number } | undefined {
  const names = new Set(sources.map(baseName));
  // ASan/MSan frames: `#0 0x… in main /dir/prog.c:5:8`; valgrind: `at 0x…: main (prog.c:5)`.
  const re = /([^\s()]+\.[ch]):(\d+)(?::(\d+))?/g;
  let first: { file: string; line: number; column?: number } | undefined;
  for (const m of text.matchAll(re)) {
    const loc = { file: baseName(m[1]!), line: Number(m[2]), ...(m[3] !== undefined ? { column: Number(m[3]) } : {}) };
    if (names.has(loc.file)) return loc;
    first ??= loc;
  }
  return names.size === 0 ? first : undefined;
}

/**
 * The location of the innermost stack frame in one of `sources` (`#0 0x… in func_2 /dir/prog.c:5:8`),
 * for ASan's and MSan's reports. A frame of the program without a line (`#0 0x… in func_2
 * /dir/prog.c`: code inlined at -O2 whose line the debug information lost) gives the file
 * alone: the line is unknown, and the caller's line in the next frame is not the access's.
 * Without frames, the first location anywhere (`firstSourceLocation`).
 */
function innermostFrame(
  text: string,
  sources: readonly string[],
): { file: string; line?: number; column?: number } | undefined {
  const names = new Set(sources.map(baseName));
  const frame = /^\s*#\d+ 0x[0-9a-f]+ in \S+ ([^\s()]+?\.[ch])(?::(\d+)(?::(\d+))?)?\s*$/gm;
  for (const m of text.matchAll(frame)) {
    const file = baseName(m[1]!);
    if (!names.has(file)) continue;
    if (m[2] === undefined) return { file };
    return { file, line: Number(m[2]), ...(m[3] !== undefined ? { column: Number(m[3]) } : {}) };
  }
  return firstSourceLocation(text, sources);
}

/** Classifies an AddressSanitizer error title (`heap-buffer-overflow`, `SEGV on unknown address 0x000…`). */
function asanKind(title: string, body: string): UBKind {
  if (/buffer-overflow|buffer-underflow|container-overflow/.test(title)) return 'out-of-bounds';
  if (/use-after-(?:return|scope|free)|double-free/.test(title)) return 'dangling';
  if (/^FPE/.test(title)) return 'division-by-zero';
  if (/^SEGV/.test(title)) {
    const addr = /unknown address (0x[0-9a-f]+)/.exec(title);
    // A page-zero address is a null pointer (or a member of a struct behind one).
    if (addr && BigInt(addr[1]!) < 4096n) return 'null-dereference';
    if (/hint: address points to the zero page/.test(body)) return 'null-dereference';
  }
  return 'other';
}

/** The first AddressSanitizer report in a run's stderr. */
export function parseAsan(stderr: string, sources: readonly string[]): ToolReport | undefined {
  const m = /ERROR: AddressSanitizer: ([^\n]*)/.exec(stderr);
  if (!m) return undefined;
  const title = m[1]!.trim();
  const body = stderr.slice(m.index);
  return {
    tool: 'asan',
    kind: asanKind(title, body),
    ...innermostFrame(body, sources),
    message:
      `AddressSanitizer: ` +
      `${title.replace(/ on (?:unknown )?address 0x[0-9a-f]+.*$/, '').replace(/ \(pc 0x.*$/, '')}`,
  };
}

/** The first MemorySanitizer report in a run's stderr. */
export function parseMsan(stderr: string, sources: readonly string[]): ToolReport | undefined {
  const m = /WARNING: MemorySanitizer: ([^\n]*)/.exec(stderr);
  if (!m) return undefined;
  const title = m[1]!.trim();
  const kind: UBKind = /uninitiali[sz]ed/.test(title) ? 'uninitialised-read' : 'other';
  return {
    tool: 'msan',
    kind,
    ...innermostFrame(stderr.slice(m.index), sources),
    message: `MemorySanitizer: ${title}`,
  };
}

/** Classifies a UBSan `runtime error:` message. */
function ubsanKind(message: string): UBKind {
  if (
    /signed integer overflow|negation of .* cannot be represented|division of .* by -1 cannot be represented/.test(
      message,
    )
  )
    return 'signed-overflow';
  if (/shift exponent|left shift of|shift of negative/.test(message)) return 'shift';
  if (/division by zero/.test(message)) return 'division-by-zero';
  if (/out of bounds|index -?\d+ out of|pointer overflow/.test(message)) return 'out-of-bounds';
  if (/null pointer/.test(message)) return 'null-dereference';
  if (/outside the range of representable values|is not a valid value for type/.test(message))
    return 'invalid-conversion';
  return 'other';
}

/** The first UndefinedBehaviorSanitizer report (`prog.c:12:5: runtime error: …`). */
export function parseUbsan(stderr: string, sources: readonly string[]): ToolReport | undefined {
  const m = /^(?:(\S+?):(\d+):(\d+): )?runtime error: ([^\n]*)/m.exec(stderr);
  if (!m) return undefined;
  const message = m[4]!.trim();
  const loc =
    m[1] !== undefined
      ? { file: baseName(m[1]), line: Number(m[2]), column: Number(m[3]) }
      : firstSourceLocation(stderr, sources);
  return { tool: 'ubsan', kind: ubsanKind(message), ...loc, message: `UBSan: ${message}` };
}

/** Classifies a valgrind (memcheck) error heading, given the lines that follow it. */
function valgrindKind(heading: string, body: string): UBKind {
  if (/uninitialised|Uninitialised/.test(heading)) return 'uninitialised-read';
  if (/^Invalid (?:read|write)|^Invalid free|^Process terminating/.test(heading)) {
    if (
      /Address 0x0 is not stack'd|Access not within mapped region at address 0x0\b|address 0x[0-9A-F]{1,3}\b/i.test(
        body,
      )
    )
      return 'null-dereference';
    if (/free'd|freed/.test(body)) return 'dangling';
    if (/signal 8 \(SIGFPE\)/.test(heading + body)) return 'division-by-zero';
    if (/^Invalid/.test(heading)) return 'out-of-bounds';
  }
  return 'other';
}

/** The first line of a memcheck error report. */
const MEMCHECK_ERROR = new RegExp(
  '^(?:Invalid (?:read|write|free)|Conditional jump or move depends on uninitialised|Use of uninitialised value|' +
    'Syscall param .* uninitialised|Process terminating with default action)',
);

/**
 * memcheck suppressions for glibc's own start-up and exit in a static binary, which memcheck
 * misreads: the newest compilers' builds are static (the sid root's launchers link so, the root's
 * glibc not being the host's), and its `_dl_non_dynamic_init` reads the environment with SSE4.2
 * string functions before `main`; a static build with the host's glibc 2.36 trips on the thread
 * set-up (`__tls_init_tp`) and on the stdio locks of `exit`. Each is matched by the glibc function
 * it happens in, never by a frame of the program's own code, and a write of uninitialised bytes
 * by `exit`'s flush of stdout (a program printing an uninitialised value) is still reported.
 * Written next to the binary (VALGRIND_SUPPRESSIONS_FILE) and passed with `--suppressions`.
 */
export const VALGRIND_SUPPRESSIONS = [
  ...['Cond', 'Value1', 'Value2', 'Value4', 'Value8', 'Value16'].map((kind) => [
    `static-start-up-${kind}`,
    `Memcheck:${kind}`,
    '...',
    'fun:_dl_non_dynamic_init',
  ]),
  ['static-tls', 'Memcheck:Param', 'set_robust_list(head)', 'fun:__tls_init_tp'],
  ['static-exit-lock', 'Memcheck:Cond', 'fun:__libc_cleanup_push_defer'],
  ['static-exit-unlock', 'Memcheck:Cond', 'fun:__libc_cleanup_pop_restore'],
]
  .map(([name, ...lines]) => `{\n   kiln-glibc-${name}\n${lines.map((l) => `   ${l}\n`).join('')}}\n`)
  .join('');

/** The file name of VALGRIND_SUPPRESSIONS beside a binary valgrind runs. */
export const VALGRIND_SUPPRESSIONS_FILE = 'kiln-valgrind.supp';

/** The first memcheck error in valgrind's output (`==PID== Invalid read of size 4` and its `at …(prog.c:5)` frames). */
export function parseValgrind(stderr: string, sources: readonly string[]): ToolReport | undefined {
  const lines = stderr.split('\n').map((l) => l.replace(/^==\d+==\s?/, ''));
  const i = lines.findIndex((l) => MEMCHECK_ERROR.test(l));
  if (i < 0) return undefined;
  const heading = lines[i]!.trim();
  const end = lines.findIndex((l, j) => j > i && l.trim() === '');
  const body = lines.slice(i, end < 0 ? undefined : end).join('\n');
  return {
    tool: 'valgrind',
    kind: valgrindKind(heading, body),
    ...firstSourceLocation(body, sources),
    message: `valgrind: ${heading}`,
  };
}

/** Classifies a Frama-C Eva alarm (`signed overflow. assert …`) by its heading, else by its assertion. */
function evaKind(message: string): UBKind {
  const head = message.split(/\bassert\b/)[0]!;
  const byHead = head !== message ? evaKindOf(head) : 'other';
  return byHead !== 'other' ? byHead : evaKindOf(message);
}

function evaKindOf(message: string): UBKind {
  if (/signed overflow/.test(message)) return 'signed-overflow';
  if (/shift/.test(message)) return 'shift';
  if (/division by zero/.test(message)) return 'division-by-zero';
  if (/uninitialized|initialized\(/.test(message)) return 'uninitialised-read';
  if (/escaping addresses|dangling/.test(message)) return 'dangling';
  if (/multiple accesses|separated\(/.test(message)) return 'unsequenced';
  if (/out of bounds|\\valid(?:_read)?\(/.test(message)) return 'out-of-bounds';
  if (/float.* to int|overflow in conversion|non-finite/.test(message)) return 'invalid-conversion';
  return 'other';
}

/**
 * The first alarm of a Frama-C Eva analysis. Eva prints `[eva:alarm] prog.c:5: Warning: ` and, on
 * the same or the next line, what it found; kernel warnings (syntactic, such as "unspecified
 * sequence") are not alarms and do not count. An alarm whose assertion Eva later proves
 * (`prog.c:5: assertion 'Eva,separation' got final status valid.`, as it does for accesses to two
 * fields of one struct under `-unspecified-access`) is no report either, and neither is a
 * separation alarm between an array element and a sub-array holding it (see
 * `subarraySeparation`), given the checked files' text in `sources`.
 */
export function parseEva(
  output: string,
  sources: readonly string[] = [],
  opts: EvaFilter = {},
): ToolReport | undefined {
  return evaAlarms(output, sources, opts).report;
}

/** One `[eva:alarm]` of an Eva run's output: where, and its text on one line (`… assert …;`). */
export interface EvaAlarm {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** Every `[eva:alarm]` in an Eva run's output, in order. */
export function evaAlarmList(output: string): EvaAlarm[] {
  return [...output.matchAll(/\[eva:alarm\] ([^:\n]+):(\d+): Warning:[ \t]*([^\n]*)((?:\n[ \t]+[^\n]*)*)/g)].map(
    (m) => ({
      file: baseName(m[1]!),
      line: Number(m[2]),
      text: `${m[3]!} ${m[4]!}`.trim().replace(/\s+/g, ' ') || 'alarm',
    }),
  );
}

/** The key of one alarm in `EvaFilter.notRun` and `EvaFilter.holds`: its place and its words. */
export function evaAlarmKey(a: { readonly file?: string; readonly line?: number; readonly message: string }): string {
  return `${a.file ?? ''}:${a.line ?? 0}:${a.message}`;
}

/** An alarm's assertion as the red-status CSV prints it, without spaces: `\separated(&g,&g)`. */
function assertionOf(text: string): string | undefined {
  const m = /\bassert (.*?);?\s*$/.exec(text);
  return m ? m[1]!.replace(/\s+/g, '') : undefined;
}

/**
 * parseEva's reading, plus the lines where a dropped sub-array separation alarm got Eva's final
 * status `invalid`: Eva then believes every state there is undefined and analyses nothing after it
 * on that path, so a clean verdict is only partial (a known Frama-C false alarm on arrays of
 * arrays). Every filter judges one alarm, never its whole line: a line may hold several
 * statements, and several alarms.
 */
export function evaAlarms(
  output: string,
  sources: readonly string[] = [],
  opts: EvaFilter = {},
): { report?: ToolReport; cutAt: EvaCut[]; dismissed: string[] } {
  const dismissed: string[] = [];
  const validAt = new Map<string, number>();
  const invalid = new Set<string>();
  for (const m of output.matchAll(/\[eva\] ([^:\n]+):(\d+): assertion 'Eva,[^']*' got final status (valid|invalid)/g)) {
    const key = `${baseName(m[1]!)}:${m[2]}`;
    if (m[3] === 'valid') validAt.set(key, (validAt.get(key) ?? 0) + 1);
    else invalid.add(key);
  }
  const alarms = evaAlarmList(output);
  const alarmsAt = new Map<string, number>();
  for (const a of alarms) alarmsAt.set(`${a.file}:${a.line}`, (alarmsAt.get(`${a.file}:${a.line}`) ?? 0) + 1);
  // Proven later: the red-status list names the property; else only when every alarm of the line
  // got the final status valid (the message does not say which one did).
  const proven = (a: EvaAlarm): boolean => {
    const at = `${a.file}:${a.line}`;
    return (
      opts.valid?.has(`${at}:${assertionOf(a.text) ?? ''}`) === true ||
      (validAt.get(at) ?? 0) >= (alarmsAt.get(at) ?? 0)
    );
  };
  const cutAt: EvaCut[] = [];
  for (const a of alarms) {
    const { file, line, text: message } = a;
    const at = `${file}:${line}`;
    if (proven(a)) continue;
    const kind = evaKind(message);
    const cut = { file, line, alarm: message };
    if (kind === 'unsequenced' && subarraySeparation(message, sources)) {
      if (invalid.has(at)) cutAt.push(cut);
      continue;
    }
    // Not invalid in any state Eva computed: its abstraction could not prove the property (an
    // `unknown` status), which on these programs is imprecision, not evidence.
    if (opts.red && !opts.red.has(at)) {
      dismissed.push(`${at} (${kind}, unknown status)`);
      continue;
    }
    const text = opts.files?.get(file);
    const sites = text !== undefined ? alarmStatements(text, line, message) : [];
    if (
      kind === 'unsequenced' &&
      text !== undefined &&
      sites.length > 0 &&
      sites.every((s) => innerSequencePoint(text, s))
    ) {
      dismissed.push(`${at} (unsequenced, across a sequence point)`);
      // Red with status invalid, it ended Eva's path there: what follows went unchecked.
      if (invalid.has(at)) cutAt.push(cut);
      continue;
    }
    const report: ToolReport = { tool: 'eva', kind, file, line, message: `Frama-C Eva: ${message}` };
    if (opts.notRun?.has(evaAlarmKey(report))) {
      dismissed.push(`${at} (${kind}, on a statement or operand the run never evaluated)`);
      if (kind === 'unsequenced' && invalid.has(at)) cutAt.push(cut);
      continue;
    }
    const holds = opts.holds?.get(evaAlarmKey(report));
    if (holds !== undefined) {
      dismissed.push(`${at} (${kind}, ${holds})`);
      continue;
    }
    if (opts.ruledOut?.has(kind)) {
      dismissed.push(`${at} (${kind}, ruled out by a clean run that checks it)`);
      continue;
    }
    return { report, cutAt, dismissed };
  }
  return { cutAt, dismissed };
}

/** A dismissed unsequenced alarm that got Eva's final status invalid: Eva's path ended there. */
export interface EvaCut {
  readonly file: string;
  readonly line: number;
  /** The alarm's text, which tells the statements of the line it can be about (`alarmStatements`). */
  readonly alarm: string;
}

/** What `evaAlarms` can check an alarm against. */
export interface EvaFilter {
  /**
   * `file:line` of Eva's red properties (`-eva-report-red-statuses`: invalid in at least one
   * state). When given, only red alarms count: an alarm with an unknown status everywhere is
   * Eva's imprecision (measured: 7 of 13 UB-free Kiln programs with an alarm had only such ones).
   */
  readonly red?: ReadonlySet<string>;
  /**
   * The checked files' text by base name: unsequenced alarms across a sequence point are dismissed (see
   * `innerSequencePoint`).
   */
  readonly files?: ReadonlyMap<string, string>;
  /**
   * Kinds an earlier tool checked exactly on the program's one path and found absent (UBSan's
   * signed overflow, shift and division checks): a red alarm of such a kind comes from a state on
   * a path the program never takes (measured: 1 of 30 UB-free Kiln programs, a shift behind an
   * if Eva could not decide).
   */
  readonly ruledOut?: ReadonlySet<UBKind>;
  /**
   * `file:line:property` (the property without spaces) of the red list's properties whose final
   * status is valid: Eva proved them after raising the alarm. Else an alarm counts as proven only
   * when every alarm of its line got the final status valid.
   */
  readonly valid?: ReadonlySet<string>;
  /**
   * Alarms (`evaAlarmKey`) that a probe build showed the run never evaluates at any statement of
   * their line they can be about (see `alarmStatements`): the statement never ran, or its writes
   * (an unsequenced alarm) or its accesses (another alarm) sit in conditionally evaluated operands
   * that never ran. Eva's checks ignore short-circuits and paths the run never takes.
   */
  readonly notRun?: ReadonlySet<string>;
  /**
   * Alarms (`evaAlarmKey`) whose assertion a probe build showed holding in the real state at every
   * access of every statement they can be about (see check.ts, `probeAssertion`), with what it showed.
   */
  readonly holds?: ReadonlyMap<string, string>;
}

/** The `file:line` keys of a `-eva-report-red-statuses` CSV (tab-separated, with a header line). */
export function parseRedStatuses(csv: string): Set<string> {
  const out = new Set<string>();
  for (const line of csv.split('\n').slice(1)) {
    const cols = line.split('\t');
    if (cols.length >= 3 && /^\d+$/.test(cols[2]!)) out.add(`${baseName(cols[1]!)}:${cols[2]}`);
  }
  return out;
}

/** The `file:line:property` keys of the red list's properties whose final status is valid (`EvaFilter.valid`). */
export function parseValidProperties(csv: string): Set<string> {
  const out = new Set<string>();
  const head = csv.split('\n')[0]?.split('\t') ?? [];
  const status = head.indexOf('status');
  const property = head.indexOf('property');
  if (status < 0 || property < 0) return out;
  for (const line of csv.split('\n').slice(1)) {
    const cols = line.split('\t');
    if (cols.length > Math.max(status, property) && /^\d+$/.test(cols[2]!) && /^valid$/i.test(cols[status]!.trim()))
      out.add(`${baseName(cols[1]!)}:${cols[2]}:${cols[property]!.replace(/\s+/g, '')}`);
  }
  return out;
}

/**
 * True when every pair an unsequenced-access alarm's assertion separates holds a sub-array (an
 * array-typed lvalue: a row, an array member, Eva's row cast): typically an element from the
 * sub-array that holds it, such as `\separated(&g_2[5][3][0], &g_2[5])` for `g_2[5][5][0] &= (g_2[5][3][0]
 * ^= 5)`. Eva counts the sub-array `g_2[5]`, a step of the written lvalue's address computation, as
 * an access; but C never reads or writes an array as a whole, and the two elements are distinct
 * objects, so there is no unsequenced access (measured: Kiln programs whose interpreter, ASan,
 * MSan, UBSan and valgrind agree are UB-free get this alarm). The prefix must name an array by
 * declaration: every declaration of the name in `sources` has more dimensions than the prefix has
 * indices (a pointer or a struct element could be written as a whole, and is kept as an alarm).
 */
export function subarraySeparation(text: string, sources: readonly string[]): boolean {
  const sep = /\\separated\((.*)\)/.exec(text);
  if (!sep || sources.length === 0) return false;
  const args = splitTopLevel(sep[1]!).map((a) => a.replace(/\s+/g, ''));
  // `&lvalue`, or Eva's cast of an array to a pointer to its first row, `(int64_t(*)[9])g_3`,
  // which designates the sub-array `g_3[0]`.
  const lvals = args.map((a) => {
    if (a.startsWith('&')) return a.slice(1);
    const row = /^\([A-Za-z_]\w*\(\*\)(?:\[\d+\])+\)([A-Za-z_]\w*)$/.exec(a);
    return row ? `${row[1]}[0]` : undefined;
  });
  if (lvals.length < 2) return false;
  // Every pair must hold a sub-array: it is never accessed as a whole, so the pair cannot
  // conflict, whatever the other side is (an element of it or not, a pointer). A real conflict
  // with one of its elements is a pair of its own in the assertion (Eva lists `&a[1]`).
  // An lvalue is a name or a member path (`p_4.f4`), then indices; the sub-array check looks up
  // the declarations of the last name (a struct member's, for a path).
  const base = (l: string): string | undefined => /^([A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*)(?:\[|$)/.exec(l)?.[1];
  const subarray = (l: string): boolean => {
    const m = /^((?:[A-Za-z_]\w*(?:\.|->))*)([A-Za-z_]\w*)((?:\[[^[\]]+\])*)$/.exec(l);
    if (!m) return false;
    // A member is looked up in the struct its path leads to when the declarations say which
    // (`p_4.f4` with `struct S3 p_4`: S3's `f4`, not another struct's scalar `f4`); else in every
    // declaration of the name, which must all agree.
    const path = m[1]!.split(/\.|->/).filter((x) => x !== '');
    const scope = path.length > 0 ? memberScope(path, sources) : undefined;
    const ranks = declaredRanks(m[2]!, scope ?? sources);
    return ranks.length > 0 && ranks.every((r) => r > m[3]!.split('[').length - 1);
  };
  const isSub = lvals.map((l) => l !== undefined && base(l) !== undefined && subarray(l));
  for (let i = 0; i < lvals.length; i++) {
    for (let j = i + 1; j < lvals.length; j++) if (!isSub[i] && !isSub[j]) return false;
  }
  return true;
}

/**
 * The body of the struct or union that the member path `path` (a variable, then members) leads
 * to, as a one-element source list; undefined when the declarations do not tell (a name declared
 * with two struct types, a typedef, a body not found).
 */
function memberScope(path: readonly string[], sources: readonly string[]): string[] | undefined {
  let scope: readonly string[] = sources;
  for (const name of path) {
    const tags = new Set<string>();
    const decl = new RegExp(String.raw`\b(?:struct|union)\s+([A-Za-z_]\w*)\s*[\s*]*\b${name}\b\s*(?=[[;,)=])`, 'g');
    for (const src of scope) for (const d of src.matchAll(decl)) tags.add(d[1]!);
    if (tags.size !== 1) return undefined;
    const tag = [...tags][0]!;
    const body = aggregateBody(tag, sources);
    if (body === undefined) return undefined;
    scope = [body];
  }
  return [...scope];
}

/** The text between the braces of `struct TAG { … }` or `union TAG { … }` in `sources` (the first definition). */
function aggregateBody(tag: string, sources: readonly string[]): string | undefined {
  const head = new RegExp(String.raw`\b(?:struct|union)\s+${tag}\s*\{`, 'g');
  for (const src of sources) {
    for (const h of src.matchAll(head)) {
      let depth = 1;
      const from = h.index! + h[0].length;
      for (let i = from; i < src.length; i++) {
        if (src[i] === '{') depth++;
        else if (src[i] === '}' && --depth === 0) return `{${src.slice(from, i)}}`;
      }
    }
  }
  return undefined;
}

/**
 * The array ranks (number of `[…]`) of every simple declaration of `name` in `sources`, scalars
 * and pointers as 0 (so a name declared both ways is not taken for an array).
 */
function declaredRanks(name: string, sources: readonly string[]): number[] {
  const decl = new RegExp(
    String.raw`(?:^|[;{}(,])\s*` +
      String.raw`(?:(?:static|extern|const|volatile|register|signed|unsigned|long|short|struct|union|enum)\s+)*` +
      String.raw`(?!(?:return|else|case|goto|sizeof|do)\b)[A-Za-z_]\w*\s+\**\s*` +
      name +
      String.raw`\s*((?:\[[^\]]*\]\s*)*)(?=[;,)=])`,
    'gm',
  );
  const ranks: number[] = [];
  for (const src of sources) for (const m of src.matchAll(decl)) ranks.push(m[1]!.split('[').length - 1);
  return ranks;
}

/** Splits `a, f(b, c), d` at its top-level commas. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}
