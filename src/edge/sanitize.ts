// Sanitizer testing (`kiln fuzz --sanitizers`): the programs, the sanitizer that covers each UB
// kind, and one sanitized build and run of a program, read into a ToolReport. One program's tests
// are src/edge/sancampaign.ts (its runner: src/campaign/sanitizer-runner.ts); the verdicts
// (detected, miss, false alarm) are src/edge/sanjudge.ts.
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { emitC } from '../emit/c.js';
import { MAIN_SOURCE, type EmittedFile } from '../emit/files.js';
import type { Policy } from '../gen/policy.js';
import { typeName, type IntType } from '../c/types.js';
import type { Program } from '../ir/nodes.js';
import type { Type } from '../ir/types.js';
import type { CompilerFamily } from '../harness/compilers.js';
import { LINK_LIBRARIES } from '../harness/compilers.js';
import type { StepRecord } from '../harness/execute.js';
import { limitsFor, optionKey, type Configuration, type Limits } from '../harness/matrix.js';
import { runProcess, SpawnError, type RunResult } from '../harness/process.js';
import { newTag, runDirIn, sandboxArgv, type StepKind } from '../harness/sandbox.js';
import type { TempRoot } from '../harness/tempdir.js';
import { Rng } from '../random/rng.js';
import { generateProgram } from '../repair/generate.js';
import { generateUBProgram, type InjectKind, type Injection, type SiteLocation } from './inject.js';
import {
  parseAsan,
  parseMsan,
  parseUbsan,
  parseValgrind,
  VALGRIND_SUPPRESSIONS,
  VALGRIND_SUPPRESSIONS_FILE,
  type ToolReport,
} from './reports.js';

/** A sanitizer build: one sanitizer for a UB program, ASan and UBSan together for a UB-free one. */
export type Sanitizer = 'asan' | 'ubsan' | 'msan' | 'asan+ubsan';

/** The injected kinds some sanitizer covers (`unsequenced` has none: it is never drawn). */
export const SANITIZED_KINDS = [
  'signed-overflow',
  'shift',
  'division-by-zero',
  'out-of-bounds',
  'null-dereference',
  'dangling',
  'uninitialised-read',
] as const satisfies readonly InjectKind[];
/** A kind `kiln fuzz --sanitizers` injects. */
export type SanitizedKind = (typeof SANITIZED_KINDS)[number];

/** The sanitizer that claims each kind (ASan's use-after-scope for `dangling`, MSan for uninitialised reads). */
export const SANITIZER_OF: Readonly<Record<SanitizedKind, 'asan' | 'ubsan' | 'msan'>> = {
  'signed-overflow': 'ubsan',
  shift: 'ubsan',
  'division-by-zero': 'ubsan',
  'null-dereference': 'ubsan',
  'out-of-bounds': 'asan',
  dangling: 'asan',
  'uninitialised-read': 'msan',
};

/** Compiler families whose drivers take `-fsanitize=`. */
export function sanitizingFamily(f: CompilerFamily): boolean {
  return f === 'gcc' || f === 'clang';
}

/** Whether a compiler family has a sanitizer (MemorySanitizer is clang's alone). */
export function hasSanitizer(f: CompilerFamily, s: Sanitizer): boolean {
  return sanitizingFamily(f) && (s !== 'msan' || f === 'clang');
}

/**
 * The options of a sanitizer build (added after the configuration's own, with `-g` so reports name
 * lines). Recovery is off so the first report ends the run with a non-zero status; use-after-scope
 * is named although both drivers default to it, so a driver that changes its default still checks it.
 */
export function sanitizerFlags(s: Sanitizer): string[] {
  switch (s) {
    case 'asan':
      return ['-fsanitize=address', '-fsanitize-address-use-after-scope', '-fno-omit-frame-pointer'];
    case 'ubsan':
      return ['-fsanitize=undefined', '-fno-sanitize-recover=undefined'];
    case 'msan':
      return ['-fsanitize=memory', '-fno-omit-frame-pointer'];
    case 'asan+ubsan':
      return [
        '-fsanitize=address,undefined',
        '-fsanitize-address-use-after-scope',
        '-fno-sanitize-recover=undefined',
        '-fno-omit-frame-pointer',
      ];
  }
}

/**
 * The runtime options of every sanitized run: stop at the first report with a non-zero status,
 * no leak reports (leaks are not UB), UBSan's one-line reports.
 */
