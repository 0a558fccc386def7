import { LP64, targetByName, type TargetModel } from '../c/target.js';
import { errBadOption } from '../diag/errors.js';
import { emulatorFor, modelOfMachine, type Compiler } from './compilers.js';
import { profileToken, splitProfileToken, type ProfileKind } from './profile.js';
import { splitSwarmToken, swarmToken, type SwarmSpec } from './swarm.js';

/** The option sets of a default campaign (ARCHITECTURE.md, "Campaigns"). */
export const DEFAULT_OPTION_SETS: readonly string[] = ['-O0', '-O1', '-O2', '-Os', '-O3'];

/** Time and memory limits of one kind of step (a compile or a binary run). */
export interface StepLimits {
  /** Wall-clock limit; the whole process group is killed when it expires. */
  readonly timeoutMs: number;
  /** Address-space limit in MiB; undefined for none. Never applied to sanitizer builds. */
  readonly memoryMb: number | undefined;
}

/** Limits of a campaign's compiles and runs. */
export interface Limits {
  readonly compile: StepLimits;
  readonly run: StepLimits;
}

/** Defaults: compiles 120 s, binaries 10 s, 2 GiB each. */
export const DEFAULT_LIMITS: Limits = {
  compile: { timeoutMs: 120_000, memoryMb: 2048 },
  run: { timeoutMs: 10_000, memoryMb: 2048 },
};

/** One compiler with one option set: the unit a program is tested with. */
export interface Configuration {
  readonly compiler: Compiler;
  /** Option tokens in the order they are passed (without the `+profile` pseudo-option). */
  readonly options: readonly string[];
  /**
   * The option set as one whitespace-normalised string (`-O2 -flto`), ending with its profile
   * pseudo-option when it has one (`-O2 +profile=perturbed`): what is stored and shown, and what
   * {@link buildMatrix} reads back.
   */
  readonly optionsText: string;
  /** Built with a profile (docs/profiles.md): the instrumented build's own, or a perturbed one. */
  readonly profile?: ProfileKind;
  /**
   * `+swarm[=K]`: each test appends flags drawn from the compiler's catalogue (src/harness/swarm.ts).
   * On the configuration a test ran (`drawn` set), `options` holds them and `optionsText` stays the
   * option set's, so tests, buckets and counts stay per configuration.
   */
  readonly swarm?: SwarmSpec;
  /**
   * Set when this machine cannot run the configuration's binaries (an ISA it lacks,
   * src/harness/isa.ts): the reason. Its tests compile only, and find crashes, hangs and rejections.
   */
  readonly compileOnly?: string;
  /**
   * `+cpu=NAME`: the qemu CPU its binaries run under (`rv64,v=true,vlen=256`,
   * `max,sve-default-vector-length=32`), for a vector ISA that qemu's default CPU lacks.
   */
  readonly qemuCpu?: string;
  /** Identity after normalising option order: equal keys compile identically. */
  readonly key: string;
  /** File-name-safe label, unique in the matrix (`gcc-O2-flto`). */
  readonly slug: string;
}

/**
 * Splits a list of option sets: `-O0;-O2 -fno-strict-aliasing` or `-O0,-O2,-O3`. With a `;` in
 * the text only `;` separates (options may contain commas); otherwise a comma separates when the
 * next set starts with `-` and the comma is not part of `-Wl,`/`-Wa,`/`-Wp,`/`-fsanitize=a,b`.
 */
export function splitOptionSets(text: string): string[] {
  const parts = text.includes(';') ? text.split(';') : splitOnSetCommas(text);
  return parts.map((p) => p.trim().replace(/\s+/g, ' '));
}

function splitOnSetCommas(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === ',' && /^\s*-/.test(text.slice(i + 1)) && !/(^|\s)-W[lap]$/.test(cur) && !/(^|\s)-Xlinker$/.test(cur)) {
      out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  out.push(cur);
  return out;
}

/** Splits one option set into tokens (whitespace-separated; quoting is not supported). */
export function optionTokens(set: string): string[] {
  return set
    .trim()
    .split(/\s+/)
    .filter((t) => t.length > 0);
}

/**
 * The identity of an option set: tokens sorted, unless two of them override each other (two `-O`
 * levels, `-fX` and `-fno-X`, `-march=a -march=b`), where order decides and is kept.
 */
export function optionKey(tokens: readonly string[]): string {
  return (orderMatters(tokens) ? [...tokens] : [...new Set(tokens)].sort()).join(' ');
}

function orderMatters(tokens: readonly string[]): boolean {
  const families = new Set<string>();
  for (const t of tokens) {
    const fam = overrideFamily(t);
    if (fam === undefined) continue;
    if (families.has(fam)) return true;
    families.add(fam);
  }
  return false;
}

/** Options of one family override each other; undefined for options that simply add up. */
function overrideFamily(t: string): string | undefined {
  if (/^-O/.test(t)) return '-O';
  const param = /^--param=([^=]+)=/.exec(t);
  if (param) return `--param=${param[1]}`;
  const eq = /^(-[^=]+)=/.exec(t);
  if (eq) return eq[1];
  const neg = /^-([fmW])(no-)?(.+)$/.exec(t);
  if (neg) return `-${neg[1]}${neg[3]}`;
  if (t === '-g' || /^-g\d$/.test(t)) return '-g';
  return undefined;
}

