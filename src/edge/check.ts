// `kiln check`: validates any C program for undefined behaviour the way CsmithEdge does (its
// §1.5): AddressSanitizer, then MemorySanitizer, then UBSan, then valgrind, then Frama-C's Eva,
// each where installed and applicable, stopping at the first report. Programs take no input and
// follow one path, so one run of each tool is a complete check of that path (Eva with full
// precision is as exact as an interpreter there).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { runProcess, SpawnError, type RunResult } from '../harness/process.js';
import {
  CHECK_TOOLS,
  evaAlarmKey,
  evaAlarmList,
  evaAlarms,
  type EvaCut,
  type EvaFilter,
  parseRedStatuses,
  parseValidProperties,
  parseAsan,
  parseMsan,
  parseUbsan,
  parseValgrind,
  VALGRIND_SUPPRESSIONS,
  VALGRIND_SUPPRESSIONS_FILE,
  type CheckTool,
  type UBKind,
  type ToolReport,
} from './reports.js';
import {
  alarmStatements,
  assertionBase,
  conditionalOperandsMentioning,
  conditionalWriteOperands,
  objectsInScope,
  splitSequencePoints,
  statementExpressions,
  usesOf,
  type OperandRange,
  type StatementSite,
} from './seqpoint.js';

/** Compilers, flags and limits of a check. */
export interface CheckOptions {
  /** Which tools to run (default all, in CsmithEdge's order). */
  readonly tools?: readonly CheckTool[];
  /** The clang driver for the sanitizers (default `clang`). */
  readonly clang?: string;
  /** The gcc driver for the plain build that valgrind runs (default `gcc`; clang if gcc is missing). */
  readonly gcc?: string;
  /** Extra compiler flags for every build (includes, macros, `-std=`). */
  readonly cflags?: readonly string[];
  /** Limit of the plain run that decides whether the program terminates (default 10 s). */
  readonly runTimeoutMs?: number;
  /** Limit of each sanitizer and valgrind run (default 120 s; they are 2–50× slower than a plain run). */
  readonly toolTimeoutMs?: number;
  /** Limit of Frama-C's Eva (default 300 s, CsmithEdge's). */
  readonly evaTimeoutMs?: number;
  /** Limit of each compile (default 120 s). */
  readonly compileTimeoutMs?: number;
}

/** What one tool did on one program. */
interface ToolRun {
  readonly tool: CheckTool;
  /**
   * `unavailable`: not installed or not applicable here; `failed`: the tool could not analyse the
   * program; `partial`: it finished without a report but left part of the program unchecked (Eva
   * past a statement where its analysis ended).
   */
  readonly status: 'clean' | 'ub' | 'unavailable' | 'timeout' | 'failed' | 'partial';
  readonly ms: number;
  readonly detail?: string;
}

/** Why a program could not be checked. */
type CheckErrorReason = 'does-not-compile' | 'does-not-terminate' | 'crashes-unexplained' | 'no-tool';

/** The verdict on one program. */
export type CheckResult =
  | { readonly verdict: 'clean'; readonly runs: readonly ToolRun[] }
  | { readonly verdict: 'ub'; readonly report: ToolReport; readonly runs: readonly ToolRun[] }
  /** No report, but a tool did not finish its check (timed out, failed, or left part unchecked): not clean. */
  | { readonly verdict: 'incomplete'; readonly message: string; readonly runs: readonly ToolRun[] }
  | {
      readonly verdict: 'error';
      readonly reason: CheckErrorReason;
      readonly message: string;
      readonly runs: readonly ToolRun[];
    };

/** Which tools work on this machine, found once and shared by every program checked. */
export interface ToolAvailability {
  /** Tool → null when usable, or why not. */
  readonly tools: ReadonlyMap<CheckTool, string | null>;
  /** The compiler of the plain build (gcc, or clang without gcc); null when neither works. */
  readonly plainCompiler: string | null;
}

const TRIVIAL = '#include <stdio.h>\nint main(void) { printf("ok\\n"); return 0; }\n';

/** Sanitizer flags of each clang build. Recovery is off so the first report ends the run. */
const SANITIZER_FLAGS: Record<'asan' | 'msan' | 'ubsan', readonly string[]> = {
  asan: ['-fsanitize=address', '-fno-omit-frame-pointer', '-fsanitize-address-use-after-scope'],
  msan: ['-fsanitize=memory', '-fsanitize-memory-track-origins', '-fno-omit-frame-pointer'],
  ubsan: ['-fsanitize=undefined', '-fno-sanitize-recover=undefined'],
};