export const SANITIZER_ENV: readonly string[] = [
  'ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0',
  'UBSAN_OPTIONS=print_stacktrace=0:halt_on_error=1',
  'MSAN_OPTIONS=halt_on_error=1',
];

/** valgrind's memcheck, stopping at its first error (the survival check of uninitialised reads). */
const VALGRIND: readonly string[] = [
  'valgrind',
  '-q',
  // No gdbserver: its FIFOs in /tmp outlive a run killed at its time limit.
  '--vgdb=no',
  '--exit-on-first-error=yes',
  '--error-exitcode=99',
  '--track-origins=no',
  `--suppressions=${VALGRIND_SUPPRESSIONS_FILE}`,
];

/**
 * The configuration of a plain build that valgrind can read: the options with `-g -gdwarf-4`
 * (valgrind 3.19 cannot read clang's default DWARF 5 line tables).
 */
export function valgrindConfiguration(c: Configuration): Configuration {
  const opts = [...c.options, '-g', '-gdwarf-4'];
  return {
    ...c,
    options: opts,
    optionsText: opts.join(' '),
    key: `${c.compiler.command}\0${optionKey(opts)}`,
    slug: `${c.slug}-valgrind`,
  };
}

/** A configuration with a sanitizer's options added (its slug and key name the sanitizer too). */
export function sanitizedConfiguration(
  c: Configuration,
  s: Sanitizer,
  options: readonly string[] = c.options,
): Configuration {
  const opts = [...options, '-g', ...sanitizerFlags(s)];
  const optionsText = opts.join(' ');
  const base =
    options === c.options ? c.slug : `${c.compiler.name}${options.join('')}`.replace(/[^A-Za-z0-9_.+-]+/g, '-');
  return {
    compiler: c.compiler,
    options: opts,
    optionsText,
    key: `${c.compiler.command}\0${optionKey(opts)}`,
    slug: `${base}-${s.replace('+', '-')}`,
  };
}

/** A program of a sanitizer campaign: UB on purpose (one site, known exactly) or UB-free. */
export type SanitizerProgram =
  | {
      readonly ok: true;
      readonly seed: string;
      readonly files: readonly EmittedFile[];
      readonly genMs: number;
      readonly expected: string;
      readonly ub?: undefined;
      /** Why MSan is not run on the program (see {@link msanBlindSpot}), when it is not. */
      readonly msanSkip?: string;
    }
  | {
      readonly ok: true;
      readonly seed: string;
      readonly files: readonly EmittedFile[];
      readonly genMs: number;
      readonly expected: '';
      readonly ub: {
        readonly kind: SanitizedKind;
        readonly variant: string;
        readonly location: SiteLocation;
        readonly injection: Injection;
      };
    }
  | { readonly ok: false; readonly seed: string; readonly reason: string; readonly genMs: number };

/** Share of a sanitizer campaign's programs that get a UB on purpose (the rest are UB-free). */
const UB_PROGRAM_SHARE = 0.5;

/**
 * Whether a seed's program has UB on purpose, and of which kind (a draw of its own: the same seed always decides the
 * same).
 */
export function sanitizerDraw(seed: bigint | string): SanitizedKind | undefined {
  const rng = Rng.seeded(`${seed}:sanitizers`);
  return rng.chance(UB_PROGRAM_SHARE) ? rng.pick(SANITIZED_KINDS) : undefined;
}

/**
 * The seed's program for sanitizer testing: with probability {@link UB_PROGRAM_SHARE}, the seed's
 * csmith-mode program with one injected UB of a kind drawn from the seed (`kiln gen --ub`); else
 * the seed's UB-free csmith-mode program. Same seed and policy, same program byte for byte.
 * `kind` overrides the draw (null: the UB-free program).
 */