/** Whether an option set builds with a sanitizer (no address-space limit: they reserve terabytes). */
function isSanitizerBuild(options: readonly string[]): boolean {
  return options.some((o) => o.startsWith('-fsanitize=') && o !== '-fsanitize=');
}

/**
 * Options that cannot change the code a compiler produces for Kiln's programs, dropped from the
 * configuration's identity. tcc has no optimiser: `-O` levels only define `__OPTIMIZE__`, which
 * Kiln's programs never test, so all of tcc's `-O` sets compile the same binary. pcc's driver has
 * two levels: every `-O` but `-O0` runs the same commands (`pcc -### -O1` and `-O3` or `-Os` give
 * ccom the same `-xtemps -xdeljumps -xinline -xdce -xssa`; test/harness/matrix-pcc.test.ts checks
 * the installed pcc), so they are one configuration, tested and reported once.
 */
function effectiveOptions(compiler: Compiler, options: readonly string[]): readonly string[] {
  if (compiler.family === 'tcc') return options.filter((o) => !/^-O/.test(o));
  if (compiler.family === 'pcc') return options.map((o) => (/^-O/.test(o) && o !== '-O0' ? '-O' : o));
  return options;
}

/**
 * Builds the test matrix: every compiler with every option set, identical configurations (same
 * binary, same effective options after normalisation) kept once, in compiler-major order.
 */
export function buildMatrix(compilers: readonly Compiler[], optionSets: readonly string[]): Configuration[] {
  const seen = new Set<string>();
  const slugs = new Set<string>();
  const out: Configuration[] = [];
  for (const compiler of compilers) {
    for (const set of optionSets) {
      const { tokens: rest, swarm } = splitSwarmToken(optionTokens(set));
      const { tokens, cpu } = splitCpuToken(rest);
      const split = splitProfileToken(tokens);
      const profile = split.profile;
      const options = withImplicitOptions(compiler, split.options);
      const key =
        `${compiler.realPath}\0${optionKey(effectiveOptions(compiler, options))}` +
        (profile ? `\0profile=${profile}` : '') +
        (swarm ? `\0swarm=${swarm}` : '') +
        (cpu ? `\0cpu=${cpu}` : '');
      if (seen.has(key)) continue;
      seen.add(key);
      const label = [
        ...options,
        ...(profile ? ['profile', ...(profile === 'perturbed' ? ['perturbed'] : [])] : []),
        ...(swarm ? [`swarm${swarm}`] : []),
        ...(cpu ? [`cpu ${cpu}`] : []),
      ];
      const base = slugify(`${compiler.name}${label.length ? ` ${label.join(' ')}` : ''}`);
      let slug = base;
      for (let i = 2; slugs.has(slug); i++) slug = `${base}-${i}`;
      slugs.add(slug);
      const optionsText = [
        ...options,
        ...(profile ? [profileToken(profile)] : []),
        ...(swarm ? [swarmToken(swarm)] : []),
        ...(cpu ? [`+cpu=${cpu}`] : []),
      ].join(' ');
      out.push({
        compiler,
        options,
        optionsText,
        key,
        slug,
        ...(profile ? { profile } : {}),
        ...(swarm ? { swarm: { max: swarm } } : {}),
        ...(cpu ? { qemuCpu: cpu } : {}),
      });
    }
  }
  return out;
}

/** The options of a finding that reach the compiler: its pseudo-options (`+profile`, `+cpu=`) left out. */
export function compilerOptions(tokens: readonly string[]): string[] {
  return splitProfileToken(splitCpuToken(tokens).tokens).options;
}

/**
 * Takes the `+cpu=NAME` pseudo-option (the qemu CPU of a cross configuration) out of an option
 * set's tokens; two of them, or an empty or unsafe name, are refused (`KILN_BAD_OPTION`).
 */
export function splitCpuToken(tokens: readonly string[]): { tokens: string[]; cpu?: string } {
  const rest: string[] = [];
  let cpu: string | undefined;
  for (const t of tokens) {
    const m = /^\+cpu=(.*)$/.exec(t);
    if (!m) {
      rest.push(t);
      continue;
    }
    if (cpu !== undefined || !/^[A-Za-z0-9_.,=+-]+$/.test(m[1]!))
      throw errBadOption(
        '--opts',
        tokens.join(' '),
        'at most one +cpu=NAME, a qemu -cpu value such as rv64,v=true,vlen=256',
      );
    cpu = m[1]!;
  }
  return cpu === undefined ? { tokens: rest } : { tokens: rest, cpu };
}