/** Runtime options: no leak reports (leaks are not UB), use-after-return detection on, one report. */
const SANITIZER_ENV: Record<'asan' | 'msan' | 'ubsan', Record<string, string>> = {
  asan: { ASAN_OPTIONS: 'detect_leaks=0:detect_stack_use_after_return=1:halt_on_error=1' },
  msan: { MSAN_OPTIONS: 'halt_on_error=1' },
  ubsan: { UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1' },
};

async function tryRun(
  cmd: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
  env?: Record<string, string>,
): Promise<RunResult | null> {
  try {
    // PWD too: Frama-C resolves relative file names against $PWD, not the process's folder.
    return await runProcess(cmd, args, {
      cwd,
      timeoutMs,
      env: { LC_ALL: 'C', PWD: cwd, ...env },
      maxOutputBytes: 256 << 10,
    });
  } catch (e) {
    if (e instanceof SpawnError) return null;
    throw e;
  }
}

/** Builds and runs a trivial program with each tool, so a missing runtime is "unavailable", not a verdict. */
export async function probeTools(opts: CheckOptions = {}): Promise<ToolAvailability> {
  const clang = opts.clang ?? 'clang';
  const gcc = opts.gcc ?? 'gcc';
  const dir = await mkdtemp(join(tmpdir(), 'kiln-check-probe-'));
  const tools = new Map<CheckTool, string | null>();
  try {
    await writeFile(join(dir, 't.c'), TRIVIAL);
    const builds = async (
      cc: string,
      flags: readonly string[],
      exe: string,
      env?: Record<string, string>,
    ): Promise<string | null> => {
      const c = await tryRun(cc, ['-O0', '-g', ...flags, 't.c', '-o', exe], dir, 60_000);
      if (c === null) return `${cc} is not installed`;
      if (c.status !== 0) return `${cc} ${flags.join(' ')} cannot build a trivial program: ${firstLine(c.stderr)}`;
      const r = await tryRun(`./${exe}`, [], dir, 30_000, env);
      if (r === null || r.status !== 0 || r.stdout !== 'ok\n')
        return `a trivial program built with ${cc} ${flags.join(' ')} does not run`;
      return null;
    };
    let plainCompiler: string | null = null;
    for (const cc of [gcc, clang]) {
      if ((await builds(cc, [], `plain-${basename(cc)}`)) === null) {
        plainCompiler = cc;
        break;
      }
    }
    // Only the tools asked for: each sanitizer's probe is a build and a run, and `kiln reduce
    // --wrong-code` runs `kiln check --tools …` on every candidate. A tool not asked for is
    // unavailable with that reason, never taken as available unprobed.
    const wanted = new Set<CheckTool>(opts.tools ?? CHECK_TOOLS);
    const notAsked = 'not probed: not among the tools asked for';
    for (const t of ['asan', 'msan', 'ubsan'] as const)
      tools.set(t, wanted.has(t) ? await builds(clang, SANITIZER_FLAGS[t], t, SANITIZER_ENV[t]) : notAsked);
    if (!wanted.has('valgrind')) tools.set('valgrind', notAsked);
    else if (plainCompiler === null) tools.set('valgrind', 'no C compiler builds a trivial program');
    else {
      const v = await tryRun('valgrind', ['--version'], dir, 30_000);
      tools.set('valgrind', v !== null && v.status === 0 ? null : 'valgrind is not installed');
    }
    if (!wanted.has('eva')) tools.set('eva', notAsked);
    else {
      const f = await tryRun('frama-c', ['-version'], dir, 60_000);
      tools.set('eva', f !== null && f.status === 0 ? null : 'frama-c is not installed (Debian package frama-c-base)');
    }
    return { tools, plainCompiler };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function firstLine(s: string): string {
  return (
    s
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 300) ?? ''
  );
}

/** The first line of a compiler's diagnostics that names an error. */
function firstError(stderr: string): string {
  const line = stderr.split('\n').find((l) => /\berror\b/.test(l));
  return (line ?? firstLine(stderr)).trim().slice(0, 300);
}

/** One sanitizer build and run: its report, or a non-UB status. */
async function sanitizerRun(
  tool: 'asan' | 'msan' | 'ubsan',
  dir: string,
  names: readonly string[],
  clang: string,
  o: Required<Pick<CheckOptions, 'cflags' | 'toolTimeoutMs' | 'compileTimeoutMs'>>,
): Promise<{ run: Omit<ToolRun, 'ms'>; report?: ToolReport }> {
  const exe = `kiln-${tool}`;
  const c = await tryRun(
    clang,
    ['-O0', '-g', '-w', ...o.cflags, ...SANITIZER_FLAGS[tool], ...names, '-o', exe],
    dir,
    o.compileTimeoutMs,
  );
  if (c === null || c.status !== 0)
    return {
      run: {
        tool,
        status: 'failed',
        detail: c === null ? `${clang} is not installed` : `build failed: ${firstError(c.stderr)}`,
      },
    };
  const r = await tryRun(`./${exe}`, [], dir, o.toolTimeoutMs, SANITIZER_ENV[tool]);
  if (r === null) return { run: { tool, status: 'failed', detail: 'the sanitized program cannot be started' } };
  const parse = tool === 'asan' ? parseAsan : tool === 'msan' ? parseMsan : parseUbsan;
  const report = parse(r.stderr, names);
  if (report) return { run: { tool, status: 'ub' }, report };
  if (r.timedOut) return { run: { tool, status: 'timeout', detail: `no report within ${o.toolTimeoutMs / 1000} s` } };
  return { run: { tool, status: 'clean' } };
}

/**
 * Checks one program (one or more translation units, all given as paths) for undefined behaviour
 * on its executed path. The plain build must compile and terminate first; then the tools run in
 * order and the first report is the verdict.
 */
export async function checkProgram(
  sources: readonly string[],
  avail: ToolAvailability,
  opts: CheckOptions = {},
): Promise<CheckResult> {
  const o = {
    cflags: opts.cflags ?? [],
    runTimeoutMs: opts.runTimeoutMs ?? 10_000,
    toolTimeoutMs: opts.toolTimeoutMs ?? 120_000,
    evaTimeoutMs: opts.evaTimeoutMs ?? 300_000,
    compileTimeoutMs: opts.compileTimeoutMs ?? 120_000,
  };
  const wanted = opts.tools ?? CHECK_TOOLS;
  const clang = opts.clang ?? 'clang';
  const runs: ToolRun[] = [];
  if (avail.plainCompiler === null)
    return {
      verdict: 'error',
      reason: 'no-tool',
      message: 'no C compiler (gcc or clang) builds a trivial program here',
      runs,
    };
  const dir = await mkdtemp(join(tmpdir(), 'kiln-check-'));
  try {
    const names: string[] = [];
    for (const s of sources) {
      const name = basename(s);
      await writeFile(join(dir, name), await readFile(s));
      names.push(name);
    }
    // The plain build: does the program compile, and does it terminate?
    const c = await tryRun(
      avail.plainCompiler,
      ['-O0', '-g', '-w', ...o.cflags, ...names, '-o', 'kiln-plain'],
      dir,
      o.compileTimeoutMs,
    );
    if (c === null || c.status !== 0 || c.timedOut) {
      const why =
        c === null
          ? `${avail.plainCompiler} cannot be run`
          : c.timedOut
            ? `the compiler did not finish within ${o.compileTimeoutMs / 1000} s`
            : firstError(c.stderr);
      return {
        verdict: 'error',
        reason: 'does-not-compile',
        message: `does not compile with ${avail.plainCompiler} -O0: ${why}`,
        runs,
      };
    }
    const plain = await tryRun('./kiln-plain', [], dir, o.runTimeoutMs);
    if (plain?.timedOut)
      return {
        verdict: 'error',
        reason: 'does-not-terminate',
        message: `does not terminate within ${o.runTimeoutMs / 1000} s (built with ${avail.plainCompiler} -O0)`,
        runs,
      };
    const crashed = plain !== null && (plain.signal !== null || (plain.status !== null && plain.status >= 128));

    let ran = 0;
    for (const tool of wanted) {
      const why = avail.tools.get(tool);
      if (why !== null && why !== undefined) {
        runs.push({ tool, status: 'unavailable', ms: 0, detail: why });
        continue;
      }
      const t0 = Date.now();
      let res: { run: Omit<ToolRun, 'ms'>; report?: ToolReport };
      if (tool === 'asan' || tool === 'msan' || tool === 'ubsan') res = await sanitizerRun(tool, dir, names, clang, o);
      else if (tool === 'valgrind') res = await valgrindRun(dir, names, o.toolTimeoutMs);
      else {
        // The program has one path, and a clean UBSan run checked these kinds on all of it.
        const ubsanClean = runs.some((r) => r.tool === 'ubsan' && r.status === 'clean');
        const cc = avail.plainCompiler;
        const valgrindClean = runs.some((r) => r.tool === 'valgrind' && r.status === 'clean');
        const probe: OperandProbe = async (file, text, ops) =>
          cc === null ? undefined : probeOperands(dir, names, file, text, ops, cc, o);
        const held: AssertionProbe = async (file, text, sites, message) =>
          cc === null ? undefined : probeAssertion(dir, names, file, text, sites, message, cc, o, valgrindClean);
        res = await evaRun(dir, names, o.cflags, o.evaTimeoutMs, ubsanClean ? UBSAN_EXACT : new Set(), probe, held);
      }
      runs.push({ ...res.run, ms: Date.now() - t0 });
      if (res.run.status !== 'failed') ran++;
      if (res.report) return { verdict: 'ub', report: res.report, runs };
    }
    if (ran === 0)
      return {
        verdict: 'error',
        reason: 'no-tool',
        message: `no UB detector could check it (${runs.map((r) => `${r.tool}: ${r.detail ?? r.status}`).join('; ')})`,
        runs,
      };
    if (crashed) {
      const how = plain!.signal ?? `status ${plain!.status}`;
      return {
        verdict: 'error',
        reason: 'crashes-unexplained',
        message: `the program crashes (${how}) but no tool reports undefined behaviour`,
        runs,
      };
    }
    // Clean only when every tool that could run finished its check and found nothing: a tool
    // that timed out or failed may have stopped before the UB (Eva at its limit reports nothing).
    const unfinished = runs.filter((r) => r.status === 'timeout' || r.status === 'failed' || r.status === 'partial');
    if (unfinished.length > 0)
      return {
        verdict: 'incomplete',
        message: unfinished
          .map(
            (r) =>
              `${r.tool} ` +
              `${r.status === 'partial' ? 'partial' : r.status === 'timeout' ? 'timed out' : 'failed'}` +
              `${r.detail ? `: ${r.detail}` : ''}`,
          )
          .join('; '),
        runs,
      };
    return { verdict: 'clean', runs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * For each group of operands of `file`, whether the program's run evaluates any of them
 * (undefined: the probe cannot tell).
 */
type OperandProbe = (
  file: string,
  text: string,
  groups: readonly (readonly OperandRange[])[],
) => Promise<boolean[] | undefined>;

/**
 * Builds the program with each operand wrapped in a call that reports its group on stderr, and
 * runs it: for each group, whether one of its operands was evaluated; undefined when the probe
 * cannot tell (the text moved, the build or the run failed). The wrapper adds a sequence point,
 * which does not change whether an operand runs. Operands may nest (a statement's expression and
 * an operand inside it).
 */
async function probeOperands(
  dir: string,
  names: readonly string[],
  file: string,
  text: string,
  groups: readonly (readonly OperandRange[])[],
  cc: string,
  o: Required<Pick<CheckOptions, 'cflags' | 'compileTimeoutMs' | 'runTimeoutMs'>>,
): Promise<boolean[] | undefined> {
  const edits: { at: number; text: string; order: number }[] = [];
  for (const [k, group] of groups.entries()) {
    for (const op of group) {
      if (text.slice(op.start, op.end) !== op.text) return undefined;
      // At one position: a closing before an opening, and a longer operand's opening before a
      // shorter one's (it encloses it).
      edits.push(
        { at: op.start, text: `(kiln_probe_hit(${k}), (`, order: -(op.end - op.start) },
        { at: op.end, text: '))', order: -1e9 },
      );
    }
  }
  // Applied from the end; at one position the edit applied last comes first in the text.
  edits.sort((a, b) => b.at - a.at || b.order - a.order);
  let probed = text;
  for (const e of edits) probed = probed.slice(0, e.at) + e.text + probed.slice(e.at);
  const r = await runProbe(dir, names, file, probed, '', cc, o, false);
  return r === undefined ? undefined : groups.map((_, k) => r.hits.has(k));
}

const PROBE_MARKER = 'KILN-PROBE-HIT';

/**
 * Builds the program with `file`'s text replaced by `probed` (which may call `kiln_probe_hit(k)`
 * and whatever `prelude` defines) at -O0 and runs it, under valgrind's memcheck when asked: the
 * groups it reported hit, and whether valgrind reported an error. Undefined when it cannot tell
 * (the build, the run or valgrind failed to finish).
 */
async function runProbe(
  dir: string,
  names: readonly string[],
  file: string,
  probed: string,
  prelude: string,
  cc: string,
  o: Required<Pick<CheckOptions, 'cflags' | 'compileTimeoutMs' | 'runTimeoutMs'>>,
  underValgrind: boolean,
): Promise<{ hits: Set<number>; valgrindError: boolean } | undefined> {
  const text =
    `#include <stdio.h>\n#include <stdint.h>\nstatic void kiln_probe_hit(int k) { fprintf(stderr, ` +
    `"\\n${PROBE_MARKER} %d\\n", k); }\n${prelude}${probed}`;
  const pdir = join(dir, 'kiln-probe');
  await mkdir(pdir, { recursive: true });
  try {
    for (const n of names) await writeFile(join(pdir, n), basename(n) === file ? text : await readFile(join(dir, n)));
    const c = await tryRun(
      cc,
      ['-O0', '-g', '-w', ...o.cflags, ...names, '-o', 'kiln-probe'],
      pdir,
      o.compileTimeoutMs,
    );
    if (c === null || c.status !== 0) return undefined;
    const r = underValgrind
      ? await tryRun(
          'valgrind',
          ['-q', '--vgdb=no', '--error-exitcode=99', '--exit-on-first-error=yes', '--track-origins=no', './kiln-probe'],
          pdir,
          o.runTimeoutMs * 10,
        )
      : await tryRun('./kiln-probe', [], pdir, o.runTimeoutMs);
    if (r === null || r.timedOut) return undefined;
    const hits = new Set([...r.stderr.matchAll(new RegExp(`${PROBE_MARKER} (\\d+)`, 'g'))].map((m) => Number(m[1])));
    return { hits, valgrindError: underValgrind && r.status === 99 };
  } finally {
    await rm(pdir, { recursive: true, force: true });
  }
}

/**
 * Why the run shows a red Eva alarm's assertion holds wherever the program makes the access it is
 * about, or undefined when no probe can tell. Eva's red status means the assertion fails in some
 * state of its over-approximation; on a program with one path, a probe of the real state settles
 * it (measured: 2 of 200 UB-free Kiln programs had such an alarm on a path the run never takes):
 * Every statement of the line the alarm can be about (`sites`) is probed, each against its own scope.
 * - `\valid_read(p)` or `\valid(p)` for a pointer variable `p`: each `*p` of the statement is
 *   built to check, just before the access, that `p` points with `sizeof *p` bytes inside one
 *   object in scope there (a file-scope variable, a parameter, a local of an enclosing block
 *   declared before it; not `const` for a write). Such an object is alive, so the access is
 *   valid; a pointer to anything else (the heap, another function's local) is not vouched for,
 *   and the alarm stands.
 * - `\initialized(&x)` for a variable `x`: each plain read of `x` in the statement is built to
 *   branch on its value and run under valgrind, which reports a branch on an uninitialised value
 *   (the program itself ran clean under valgrind before Eva, so any report is the probe's).
 */
type AssertionProbe = (
  file: string,
  text: string,
  sites: readonly StatementSite[],
  message: string,
) => Promise<string | undefined>;

async function probeAssertion(
  dir: string,
  names: readonly string[],
  file: string,
  text: string,
  sites: readonly StatementSite[],
  message: string,
  cc: string,
  o: Required<Pick<CheckOptions, 'cflags' | 'compileTimeoutMs' | 'runTimeoutMs'>>,
  valgrindClean: boolean,
): Promise<string | undefined> {
  const a = /assert \\(valid_read|valid|initialized)\((&?)([A-Za-z_]\w*)\);/.exec(message);
  if (!a || sites.length === 0) return undefined;
  const [, pred, amp, name] = a as unknown as [string, string, string, string];
  /** `text` with each range wrapped in a call made just before it is evaluated. */
  const wrap = (ranges: readonly { range: OperandRange; before: string }[]): string | undefined => {
    let out = text;
    for (const { range: r, before } of [...ranges].sort((x, y) => y.range.start - x.range.start)) {
      if (text.slice(r.start, r.end) !== r.text) return undefined;
      out = `${out.slice(0, r.start)}(${before}, (${r.text}))${out.slice(r.end)}`;
    }
    return out;
  };
  // Every statement the alarm can be about must show it: a use that cannot be probed leaves it standing.
  const wraps: { range: OperandRange; before: string }[] = [];
  if (pred === 'initialized') {
    if (amp !== '&' || !valgrindClean) return undefined;
    for (const site of sites) {
      const uses = usesOf(text, site, name, 'read');
      if (!uses) return undefined;
      for (const range of uses) wraps.push({ range, before: `kiln_probe_use(!!(${name}))` });
    }
    const probed = wrap(wraps);
    if (probed === undefined) return undefined;
    const prelude =
      'static volatile int kiln_probe_sink;\nstatic void kiln_probe_use(int v) { if (v) kiln_probe_sink++; }\n';
    const r = await runProbe(dir, names, file, probed, prelude, cc, o, true);
    return r === undefined || r.valgrindError ? undefined : `valgrind shows \`${name}\` initialised at each read there`;
  }
  if (amp === '&') return undefined;
  for (const site of sites) {
    const uses = usesOf(text, site, name, 'deref');
    const objects = objectsInScope(text, site).filter((x) => pred === 'valid_read' || !x.isConst);
    if (!uses || objects.length === 0) return undefined;
    const addrs = objects.map((x) => `(uintptr_t)&${x.name}`).join(', ');
    const sizes = objects.map((x) => `sizeof ${x.name}`).join(', ');
    for (const range of uses)
      wraps.push({
        range,
        before:
          `kiln_probe_within(0, (uintptr_t)(${name}), sizeof *(${name}), ${objects.length}, (const ` +
          `uintptr_t[]){${addrs}}, (const size_t[]){${sizes}})`,
      });
  }
  const probed = wrap(wraps);
  if (probed === undefined) return undefined;
  const prelude =
    'static void kiln_probe_within(int k, uintptr_t p, size_t n, int count, const uintptr_t *at, const ' +
    'size_t *size) {\n  for (int i = 0; i < count; i++) if (p >= at[i] && p + n <= at[i] + size[i]) return;\n' +
    '  kiln_probe_hit(k);\n}\n';
  const r = await runProbe(dir, names, file, probed, prelude, cc, o, false);
  return r === undefined || r.hits.size > 0
    ? undefined
    : `\`${name}\` points inside an object in scope at each access there`;
}

/**
 * The kinds UBSan (`-fsanitize=undefined`) checks at every evaluation, so a clean run rules them out on the program's
 * path.
 */
const UBSAN_EXACT: ReadonlySet<UBKind> = new Set<UBKind>(['signed-overflow', 'shift', 'division-by-zero']);

/** valgrind's memcheck on the plain `-O0 -g` build, stopping at its first error. */
async function valgrindRun(
  dir: string,
  names: readonly string[],
  timeoutMs: number,
): Promise<{ run: Omit<ToolRun, 'ms'>; report?: ToolReport }> {
  await writeFile(join(dir, VALGRIND_SUPPRESSIONS_FILE), VALGRIND_SUPPRESSIONS);
  const supp = `--suppressions=${VALGRIND_SUPPRESSIONS_FILE}`;
  const r = await tryRun(
    'valgrind',
    ['-q', '--vgdb=no', '--error-exitcode=99', '--exit-on-first-error=yes', '--track-origins=no', supp, './kiln-plain'],
    dir,
    timeoutMs,
  );
  if (r === null) return { run: { tool: 'valgrind', status: 'failed', detail: 'valgrind cannot be run' } };
  const report = parseValgrind(r.stderr, names);
  if (report) return { run: { tool: 'valgrind', status: 'ub' }, report };
  if (r.timedOut)
    return { run: { tool: 'valgrind', status: 'timeout', detail: `no report within ${timeoutMs / 1000} s` } };
  return { run: { tool: 'valgrind', status: 'clean' } };
}

/**
 * Frama-C's Eva at full precision on x86-64, with unsequenced-access checks on. Kernel warnings
 * (syntactic notes) are not alarms; a program Frama-C cannot parse is `failed`, not UB.
 */
async function evaRun(
  dir: string,
  names: readonly string[],
  cflags: readonly string[],
  timeoutMs: number,
  ruledOut: ReadonlySet<UBKind>,
  probe: OperandProbe,
  held: AssertionProbe,
): Promise<{ run: Omit<ToolRun, 'ms'>; report?: ToolReport }> {
  const cpp = cflags.filter((f) => /^-(?:I|D|U)/.test(f));
  const base = [
    '-eva',
    '-eva-no-show-progress',
    '-eva-precision',
    '11',
    '-machdep',
    'x86_64',
    ...(cpp.length > 0 ? ['-cpp-extra-args', cpp.join(' ')] : []),
    ...names,
  ];
  const sources = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8').catch(() => '')));
  // Eva ends its path at an unsequenced alarm with status invalid, even one Kiln does not count
  // (on a sub-array, across a sequence point, in an operand the run never evaluates): what follows
  // on that path goes unchecked. Split each such statement at its sequence points, and its
  // assignments so that a right operand that writes is evaluated first (`splitSequencePoints`):
  // the same evaluations, on the same lines, with only the pairs the dismissed alarm was about
  // ordered; and analyse again, a few times. Measured: 4 of 50 unsequenced-on-purpose programs
  // had their UB after such a line, and went unreported.
  let texts = sources;
  const split = new Set<string>();
  // The first analysis has the whole limit; the splits' analyses and the fallback share one more
  // (as the first and the fallback analysis did before splits existed).
  let deadline = Infinity;
  let partial: { run: Omit<ToolRun, 'ms'> } | undefined;
  let cutLine = 0;
  const left = (): number => (deadline === Infinity ? timeoutMs : deadline - Date.now());
  // No way past the cut: analyse again without the unsequenced-access check, so the other kinds
  // are checked past that point; the verdict says what stays unchecked.
  const withoutSequencing = async (): Promise<{ run: Omit<ToolRun, 'ms'>; report?: ToolReport }> => {
    if (left() < 1000) return partial!;
    const second = await evaOnce(dir, base, names, sources, left(), ruledOut, probe, held);
    if (second.report || (second.run.status !== 'clean' && second.run.status !== 'timeout')) return second;
    if (second.run.status === 'timeout') return partial!;
    return {
      run: {
        tool: 'eva',
        status: 'partial',
        detail:
          `unsequenced accesses not checked after line ${cutLine} (an unsequenced alarm Kiln does not count, ` +
          `on a sub-array, a write a sequence point orders or one in an operand the run never evaluated, ended ` +
          `Eva's path there)`,
      },
    };
  };
  for (let round = 0; ; round++) {
    if (round > 0 && left() < 1000) return partial!;
    // Alarms are judged, and probes built, on the program as given: the split keeps its lines,
    // and tree-sitter-c does not parse statement expressions.
    const first = await evaOnce(dir, ['-unspecified-access', ...base], names, sources, left(), ruledOut, probe, held);
    if (round === 0) deadline = Date.now() + timeoutMs;
    if (split.size > 0 && (first.run.status === 'failed' || first.run.status === 'timeout')) {
      // A split Frama-C does not take (a `?:` of type void, say), or one it could not finish:
      // back to the program as given, and what the last finished analysis showed, with the other
      // kinds checked past the cut when there is time.
      for (const [i, n] of names.entries()) await writeFile(join(dir, n), sources[i]!);
      return first.run.status === 'failed' ? withoutSequencing() : partial!;
    }
    const done = (): { run: Omit<ToolRun, 'ms'>; report?: ToolReport } => {
      if (split.size === 0 || first.report || first.run.status !== 'clean') return first;
      const note =
        `${split.size} statement${split.size === 1 ? '' : 's'} split at the sequence points of an unsequenced ` +
        `alarm Kiln does not count`;
      return { run: { ...first.run, detail: first.run.detail ? `${first.run.detail}; ${note}` : note } };
    };
    if (first.report || first.run.status !== 'clean') return done();
    // Frama-C 25 also ends a path at some unsequenced alarms it then gives the status valid (a
    // write to an array member beside one to another member, measured): when main never
    // returns in Eva's analysis, every unsequenced alarm's statement is split too.
    const targets = [...first.cutAt, ...(first.mainEnded ? [] : first.sequencedAt)].filter(
      (c) => !split.has(`${c.file}:${c.line}`),
    );
    if (targets.length === 0 && first.cutAt.length === 0) return done();
    cutLine = Math.min(...(first.cutAt.length > 0 ? first.cutAt : targets).map((c) => c.line));
    partial = {
      run: {
        tool: 'eva',
        status: 'partial',
        detail:
          `Eva's analysis ended at line ${cutLine} (at an unsequenced alarm Kiln does not count, on a ` +
          `sub-array, a write a sequence point orders or one in an operand the run never evaluated); what ` +
          `follows it was not checked by Eva`,
      },
    };
    const next = [...texts];
    let changed = false;
    if (round < 6) {
      // Once per line, the statements its alarms are about; only when each alarm names one
      // statement: splitting another statement of the line could take a real unsequenced pair
      // out of Eva's sight.
      const byLine = new Map<string, EvaCut[]>();
      for (const c of targets) byLine.set(`${c.file}:${c.line}`, [...(byLine.get(`${c.file}:${c.line}`) ?? []), c]);
      for (const [key, cuts] of byLine) {
        const i = names.findIndex((n) => basename(n) === cuts[0]!.file);
        if (i < 0 || split.has(key)) continue;
        const sites = cuts.map((c) => alarmStatements(next[i]!, c.line, c.alarm));
        if (sites.some((x) => x.length !== 1)) continue;
        const unique = [...new Map(sites.map((x) => [x[0]!.start, x[0]!] as const)).values()];
        const out = splitSequencePoints(next[i]!, unique, split.size);
        if (out === undefined) continue;
        next[i] = out;
        split.add(key);
        changed = true;
      }
    }
    if (!changed) {
      if (first.cutAt.length > 0) return withoutSequencing();
      // Main never returned in Eva's analysis and an unsequenced alarm's statement was left as it
      // is (it can be about two statements of its line, or the rounds ran out): what follows it
      // on that path went unchecked.
      return targets.length > 0 ? partial! : done();
    }
    // In place: the folder is checkProgram's own copy and Eva is the last tool (a probe build
    // writes the probed file as given, beside the others as they are).
    for (const [i, n] of names.entries()) if (next[i] !== texts[i]) await writeFile(join(dir, n), next[i]!);
    texts = next;
  }
}

/** One Eva analysis: its verdict, and where unsequenced alarms Kiln did not count may have ended its paths. */
interface EvaPass {
  run: Omit<ToolRun, 'ms'>;
  report?: ToolReport;
  /** Dismissed unsequenced alarms with the final status invalid. */
  cutAt: EvaCut[];
  /** Every unsequenced alarm, whatever its status. */
  sequencedAt: EvaCut[];
  /** Whether the analysis reached the end of main. */
  mainEnded: boolean;
}

/** One Frama-C Eva analysis. */
async function evaOnce(
  dir: string,
  args: readonly string[],
  names: readonly string[],
  sources: readonly string[],
  timeoutMs: number,
  ruledOut: ReadonlySet<UBKind>,
  probe: OperandProbe,
  held: AssertionProbe,
): Promise<EvaPass> {
  const redFile = 'kiln-eva-red.csv';
  await rm(join(dir, redFile), { force: true });
  const r = await tryRun('frama-c', [...args, '-eva-report-red-statuses', redFile], dir, timeoutMs);
  if (r === null)
    return {
      run: { tool: 'eva', status: 'failed', detail: 'frama-c cannot be run' },
      cutAt: [],
      sequencedAt: [],
      mainEnded: true,
    };
  const out = r.stdout + r.stderr;
  const sequencedAt = evaAlarmList(out)
    .filter((a) => /^undefined multiple accesses/.test(a.text))
    .map((a) => ({ file: a.file, line: a.line, alarm: a.text }));
  const mainEnded = !/Values at end of function main:\s*\n\s*NON TERMINATING FUNCTION/.test(out);
  // An unfinished analysis has given its alarms no status: none is evidence (only red ones
  // count), so a timeout is no verdict. Measured: a UB-free Kiln program whose Eva run timed out
  // under load had an alarm on a pointer Eva had not yet narrowed down.
  if (r.timedOut)
    return {
      run: { tool: 'eva', status: 'timeout', detail: `no verdict within ${timeoutMs / 1000} s` },
      cutAt: [],
      sequencedAt: [],
      mainEnded: true,
    };
  // Written when the analysis completes; without it, every alarm seen counts.
  const csv = await readFile(join(dir, redFile), 'utf8').catch(() => undefined);
  const red = csv === undefined ? undefined : parseRedStatuses(csv);
  const valid = csv === undefined ? undefined : parseValidProperties(csv);
  const files = new Map(names.map((n, i) => [basename(n), sources[i] ?? ''] as const));
  // The program has one path: an alarm on a statement its run never reaches is a state of Eva's
  // over-approximation (measured: a red out-of-bounds and a red unsequenced alarm on statements
  // two UB-free programs never ran), and so is an unsequenced alarm whose statement writes only
  // in conditional operands the run never evaluates, or another alarm whose accesses all sit in
  // such operands. A probe build tells; a dismissed alarm is
  // dropped and the reading repeated (the next alarm may be another such one).
  const notRun = new Set<string>();
  const holds = new Map<string, string>();
  const probed = new Set<string>();
  const filter = (): EvaFilter => ({
    ...(red ? { red } : {}),
    ...(valid ? { valid } : {}),
    files,
    ruledOut,
    notRun,
    holds,
  });
  let alarms = evaAlarms(out, sources, filter());
  for (let u = alarms.report; u !== undefined && u.file !== undefined && u.line !== undefined; u = alarms.report) {
    // One alarm at a time: a line may hold several statements, and the alarm is dismissed only
    // when the reason holds at each statement of the line it can be about.
    const key = evaAlarmKey(u);
    const text = files.get(u.file);
    if (probed.has(key) || text === undefined || probed.size >= 20) break;
    probed.add(key);
    const sites = alarmStatements(text, u.line, u.message);
    if (sites.length === 0) break;
    // Is each statement reached at all, and are its conditionally evaluated writes (an
    // unsequenced alarm) or the conditional operands holding every access the alarm is about?
    const variables = [assertionBase(u.message)].filter((v): v is string => v !== undefined);
    const checks = sites.map((site) => ({
      full: statementExpressions(text, site),
      ops:
        u.kind === 'unsequenced'
          ? conditionalWriteOperands(text, site)
          : conditionalOperandsMentioning(text, site, variables),
    }));
    const groups = checks.flatMap((c) => [c.full, c.ops ?? []]);
    const ran = groups.some((g) => g.length > 0) ? await probe(u.file, text, groups) : undefined;
    const live =
      ran === undefined
        ? sites
        : sites.filter(
            (_, k) =>
              !((checks[k]!.full.length > 0 && !ran[2 * k]) || (checks[k]!.ops !== undefined && !ran[2 * k + 1])),
          );
    if (live.length === 0) notRun.add(key);
    else {
      // Reached, and the access made: does the real state there meet the assertion?
      const why = await held(u.file, text, live, u.message);
      if (why === undefined) break;
      holds.set(key, why);
    }
    alarms = evaAlarms(out, sources, filter());
  }
  const { report, cutAt, dismissed } = alarms;
  if (!report && dismissed.length > 0 && r.status === 0 && !r.timedOut) {
    return {
      run: {
        tool: 'eva',
        status: 'clean',
        detail:
          `${dismissed.length} alarm${dismissed.length === 1 ? '' : 's'} not ` +
          `counted: ${dismissed.slice(0, 3).join('; ')}`,
      },
      cutAt,
      sequencedAt,
      mainEnded,
    };
  }
  if (report) return { run: { tool: 'eva', status: 'ub' }, report, cutAt, sequencedAt, mainEnded };
  if (r.timedOut)
    return {
      run: { tool: 'eva', status: 'timeout', detail: `no verdict within ${timeoutMs / 1000} s` },
      cutAt,
      sequencedAt,
      mainEnded,
    };
  if (r.status !== 0)
    return {
      run: {
        tool: 'eva',
        status: 'failed',
        detail: firstLine(
          out
            .split('\n')
            .filter((l) => /error|abort/i.test(l))
            .join('\n') || out,
        ),
      },
      cutAt,
      sequencedAt,
      mainEnded,
    };
  return { run: { tool: 'eva', status: 'clean' }, cutAt, sequencedAt, mainEnded };
}