export function sanitizerProgram(
  seed: bigint,
  policy: Policy,
  kind: SanitizedKind | null = sanitizerDraw(seed) ?? null,
): SanitizerProgram {
  const t0 = performance.now();
  const header = [
    `Generated by Kiln (mode csmith, policy ${policy.name}), seed ${seed}, for sanitizer testing (kiln fuzz ` +
      `--sanitizers).`,
  ];
  if (kind !== null) {
    const r = generateUBProgram(seed, policy, kind, header);
    const genMs = performance.now() - t0;
    if (!r.ok) return { ok: false, seed: String(seed), reason: r.reason, genMs };
    return {
      ok: true,
      seed: String(seed),
      files: [{ name: MAIN_SOURCE, content: r.text }],
      genMs,
      expected: '',
      ub: { kind, variant: r.injection.variant, location: r.location, injection: r.injection },
    };
  }
  const g = generateProgram(seed, policy, 'csmith');
  const genMs = performance.now() - t0;
  if (!g.ok) return { ok: false, seed: String(seed), reason: g.reason, genMs };
  const msanSkip = msanBlindSpot(g.program);
  return {
    ok: true,
    seed: String(seed),
    files: [
      {
        name: MAIN_SOURCE,
        content: emitC(g.program, {
          expected: g.expected,
          header: [...header, 'No undefined behaviour (proven by the interpreter).'],
        }),
      },
    ],
    genMs,
    expected: g.expected,
    ...(msanSkip ? { msanSkip } : {}),
  };
}

/**
 * Why MemorySanitizer would report a UB-free program, or undefined. clang's MSan (19 to 23, at
 * -O0 at least) takes the padding bits of a `_BitInt(N)` passed to or returned from a function as
 * uninitialised for widths 65 to about 120 (LLVM issue 204217, a known limitation): every such
 * program would be a false alarm, so MSan is not run on programs whose functions take or return
 * one (or a record holding one). Measured with clang 22: widths 65-120 reported, 7-64 and 124-256
 * not; 65-127 are skipped.
 */
export function msanBlindSpot(p: Program): string | undefined {
  const seen = new Set<Type>();
  const padded = (t: Type): IntType | undefined => {
    if (t.kind === 'int') {
      const n = t.declBits ?? t.bits;
      return t.bitPrecise && n >= 65 && n <= 127 ? t : undefined;
    }
    if (t.kind === 'array') return padded(t.of);
    if (t.kind !== 'struct' && t.kind !== 'union') return undefined;
    if (seen.has(t)) return undefined;
    seen.add(t);
    for (const f of t.fields) {
      const x = padded(f.type);
      if (x) return x;
    }
    return undefined;
  };
  for (const f of p.funcs)
    for (const t of [f.ret, ...f.params.map((x) => x.type)]) {
      const x = padded(t);
      if (x)
        return (
          `${f.name} takes or returns ${typeName(x)}, whose padding bits clang's MSan takes for uninitialised ` +
          '(LLVM issue 204217)'
        );
    }
  return undefined;
}

/** One sanitized build and run. */
export interface SanitizedRun {
  readonly config: Configuration;
  readonly sanitizer: Sanitizer;
  readonly compile: StepRecord;
  /** Absent when the compile failed. */
  readonly run?: StepRecord;
  /** The first sanitizer report of the run's stderr. */
  readonly report?: ToolReport;
  readonly durationMs: number;
  readonly aborted: boolean;
}

/** The first sanitizer report in a run's stderr, whichever sanitizer printed it. */
function firstSanitizerReport(stderr: string, sources: readonly string[]): ToolReport | undefined {
  const found = [parseAsan(stderr, sources), parseMsan(stderr, sources), parseUbsan(stderr, sources)].filter(
    (r): r is ToolReport => r !== undefined,
  );
  const at = (r: ToolReport): number =>
    stderr.indexOf(r.tool === 'asan' ? 'AddressSanitizer' : r.tool === 'msan' ? 'MemorySanitizer' : 'runtime error:');
  return found.sort((a, b) => at(a) - at(b))[0];
}

/**
 * Builds a program with a sanitized configuration (see {@link sanitizedConfiguration}) and runs it
 * under the sandbox every test uses, with {@link SANITIZER_ENV}; both folders are removed after.
 */