/**
 * Options Kiln adds to an option set, shown in its text:
 * - `-ffp-contract=off` for gcc and clang wherever the ISA may have FMA (any `-march=`/`-mcpu=`
 *   but the x86-64 baseline and v2, `-mfma`, or a foreign target). GNU C's default in GCC is
 *   `-ffp-contract=fast` and clang's is `on`: both may fuse `a*b + c` into one FMA, rounded once
 *   instead of twice, and Kiln's expected output is C's two roundings. (Kiln's floating values are
 *   exact integers, so a fused result is the same today; the flag keeps the promise for any
 *   program, and is what a compiler engineer expects to see in an exact configuration.)
 * - `-fuse-ld=lld` for clang with `-flto`: the GNU linker needs LLVM's gold plugin, which Debian
 *   ships apart; lld reads LLVM bitcode itself.
 */
function withImplicitOptions(compiler: Compiler, options: readonly string[]): string[] {
  if (compiler.family !== 'gcc' && compiler.family !== 'clang') return [...options];
  const out = [...options];
  const foreign = compiler.target !== undefined || options.some((o) => /^--?target[= ]?/.test(o));
  const fmaIsa =
    foreign ||
    options.some(
      (o) => o === '-mfma' || (/^-m(arch|cpu)=/.test(o) && !/^-march=(x86-64|x86-64-v2|i[3-6]86|pentium.*)$/.test(o)),
    );
  if (fmaIsa && !options.some((o) => o.startsWith('-ffp-contract='))) out.push('-ffp-contract=off');
  if (
    compiler.family === 'clang' &&
    options.some((o) => /^-flto(=.*)?$/.test(o)) &&
    !options.some((o) => o.startsWith('-fuse-ld='))
  )
    out.push('-fuse-ld=lld');
  return out;
}

/** `clang-15 -O3 -march=native` → `clang-15-O3-march-native`. */
export function slugify(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9_.+]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .replace(/-{2,}/g, '-')
      .slice(0, 80) || 'default'
  );
}

/** The limits of one step of a configuration: no address-space limit for sanitizer builds. */
export function limitsFor(step: StepLimits, c: Configuration, kind: 'compile' | 'run' = 'compile'): StepLimits {
  // qemu-user reserves the guest's whole address space up front (4 GiB for a 32-bit guest), so an
  // address-space limit on an emulated run measures qemu, not the program: the run has none.
  const emulated = kind === 'run' && configEmulator(c) !== undefined;
  return isSanitizerBuild(c.options) || emulated ? { ...step, memoryMb: undefined } : step;
}

/**
 * The target model a configuration's binaries are for: the compiler's (a cross compiler), or
 * i686 for a host x86-64 gcc/clang given `-m32` (which then runs natively, with gcc-multilib's
 * libraries), else the host's. Programs for it must be generated with this model.
 */
export function configTarget(c: Configuration): TargetModel {
  if (c.compiler.target !== undefined) return targetByName(c.compiler.target) ?? LP64;
  const triplet = targetOption(c);
  if (triplet !== undefined) return modelOfMachine(triplet) ?? LP64;
  const m32 = (c.compiler.family === 'gcc' || c.compiler.family === 'clang') && c.options.includes('-m32');
  return m32 ? targetByName('i686')! : LP64;
}

/** The triplet of a clang `--target=T` (or `-target T`, `--target T`) option, if any. */
function targetOption(c: Configuration): string | undefined {
  if (c.compiler.family !== 'clang') return undefined;
  for (let i = 0; i < c.options.length; i++) {
    const o = c.options[i]!;
    if (o.startsWith('--target=')) return o.slice('--target='.length);
    if ((o === '-target' || o === '--target') && i + 1 < c.options.length) return c.options[i + 1];
  }
  return undefined;
}

/**
 * How a configuration's binaries are started before `./prog`: a cross gcc's emulator, or for
 * clang `--target=<triplet>` of a modelled foreign target the qemu that runs it (undefined when
 * native, or when that qemu is not on PATH: see {@link configMissingEmulator}).
 */
export function configEmulator(c: Configuration): readonly string[] | undefined {
  const base = c.compiler.emulator ?? clangEmulator(c);
  if (!base) return undefined;
  // `+cpu=NAME` (a vector ISA's configuration): the qemu CPU that runs its binaries.
  return c.qemuCpu ? [base[0]!, '-cpu', c.qemuCpu, ...base.slice(1)] : base;
}

function clangEmulator(c: Configuration): readonly string[] | undefined {
  if (targetOption(c) === undefined) return undefined;
  const model = configTarget(c);
  return model === LP64 ? undefined : emulatorFor(model, process.env, c.compiler.root);
}

/** The qemu a configuration needs but PATH lacks (`qemu-m68k`), or undefined. */
export function configMissingEmulator(c: Configuration): string | undefined {
  const model = configTarget(c);
  const native =
    model === LP64 || (model.name === 'i686' && c.compiler.target === undefined && targetOption(c) === undefined);
  return native || configEmulator(c) ? undefined : model.qemu;
}

/** The one target of a set of configurations, or every distinct one when they disagree. */
export function commonTarget(configs: readonly Configuration[]): {
  readonly target?: TargetModel;
  readonly all: readonly TargetModel[];
} {
  const all = [...new Set(configs.map(configTarget))];
  return all.length === 1 ? { target: all[0]!, all } : { all };
}
