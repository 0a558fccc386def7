import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess, SpawnError } from '../../harness/process.js';
import { reportSignature, signatureShell, type CrashSignature } from '../../harness/signature.js';
import { GCC14_ERRORS } from '../validity.js';

// Interestingness scripts for users who have a crash or a wrong-code case but no test yet. They
// follow the C-Reduce/C-Vise convention (run in a directory holding the file, exit 0 means
// interesting), so the file kiln writes next to the output also works with creduce and cvise.

/** Quotes a string for a POSIX shell. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Output that marks a compiler crash rather than an ordinary error (GCC, Clang, TCC, fake test compilers). */
const CRASH_MARKERS =
  'internal compiler error|Segmentation fault|Aborted|Bus error|Illegal instruction|Killed signal|' +
  'PLEASE submit a bug report|frontend command failed|Assertion .* failed|UNREACHABLE executed|LLVM ERROR|Stack dump:';

const SIGNATURE_LINE = new RegExp(
  'internal compiler error|Assertion .* failed|UNREACHABLE executed|LLVM ERROR|Killed signal|' +
    'frontend command failed due to signal|Segmentation fault',
);

/** Escapes a literal for a POSIX extended regular expression. */
function ereEscape(s: string): string {
  return s.replace(/[.[\]()*+?{}|^$\\]/g, '\\$&');
}

/**
 * The crash signature of a compiler's output as an extended regular expression: the first line
 * that names the failure (`internal compiler error: in f, at g.c:12`, an assertion, a signal),
 * with the input's location prefix removed (it moves during reduction) and addresses generalised.
 * Null when no line names the failure.
 */
export function iceSignature(output: string): string | null {
  const line = output.split('\n').find((l) => SIGNATURE_LINE.test(l));
  if (!line) return null;
  let s = line.trim();
  // `prog.c:12:5: internal compiler error: …` and `cc1: internal compiler error: …`.
  s = s.replace(/^(?:[^\s:]+:\d+:\d+:\s*|[^\s:]+:\s+(?=internal compiler error|error:|fatal error:))/, '');
  s = s.replace(/\s+/g, ' ');
  return ereEscape(s).replace(/0x[0-9a-fA-F]+/g, '0x[0-9a-fA-F]+');
}

/** Flags of a compiler command line that change what the program means (includes, macros, language standard). */
export function semanticFlags(command: string): string[] {
  const toks = command.trim().split(/\s+/).slice(1);
  const out: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (/^-(I|D|U|std=)./.test(t)) out.push(t);
    else if ((t === '-I' || t === '-D' || t === '-U' || t === '-include' || t === '-isystem') && i + 1 < toks.length)
      out.push(t, toks[++i]!);
  }
  return out;
}

/** Options of a `--crash` interestingness script. */
export interface CrashScriptOptions {
  /** Basename of the file being reduced. */
  readonly fileName: string;
  /** The compiler command that crashes, e.g. `gcc -O2` (the script adds `-c FILE -o …`). */
  readonly compiler: string;
  /** Extended regular expression the crash output must match; '' accepts any crash. */
  readonly match: string;
  /**
   * The crash report's signature (src/harness/signature.ts): verbatim pieces that must all show in
   * the output, in order, so the reduction keeps this bug and not another crash of the compiler.
   */
  readonly needles?: readonly string[];
}

/** The shell command that compiles the file in a `--crash` script. */
function crashCompile(compiler: string): string {
  return `${compiler} -c "$f" -o kiln-crash.o`;
}

/** A `--crash` interestingness script: interesting iff the compiler crashes with matching output. */
export function crashScript(o: CrashScriptOptions): string {
  return `#!/bin/sh
# Interestingness test written by 'kiln reduce --crash' (C-Reduce/C-Vise convention: it runs in a
# directory holding ${o.fileName}; exit status 0 means interesting). Interesting iff the compiler
# crashes (an internal compiler error or a fatal signal) and its output matches $match.
${signatureComment(o.needles)}LC_ALL=C; export LC_ALL
# clang writes a crash's preprocessed source and script into TMPDIR: here, not /tmp.
TMPDIR=$PWD; export TMPDIR
f=${shq(o.fileName)}
match=${shq(o.match)}
${crashCompile(o.compiler)} >kiln-crash.log 2>&1
status=$?
crashed=0
[ "$status" -ge 128 ] && crashed=1
grep -Eq ${shq(CRASH_MARKERS)} kiln-crash.log && crashed=1
[ "$crashed" = 1 ] || exit 1
${o.needles?.length ? `${signatureShell(o.needles, 'kiln-crash.log')} || exit 1\n` : ''}[ -z "$match" ] && exit 0
grep -Eq -- "$match" kiln-crash.log
`;
}