export async function runSanitized(
  files: readonly EmittedFile[],
  config: Configuration,
  sanitizer: Sanitizer,
  limits: Limits,
  temp: TempRoot,
  signal?: AbortSignal,
  valgrind = false,
): Promise<SanitizedRun> {
  const started = Date.now();
  const dir = await temp.dir('san');
  try {
    for (const f of files) await writeFile(join(dir, f.name), f.content);
    const names = files.map((f) => f.name).filter((n) => n.endsWith('.c'));
    const cmd = [config.compiler.command, ...config.options, ...names, '-o', 'prog', ...LINK_LIBRARIES];
    const cl = limitsFor(limits.compile, config);
    const cr = await step('compile', cmd, dir, cl.timeoutMs, cl.memoryMb, signal, dir);
    const compile = record(cmd, cr);
    if (cr.aborted || cr.status !== 0 || cr.timedOut || !existsSync(join(dir, 'prog')))
      return { config, sanitizer, compile, durationMs: Date.now() - started, aborted: cr.aborted };
    const runParent = await temp.dir('run');
    try {
      const runDir = runDirIn(runParent);
      await mkdir(runDir);
      await rename(join(dir, 'prog'), join(runDir, 'prog'));
      if (valgrind) await writeFile(join(runDir, VALGRIND_SUPPRESSIONS_FILE), VALGRIND_SUPPRESSIONS);
      const argv = valgrind ? [...VALGRIND, './prog'] : ['env', ...SANITIZER_ENV, './prog'];
      const rl = limitsFor(limits.run, config, 'run');
      // valgrind reserves address space of its own: no limit, and 20 times the time.
      const rr = valgrind
        ? await step('run', argv, runDir, rl.timeoutMs * 20, undefined, signal)
        : await step('run', argv, runDir, rl.timeoutMs, rl.memoryMb, signal);
      const run = record(argv, rr);
      const report = valgrind ? parseValgrind(rr.stderr, names) : firstSanitizerReport(rr.stderr, names);
      return {
        config,
        sanitizer,
        compile,
        run,
        ...(report ? { report } : {}),
        durationMs: Date.now() - started,
        aborted: rr.aborted,
      };
    } finally {
      await temp.remove(runParent);
    }
  } finally {
    await temp.remove(dir);
  }
}

/**
 * Whether a build keeps code at a source line: the configuration's own compile of `prog.c` to an
 * object with DWARF 4 line tables (valgrind's and older binutils' format), read by `objdump
 * --dwarf=decodedline`. An optimiser that deleted an undefined statement (a dead store to a local
 * array) leaves no row for its line, and a sanitizer cannot report what is not there. Undefined
 * when the object cannot be built or read.
 */
export async function keepsLine(
  files: readonly EmittedFile[],
  config: Configuration,
  line: number,
  limits: Limits,
  temp: TempRoot,
  signal?: AbortSignal,
): Promise<boolean | undefined> {
  const dir = await temp.dir('line');
  try {
    for (const f of files) await writeFile(join(dir, f.name), f.content);
    const cl = limitsFor(limits.compile, config);
    const cr = await step(
      'compile',
      [config.compiler.command, ...config.options, '-gdwarf-4', '-c', MAIN_SOURCE, '-o', 'prog.o'],
      dir,
      cl.timeoutMs,
      cl.memoryMb,
      signal,
      dir,
    );
    if (cr.status !== 0 || cr.timedOut || cr.aborted) return undefined;
    const od = await step(
      'compile',
      ['objdump', '--dwarf=decodedline', 'prog.o'],
      dir,
      cl.timeoutMs,
      undefined,
      signal,
    );
    if (od.status !== 0 || od.truncated) return undefined;
    return od.stdout.split('\n').some((l) => {
      const t = l.trim().split(/\s+/);
      return t[0] === MAIN_SOURCE && t[1] === String(line);
    });
  } finally {
    await temp.remove(dir);
  }
}

async function step(
  kind: StepKind,
  cmd: readonly string[],
  cwd: string,
  timeoutMs: number,
  memoryMb: number | undefined,
  signal: AbortSignal | undefined,
  tmpdir?: string,
): Promise<RunResult> {
  const tag = newTag();
  const argv = sandboxArgv({ kind, timeoutMs, memoryMb, tag, ...(tmpdir !== undefined ? { tmpdir } : {}) }, cmd);
  try {
    return await runProcess(argv[0]!, argv.slice(1), {
      cwd,
      timeoutMs,
      tag,
      wrapped: true,
      maxOutputBytes: 8 << 20,
      ...(signal ? { signal } : {}),
    });
  } catch (e) {
    if (!(e instanceof SpawnError)) throw e;
    return {
      status: 127,
      signal: null,
      stdout: '',
      stderr: `kiln: ${e.message}\n`,
      timedOut: false,
      aborted: false,
      truncated: false,
      durationMs: 0,
    };
  }
}

function record(command: readonly string[], r: RunResult): StepRecord {
  return {
    command,
    status: r.status,
    signal: r.signal,
    timedOut: r.timedOut,
    durationMs: r.durationMs,
    stdout: r.stdout,
    stderr: r.stderr,
  };
}