/** The comment line naming a `--crash` script's signature ('' without one). */
function signatureComment(needles: readonly string[] | undefined): string {
  if (!needles?.length) return '';
  return `# The crash's signature, in this order: ${needles.join(' | ').replace(/[\r\n]/g, ' ')}\n`;
}

/** What the compiler did on the original file, as a `--crash` script would see it. */
export interface CrashProbe {
  readonly crashed: boolean;
  readonly output: string;
  /** The default `--match`: the signature of the crash, or '' (any crash) when none is found. */
  readonly signature: string;
  /** The crash report's signature, when the report names one (then the default test checks it instead of `--match`). */
  readonly report?: CrashSignature;
}

/** Compiles the original once the way the `--crash` script will, to derive the default `--match`. */
export async function probeCrash(
  compiler: string,
  fileName: string,
  text: string,
  timeoutMs: number,
): Promise<CrashProbe> {
  const dir = await mkdtemp(join(tmpdir(), 'kiln-crash-'));
  try {
    await writeFile(join(dir, fileName), text);
    const r = await runProcess('sh', ['-c', `${crashCompile(compiler)} 2>&1`], {
      cwd: dir,
      timeoutMs,
      env: { LC_ALL: 'C', f: fileName, TMPDIR: dir },
    });
    const output = r.stdout + r.stderr;
    const crashed =
      !r.timedOut &&
      ((r.status !== null && r.status >= 128) || r.signal !== null || new RegExp(CRASH_MARKERS).test(output));
    const report = crashed ? reportSignature(output) : undefined;
    return { crashed, output, signature: iceSignature(output) ?? '', ...(report ? { report } : {}) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** GCC warnings that indicate undefined behaviour (or a program that no longer means what it did). */
const GCC_UB_WARNINGS = [
  'uninitialized',
  'maybe-uninitialized',
  'return-type',
  // Errors by default since GCC 14, as the validity check of every reduced case has them (older
  // gcc does not know the last two options and the probe drops them; it reports return-mismatch
  // under -Wreturn-type, above).
  ...GCC14_ERRORS,
  'div-by-zero',
  'array-bounds',
  'aggressive-loop-optimizations',
  'sequence-point',
  'shift-count-overflow',
  'shift-count-negative',
  'shift-negative-value',
  // Not gcc's -Woverflow: it also fires on implementation-defined narrowing of constants
  // (`signed char c = 200;`), which valid programs such as Kiln's use; signed overflow in constant
  // expressions is caught by clang's -Winteger-overflow below and by UBSan.
  'nonnull',
  'return-local-addr',
  'dangling-pointer',
  'stringop-overflow',
  'free-nonheap-object',
  'main',
];

/** Clang's equivalents. */
const CLANG_UB_WARNINGS = [
  'uninitialized',
  'sometimes-uninitialized',
  'return-type',
  'implicit-function-declaration',
  'implicit-int',
  'int-conversion',
  'incompatible-pointer-types',
  'incompatible-function-pointer-types',
  'division-by-zero',
  'array-bounds',
  'unsequenced',
  'shift-count-overflow',
  'shift-count-negative',
  'shift-negative-value',
  'integer-overflow',
  'return-stack-address',
  'null-dereference',
  'main-return-type',
];

/**
 * Set in its environment, a `--wrong-code` script runs its cheap steps only (all but the last
 * guard): the text reducer judges candidates that way and runs the whole script at checkpoints.
 */
export const DEFER_GUARDS_VAR = 'KILN_DEFER_GUARDS';

/** Whether a `--wrong-code` script with these options has a last guard to defer. */
export function hasDeferredGuards(o: Pick<WrongCodeScriptOptions, 'check' | 'msan'>): boolean {
  return o.check !== undefined || o.msan;
}

/** Options of a `--wrong-code` interestingness script. */
export interface WrongCodeScriptOptions {
  readonly fileName: string;
  /** The compiler command that miscompiles, e.g. `gcc -O2` (the script adds `FILE -o …`). */
  readonly failing: string;
  /** A compiler command believed correct, e.g. `gcc -O0`; or give `expected`. */
  readonly reference?: string;
  /** The program's correct output (one line; a newline is appended). */
  readonly expected?: string;
  /** Includes, macros and standard taken from the compiler commands, used by the guard builds. */
  readonly cflags: readonly string[];
  /** `-Werror=…` flags for gcc (empty: no gcc guard). */
  readonly gccErrors: readonly string[];
  /** `-Werror=…` flags for clang. */
  readonly clangErrors: readonly string[];
  /** Whether clang's MemorySanitizer works here (the MSan guard, when `check` is not given). */
  readonly msan: boolean;
  /**
   * A shell command that runs `kiln check` (e.g. `'/usr/bin/node' '/opt/kiln/dist/cli/main.js' check`).
   * When given, the last guard is `kiln check` with the tools ASan+UBSan do not cover (MSan,
   * valgrind, Frama-C Eva), in place of the bare MSan build.
   */
  readonly check?: string;
  /** The tools `check` runs (default MSan, valgrind and Eva; Eva costs most, up to minutes a candidate). */
  readonly checkTools?: readonly ('msan' | 'valgrind' | 'eva')[];
  /** Seconds each compiled program may run. */
  readonly runTimeoutS: number;
  /**
   * A shell command (quoted) that exits 0 when the failure shows, run with `KILN_EXPECTED` set to
   * the reference's output: it replaces step 1's build and run of the failing compiler. A Kiln
   * finding's repro.sh is one: it builds and runs exactly as the campaign did.
   */
  readonly failingTest?: string;
  /** Arguments after `-o BINARY` in every build that links (e.g. `-lm`). */
  readonly link?: readonly string[];
}

/**
 * A `--wrong-code` interestingness script guarded against undefined behaviour, in the spirit of
 * C-Reduce's example scripts: the failing compiler's program must print something other than the
 * reference's (or `expected`), or exit differently; and, checked only then because they cost
 * most, the candidate must compile without UB-indicating warnings (as errors, with gcc and clang),
 * run silently to completion under clang's UBSan+ASan (and MSan where available), and print under
 * the sanitizers the reference's output: the sanitized build stands for the correct semantics, so
 * a reduction cannot drift to a program whose correct output merely changed.
 */
export function wrongCodeScript(o: WrongCodeScriptOptions): string {
  if ((o.reference === undefined) === (o.expected === undefined))
    throw new Error('wrongCodeScript needs exactly one of reference and expected');
  const cflags = o.cflags.map(shq).join(' ');
  const lines: string[] = [
    '#!/bin/sh',
    "# Interestingness test written by 'kiln reduce --wrong-code' (C-Reduce/C-Vise convention: it runs",
    `# in a directory holding ${o.fileName}; exit status 0 means interesting). Interesting iff the`,
    ...(o.failingTest !== undefined
      ? [
          `# failure of ${commentText(o.failing)} shows (step 1's test) against the output of the reference`,
          `# (${o.reference}), and the program is free of the undefined behaviour the`,
        ]
      : [
          `# failing compiler (${o.failing}) makes the program print something other than`,
          `# ${o.reference !== undefined ? `the reference (${o.reference})` : 'the expected output'}, and ` +
            `the program is free of the undefined behaviour the`,
        ]),
    '# guards below detect. Cheap checks come first: most candidates fail at step 1.',
    'LC_ALL=C; export LC_ALL',
    `f=${shq(o.fileName)}`,
    `t=${o.runTimeoutS}   # seconds each compiled program may run`,
    `cflags="${cflags.replace(/"/g, '\\"')}"`,
    'ASAN_OPTIONS=detect_leaks=0; export ASAN_OPTIONS',
    '# run BINARY OUT: runs it with a time limit; fails on a timeout or a fatal signal.',
    'run() { timeout "$t" "./$1" >"$2" 2>"$2.err"; s=$?; echo "$s" >"$2.status"; [ "$s" -lt 124 ]; }',
    '',
  ];
  const link = (o.link ?? []).map(shq).join(' ');
  const linked = (cmd: string): string => (link ? `${cmd} ${link}` : cmd);
  if (o.failingTest !== undefined) {
    if (o.reference === undefined) throw new Error('wrongCodeScript: failingTest needs a reference');
    lines.push(
      '# 1. The reference runs to completion; the failure shows, judged against its output, under the',
      '#    failing build and run of the finding (exit 0: it shows).',
      `${linked(`${o.reference} "$f" -o kiln-ref`)} >/dev/null 2>&1 || exit 1`,
      'run kiln-ref kiln-ref.out || exit 1',
      `KILN_EXPECTED=$(cat kiln-ref.out) ${o.failingTest} >/dev/null 2>&1 || exit 1`,
      '',
      '# 2. Diagnostics that indicate undefined behaviour are errors.',
    );
  } else if (o.reference !== undefined) {
    lines.push(
      '# 1. The failing compiler and the reference disagree (other output, exit status, crash or hang).',
      `${linked(`${o.reference} "$f" -o kiln-ref`)} >/dev/null 2>&1 || exit 1`,
      'run kiln-ref kiln-ref.out || exit 1',
    );
  } else {
    lines.push(
      '# 1. The failing compiler does not produce the expected output (nor exit status 0).',
      `printf '%s\\n' ${shq(o.expected!)} >kiln-ref.out`,
      'echo 0 >kiln-ref.out.status',
    );
  }
  if (o.failingTest === undefined) {
    lines.push(
      `${linked(`${o.failing} "$f" -o kiln-fail`)} >/dev/null 2>&1 || exit 1`,
      'run kiln-fail kiln-fail.out',
      'cmp -s kiln-ref.out kiln-fail.out && cmp -s kiln-ref.out.status kiln-fail.out.status && exit 1',
      '',
      '# 2. Diagnostics that indicate undefined behaviour are errors.',
    );
  }
  if (o.gccErrors.length > 0)
    lines.push(
      `gcc -O1 $cflags ${o.gccErrors.map((w) => `-Werror=${w}`).join(' ')} -c "$f" -o kiln-gcc.o >/dev/null ` +
        `2>&1 || exit 1`,
    );
  lines.push(
    `clang -O1 $cflags ${o.clangErrors.map((w) => `-Werror=${w}`).join(' ')} -c "$f" -o kiln-clang.o ` +
      `>/dev/null 2>&1 || exit 1`,
  );
  lines.push(
    '',
    '# 3. Sanitized builds run silently to completion and print the correct output.',
    `${linked('clang -O0 -g $cflags -fsanitize=undefined,address -fno-sanitize-recover=all "$f" -o kiln-san')} ` +
      `>/dev/null 2>&1 || exit 1`,
    'run kiln-san kiln-san.out || exit 1',
    '[ -s kiln-san.out.err ] && exit 1',
    'cmp -s kiln-ref.out kiln-san.out || exit 1',
  );
  if (o.check !== undefined || o.msan) {
    lines.push(
      '',
      `# Steps 1-3 alone when ${DEFER_GUARDS_VAR} is set: a reducer that defers step 4, the costliest,`,
      '# runs it on the texts it keeps instead of on every candidate.',
      `[ -n "\${${DEFER_GUARDS_VAR}:-}" ] && exit 0`,
    );
  }
  if (o.check !== undefined) {
    lines.push(
      '',
      `# 4. 'kiln check' with detectors step 3 did not ` +
        `run: ${(o.checkTools ?? ['msan', 'valgrind', 'eva']).map((t) => CHECK_TOOL_NAMES[t]).join(', ')} ` +
        `(exit 0: clean; 1 UB and 2, incomplete or unchecked, are not interesting).`,
      `${o.check} --tools ${(o.checkTools ?? ['msan', 'valgrind', 'eva']).join(',')} --run-timeout "$t"s ` +
        `--cflags "$cflags" "$f" >/dev/null 2>&1 || exit 1`,
    );
  } else if (o.msan) {
    lines.push(
      '',
      '# 4. MemorySanitizer: no read of uninitialised memory.',
      `${linked('clang -O0 -g $cflags -fsanitize=memory -fno-sanitize-recover=all "$f" -o kiln-msan')} ` +
        `>/dev/null 2>&1 || exit 1`,
      'run kiln-msan kiln-msan.out || exit 1',
      '[ -s kiln-msan.out.err ] && exit 1',
    );
  }
  lines.push('exit 0', '');
  return lines.join('\n');
}

const CHECK_TOOL_NAMES = { msan: 'MSan', valgrind: 'valgrind', eva: 'Frama-C Eva' } as const;

/** Whether a tool can be run at all. */
async function hasTool(tool: string): Promise<boolean> {
  try {
    const r = await runProcess(tool, ['--version'], { timeoutMs: 10_000 });
    return r.status === 0;
  } catch (e) {
    if (e instanceof SpawnError) return false;
    throw e;
  }
}

/** Compiles `text` with `cc args` in a scratch directory; returns the status and output. */
async function compileProbe(
  dir: string,
  cc: string,
  args: readonly string[],
  fileName: string,
  text: string,
): Promise<{ ok: boolean; output: string }> {
  await writeFile(join(dir, fileName), text);
  const r = await runProcess(cc, [...args, fileName], { cwd: dir, timeoutMs: 60_000, env: { LC_ALL: 'C' } });
  return { ok: r.status === 0, output: r.stdout + r.stderr };
}

/** The UB guards that work here, adapted to the original program. */
export interface WrongCodeGuards {
  readonly gccErrors: readonly string[];
  readonly clangErrors: readonly string[];
  readonly msan: boolean;
  /** Warnings dropped from the guards because the compiler does not know them or the original already triggers them. */
  readonly dropped: readonly string[];
}

/**
 * Finds which guards to use: the warnings each compiler knows, minus those the original already
 * triggers (the original is taken as UB-free; a guard it fails would make nothing interesting),
 * and whether MemorySanitizer links and runs. Needs clang; gcc is optional.
 */
export async function probeWrongCodeGuards(
  fileName: string,
  text: string,
  cflags: readonly string[],
): Promise<WrongCodeGuards> {
  const dir = await mkdtemp(join(tmpdir(), 'kiln-guards-'));
  const dropped: string[] = [];
  try {
    const adapt = async (cc: string, warnings: readonly string[]): Promise<string[]> => {
      // Keep only warnings the compiler knows (an unknown -Werror=X is itself an error). The
      // compilers name the options they do not know, so a second probe without them usually
      // settles it (older compilers lack the newest options: gcc 12 has no -Wreturn-mismatch).
      let candidates = [...warnings];
      let all = await compileProbe(
        dir,
        cc,
        ['-c', '-o', 'probe.o', ...candidates.map((w) => `-Werror=${w}`)],
        'probe.c',
        'int main(void) { return 0; }\n',
      );
      const unknown = new Set(
        [...all.output.matchAll(/-Werror=([\w-]+)['’]?: no option|unknown warning option '-Werror=([\w-]+)'/g)].map(
          (m) => m[1] ?? m[2]!,
        ),
      );
      if (unknown.size > 0) {
        for (const w of unknown) dropped.push(`${cc}:${w} (unknown)`);
        candidates = candidates.filter((w) => !unknown.has(w));
        all = await compileProbe(
          dir,
          cc,
          ['-c', '-o', 'probe.o', ...candidates.map((w) => `-Werror=${w}`)],
          'probe.c',
          'int main(void) { return 0; }\n',
        );
      }
      const known: string[] = [];
      if (all.ok && !/unknown warning|no option -W/.test(all.output)) known.push(...candidates);
      else
        for (const w of candidates) {
          const r = await compileProbe(
            dir,
            cc,
            ['-c', '-o', 'probe.o', `-Werror=${w}`],
            'probe.c',
            'int main(void) { return 0; }\n',
          );
          if (r.ok && !/unknown warning|no option -W/.test(r.output)) known.push(w);
          else dropped.push(`${cc}:${w} (unknown)`);
        }
      // Drop those the original itself triggers.
      let kept = known;
      for (let round = 0; round < 3; round++) {
        const r = await compileProbe(
          dir,
          cc,
          ['-O1', ...cflags, ...kept.map((w) => `-Werror=${w}`), '-c', '-o', 'orig.o'],
          fileName,
          text,
        );
        if (r.ok) break;
        const fired = new Set([...r.output.matchAll(/\[-Werror(?:=|,-W)([\w-]+)\]/g)].map((m) => m[1]!));
        if (fired.size === 0) break;
        for (const w of fired) if (kept.includes(w)) dropped.push(`${cc}:${w} (fires on the original)`);
        kept = kept.filter((w) => !fired.has(w));
      }
      return kept;
    };
    const gccErrors = (await hasTool('gcc')) ? await adapt('gcc', GCC_UB_WARNINGS) : [];
    const clangErrors = await adapt('clang', CLANG_UB_WARNINGS);
    let msan = false;
    const built = await compileProbe(
      dir,
      'clang',
      ['-fsanitize=memory', '-o', 'msan-probe'],
      'msan.c',
      'int main(void) { return 0; }\n',
    );
    if (built.ok) {
      const r = await runProcess('./msan-probe', [], { cwd: dir, timeoutMs: 10_000 });
      msan = r.status === 0;
    }
    return { gccErrors, clangErrors, msan, dropped };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Whether clang is available (the wrong-code guards need it). */
export function hasClang(): Promise<boolean> {
  return hasTool('clang');
}

/** `s` for a `#` comment line of a script: control characters become spaces. */
function commentText(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
  return s.replace(/[\x00-\x1f]/g, ' ');
}
