// Swarm configurations (`+swarm`, `+swarm=K`; docs/config.md): each test appends up to K flags
// drawn with its own seed from a catalogue of the compiler's optimisation flags that keep the
// meaning of a UB-free program whose layout Kiln models. Passes that are off by default (loop
// interchange, flattening, unroll-and-jam, DFA jump threading, GCC's graphite and loop splitting)
// are reached only through such flags, and so are the limits in GCC's --params.
//
// A catalogue is probed once per compiler and kept in the cache folder: GCC's comes from its own
// `--help=optimizers` (so trunk's new flags are drawn too), clang's from the curated lists below.
// Every flag is checked by building and running the compiler check program with it under
// `-Werror`, in conflict-free batches split on failure, so a flag the compiler rejects, ignores
// with a warning, or that breaks the link or the binary is never drawn.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errBadOption } from '../diag/errors.js';
import type { EmittedFile } from '../emit/files.js';
import { Rng } from '../random/rng.js';
import type { Compiler } from './compilers.js';
import { runProcess } from './process.js';
import { cachedProbe, digest, type ProbeAnswer } from './probe-cache.js';
import { TempRoot } from './tempdir.js';

/** Flags a `+swarm` test draws at most when the option set names no K. */
const DEFAULT_SWARM_FLAGS = 8;

/** The most flags `+swarm=K` may ask for. */
const MAX_SWARM_FLAGS = 64;

/** A swarm option set's draw: at most `max` flags from `catalogue`; `drawn` is set on a test's instance. */
export interface SwarmSpec {
  readonly max: number;
  /** The compiler's probed catalogue, sorted (set by {@link withSwarmCatalogue}). */
  readonly catalogue?: readonly string[];
  /** The flags one test drew (set on the configuration a test ran, {@link swarmInstance}). */
  readonly drawn?: readonly string[];
}

/** The pseudo-option of a swarm option set: `+swarm` (K = 8) or `+swarm=K`. */
export function swarmToken(max: number): string {
  return max === DEFAULT_SWARM_FLAGS ? '+swarm' : `+swarm=${max}`;
}

/**
 * Takes the `+swarm[=K]` pseudo-option out of an option set's tokens. Two of them, or a K that is
 * not a whole number from 1 to 64, is refused (`KILN_BAD_OPTION`).
 */
export function splitSwarmToken(tokens: readonly string[]): { tokens: string[]; swarm?: number } {
  const rest: string[] = [];
  let swarm: number | undefined;
  for (const t of tokens) {
    const m = /^\+swarm(?:=(.*))?$/.exec(t);
    if (!m) {
      rest.push(t);
      continue;
    }
    const k = m[1] === undefined ? DEFAULT_SWARM_FLAGS : Number(m[1]);
    if (swarm !== undefined || !Number.isInteger(k) || k < 1 || k > MAX_SWARM_FLAGS)
      throw errBadOption(
        '--opts',
        tokens.join(' '),
        `at most one +swarm or +swarm=K, with K a whole number from 1 to ${MAX_SWARM_FLAGS}`,
      );
    swarm = k;
  }
  return swarm === undefined ? { tokens: rest } : { tokens: rest, swarm };
}

/** The argv words of a catalogue flag: `-mllvm -enable-loop-flatten` is two. */
export function flagTokens(flag: string): string[] {
  return flag.split(' ');
}

/**
 * The family of a flag: flags of one family override each other (`-funroll-loops` and
 * `-fno-unroll-loops`, two values of one `--param` or `-mllvm` option), so a draw takes one.
 */
export function flagFamily(flag: string): string {
  const llvm = /^-mllvm -([^=]+)/.exec(flag);
  if (llvm) return `-mllvm -${llvm[1]}`;
  const param = /^--param=([^=]+)/.exec(flag);
  if (param) return `--param=${param[1]}`;
  const f = /^-([fm])(?:no-)?([^=]+)/.exec(flag);
  if (f) return `-${f[1]}${f[2]}`;
  return flag;
}

/**
 * Flags that change what a UB-free program means or how its data is laid out, and so are never
 * drawn, each with its reason. They are matched against every catalogue, GCC's own list included.
 */
// biome-ignore format: data table
const SWARM_EXCLUDED: readonly { readonly pattern: RegExp; readonly reason: string }[] = [
  { pattern: /^-f(no-)?(fast-math|associative-math|reciprocal-math|finite-math-only|signed-zeros|trapping-math|math-errno|unsafe-math-optimizations|cx-limited-range|cx-fortran-rules|approx-func|honor-nans|honor-infinities|single-precision-constant)$/,
    reason: 'the fast-math family: it lets the compiler change floating results (reassociation, reciprocals, no NaN, no signed zero), and Kiln expects the exact IEEE result' },
  { pattern: /^-f(denormal-fp-math|denormal-fp-math-f32)=|^-ffp-model=(fast|aggressive)$/,
    reason: 'fast-math by another name: flushes denormals or allows reassociation' },
  { pattern: /^-ffp-contract=/,
    reason: 'Kiln pins -ffp-contract=off wherever the ISA has FMA: a contracted a*b + c is rounded once, not twice' },
  { pattern: /^-fexcess-precision=/,
    reason: 'changes the precision of floating intermediates' },
  { pattern: /^-f(no-)?(short-enums|short-wchar|pack-struct)(=.*)?$/,
    reason: 'changes the size or alignment of types, which Kiln\'s target model fixes' },
  { pattern: /^-f(no-)?(signed-char|unsigned-char)$/,
    reason: 'changes the signedness of plain char, which Kiln\'s target model fixes' },
  { pattern: /^-f(no-)?(reg-struct-return|pcc-struct-return|leading-underscore)$/,
    reason: 'changes the ABI the C library was built for' },
  { pattern: /^-f(no-)?merge-all-constants$/,
    reason: 'lets distinct constant objects share an address, which a program comparing pointers observes' },
  { pattern: /^-f(no-)?trapv$/,
    reason: 'traps on signed overflow, which Kiln\'s programs never have: its only findings would be GCC\'s unmaintained -ftrapv checks, which UBSan campaigns cover' },
  { pattern: /^-f(no-)?(branch-probabilities|vpt|auto-profile|profile-.*)$/,
    reason: 'needs a profile from an instrumented run (the +profile configurations build one)' },
  { pattern: /^-ftree-parallelize-loops=/,
    reason: 'needs libgomp and threads' },
  { pattern: /^-f(no-)?(opt-info|save-optimization-record)$/,
    reason: 'only prints or writes optimisation reports' },
  { pattern: /^-f(no-)?(whole-program|split-stack)$/,
    reason: 'changes linkage or needs a runtime: breaks separate translation units or the static link' },
  { pattern: /^-flive-patching=/,
    reason: 'GCC refuses it beside most IPA flags ("-fipa-ra is incompatible with -flive-patching=inline-clone"), so a swarm that draws both is rejected for its options, not its program' },
  { pattern: /^-f(no-)?lax-vector-conversions(=.*)?$/,
    reason: 'changes which vector conversions are accepted, so valid programs are rejected' },
];

/** Whether a flag is excluded from every catalogue. */
export function excludedFlag(flag: string): boolean {
  return SWARM_EXCLUDED.some((e) => e.pattern.test(flag));
}

/**
 * GCC's `--param`s worth varying, with the values drawn: the limits of the inliner, the unrollers
 * and peelers, unswitching, loop interchange and unroll-and-jam, the vectoriser's versioning and
 * epilogues, jump threading, combine and store merging. A version that lacks one refuses it at the
 * probe, and it is not drawn there.
 */
// biome-ignore format: data table
const GCC_PARAMS: readonly { readonly name: string; readonly values: readonly number[] }[] = [
  { name: 'max-inline-insns-auto', values: [1, 5, 100, 1000] },
  { name: 'max-inline-insns-single', values: [1, 10, 500, 5000] },
  { name: 'inline-unit-growth', values: [0, 10, 400] },
  { name: 'early-inlining-insns', values: [0, 50] },
  { name: 'max-unroll-times', values: [1, 2, 4, 16, 32] },
  { name: 'max-unrolled-insns', values: [10, 50, 1000] },
  { name: 'max-average-unrolled-insns', values: [10, 400] },
  { name: 'max-peel-times', values: [1, 4, 64] },
  { name: 'max-peeled-insns', values: [10, 1000] },
  { name: 'max-completely-peel-times', values: [1, 4, 64] },
  { name: 'max-completely-peeled-insns', values: [10, 1000] },
  { name: 'max-unswitch-insns', values: [0, 500] },
  { name: 'max-unswitch-depth', values: [1, 10] },
  { name: 'max-unswitch-level', values: [1, 10] },
  { name: 'loop-interchange-max-num-stmts', values: [4, 256] },
  { name: 'loop-interchange-stride-ratio', values: [0, 1, 10] },
  { name: 'unroll-jam-max-unroll', values: [2, 8] },
  { name: 'unroll-jam-min-percent', values: [0, 50] },
  { name: 'vect-max-version-for-alias-checks', values: [0, 1, 100] },
  { name: 'vect-max-version-for-alignment-checks', values: [0, 1, 100] },
  { name: 'vect-epilogues-nomask', values: [0, 1] },
  { name: 'vect-partial-vector-usage', values: [0, 1, 2] },
  { name: 'vect-inner-loop-cost-factor', values: [1, 1000] },
  { name: 'vect-max-peeling-for-alignment', values: [0, 8] },
  { name: 'min-vect-loop-bound', values: [0, 2, 8] },
  { name: 'max-jump-thread-duplication-stmts', values: [0, 200] },
  { name: 'max-jump-thread-paths', values: [1, 256] },
  { name: 'max-combine-insns', values: [2, 3] },
  { name: 'max-stores-to-merge', values: [2, 256] },
  { name: 'store-merging-allow-unaligned', values: [0] },
  { name: 'max-tail-merge-comparisons', values: [0, 100] },
  { name: 'max-cse-path-length', values: [1, 100] },
  { name: 'max-gcse-insertion-ratio', values: [0, 100] },
  { name: 'lim-expensive', values: [0, 100] },
  { name: 'max-iterations-to-track', values: [1, 10000] },
  { name: 'sccvn-max-alias-queries-per-access', values: [1, 5000] },
  { name: 'ipa-cp-eval-threshold', values: [1, 5000] },
  { name: 'ipa-cp-unit-growth', values: [0, 100] },
  { name: 'max-ssa-name-query-depth', values: [1, 10] },
  { name: 'avoid-fma-max-bits', values: [0, 512] },
  { name: 'graphite-max-nb-scop-params', values: [0, 100] },
  { name: 'loop-block-tile-size', values: [2, 51] },
  { name: 'prefetch-latency', values: [1, 1000] },
  { name: 'max-predicted-iterations', values: [1, 1000] },
  { name: 'align-loop-iterations', values: [0, 16] },
  { name: 'max-sched-region-blocks', values: [1, 100] },
];

/**
 * Clang's optimisation and code generation flags that keep a program's meaning. Clang has no
 * `--help=optimizers`: this list is curated, and the probe keeps the ones a version accepts
 * without a warning (clang warns about GCC-only flags and ignores them).
 */
// biome-ignore format: data table
const CLANG_FLAGS: readonly string[] = [
  '-funroll-loops', '-fno-unroll-loops', '-fvectorize', '-fno-vectorize', '-fslp-vectorize', '-fno-slp-vectorize',
  '-finline-functions', '-fno-inline-functions', '-finline-hint-functions', '-fno-inline',
  '-fstrict-aliasing', '-fno-strict-aliasing', '-fwrapv', '-fno-jump-tables', '-fno-delete-null-pointer-checks',
  '-fno-zero-initialized-in-bss', '-fno-optimize-sibling-calls', '-fomit-frame-pointer', '-fno-omit-frame-pointer',
  '-fstack-protector-strong', '-fstack-protector-all', '-fstack-clash-protection', '-fcf-protection=full',
  '-fno-plt', '-fdata-sections', '-ffunction-sections', '-fno-common', '-fno-builtin',
  '-ffinite-loops', '-fno-finite-loops', '-fglobal-isel', '-fno-unique-section-names', '-fno-addrsig',
  '-fno-asynchronous-unwind-tables', '-fexceptions', '-ftrivial-auto-var-init=zero', '-ftrivial-auto-var-init=pattern',
  '-fzero-call-used-regs=used-gpr', '-fzero-call-used-regs=all', '-fno-semantic-interposition',
  '-fsemantic-interposition', '-fno-strict-float-cast-overflow', '-ffp-model=strict', '-ffp-exception-behavior=maytrap',
  '-fno-integrated-as', '-fbasic-block-sections=all', '-fsplit-lto-unit', '-fno-preserve-as-comments',
  '-mno-red-zone', '-mstackrealign', '-mno-omit-leaf-frame-pointer',
];

/**
 * LLVM options passed through `-mllvm`: passes that are off by default (loop flattening and
 * interchange, DFA jump threading, unroll-and-jam, loop distribution, GVN hoisting and sinking,
 * LICM versioning), and forced vector widths, interleaving, predication and epilogues.
 */
// biome-ignore format: data table
const CLANG_MLLVM: readonly string[] = [
  '-enable-loop-flatten', '-enable-loopinterchange', '-enable-dfa-jump-thread', '-enable-unroll-and-jam',
  '-enable-loop-distribute', '-enable-gvn-hoist', '-enable-gvn-sink', '-enable-loop-versioning-licm',
  '-enable-nontrivial-unswitch', '-extra-vectorizer-passes', '-enable-cond-stores-vec',
  '-force-vector-width=2', '-force-vector-width=4', '-force-vector-width=8', '-force-vector-width=16',
  '-force-vector-interleave=1', '-force-vector-interleave=2', '-force-vector-interleave=4',
  '-prefer-predicate-over-epilogue=predicate-else-scalar-epilogue',
  '-prefer-predicate-over-epilogue=predicate-dont-vectorize',
  '-enable-masked-interleaved-mem-accesses', '-enable-interleaved-mem-accesses', '-vectorizer-maximize-bandwidth',
  '-epilogue-vectorization-force-VF=2', '-epilogue-vectorization-force-VF=4', '-enable-epilogue-vectorization=false',
  '-slp-threshold=-10', '-slp-vectorize-hor-store', '-unroll-threshold=50', '-unroll-threshold=1000',
  '-unroll-count=2', '-unroll-count=8', '-enable-chr=false', '-enable-merge-functions', '-enable-ipra',
  '-enable-ext-tsp-block-placement', '-enable-post-misched', '-enable-misched=false', '-enable-tail-merge=false',
  '-enable-split-backedge-in-load-pre', '-enable-load-pre=false', '-enable-constraint-elimination=false',
  '-runtime-memory-check-threshold=64', '-aggressive-ext-opt', '-x86-cmov-converter=false',
];

/**
 * The catalogue of a GCC, from the text of `gcc -Q --help=optimizers`: each on/off flag in both
 * polarities, each value of a flag with a list of values, none of the numeric ones (alignments,
 * scheduling limits), none a front end other than C's owns, none of {@link SWARM_EXCLUDED}.
 */
export function gccCatalogue(helpText: string): string[] {
  const out = new Set<string>();
  for (const line of helpText.split('\n')) {
    const m = /^\s+(-f[A-Za-z0-9][A-Za-z0-9_+-]*)(=\S*)?(?:\s+(.*))?$/.exec(line);
    if (!m) continue;
    const [, name, value, rest] = m;
    const state = (rest ?? '').trim();
    if (state.includes('[available in')) continue;
    if (value !== undefined) {
      // `-fvect-cost-model=[unlimited|dynamic|cheap]`: each value; `-falign-loops=`, `=<0,2>`: numeric, skipped.
      const values = /^=\[([^\]]*)\]$/.exec(value)?.[1];
      if (values !== undefined) for (const v of values.split('|')) if (v) out.add(`${name}=${v}`);
      continue;
    }
    // An alias line names the option it stands for instead of a state.
    if (state.startsWith('-')) continue;
    const base = name!.replace(/^-fno-/, '-f');
    out.add(base);
    out.add(base.replace(/^-f/, '-fno-'));
  }
  return [...out].filter((f) => !excludedFlag(f)).sort();
}

/** The flags a compiler's catalogue is drawn from before the probe (undefined: no swarm for it). */
async function candidateFlags(
  c: Compiler,
  temp: TempRoot,
): Promise<{ flags: string[]; definite: boolean } | undefined> {
  if (c.family === 'clang')
    return {
      flags: [...CLANG_FLAGS, ...CLANG_MLLVM.map((o) => `-mllvm ${o}`)].filter((f) => !excludedFlag(f)),
      definite: true,
    };
  if (c.family !== 'gcc') return undefined;
  const dir = await temp.dir('swarm');
  const r = await runProcess(c.command, ['-Q', '-O2', '--help=optimizers'], {
    cwd: dir,
    timeoutMs: 60_000,
    maxOutputBytes: 1 << 20,
    env: { ...process.env, LC_ALL: 'C' },
  });
  if (r.timedOut || r.signal) return { flags: [], definite: false };
  const params = GCC_PARAMS.flatMap((p) => p.values.map((v) => `--param=${p.name}=${v}`));
  return { flags: [...gccCatalogue(r.stdout), ...params], definite: true };
}

/** Families Kiln has swarm catalogues for. */
function swarmFamily(c: Pick<Compiler, 'family'>): boolean {
  return c.family === 'gcc' || c.family === 'clang';
}

const PROBE_SOURCE = `/* kiln: swarm flag probe */
#include <stdio.h>
static int sum(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i] * (i + 1); return s; }
int main(void) {
  int a[16];
  for (int i = 0; i < 16; i++) a[i] = 3 * i - 7;
  printf("%d\\n", sum(a, 16));
  return 0;
}
`;
const PROBE_OUTPUT = String(Array.from({ length: 16 }, (_, i) => (3 * i - 7) * (i + 1)).reduce((s, x) => s + x, 0));

/** One build and run of the probe program with some flags: whether it printed its line, and the compiler's stderr. */
type FlagTest = (flags: readonly string[]) => Promise<{ ok: boolean; stderr: string; definite: boolean }>;

function probeTest(c: Compiler, temp: TempRoot): FlagTest {
  return async (flags) => {
    const dir = await temp.dir('swarm');
    await writeFile(join(dir, 'probe.c'), PROBE_SOURCE);
    const args = ['-O2', '-Werror', ...flags.flatMap(flagTokens), 'probe.c', '-o', 'probe'];
    const env = { ...process.env, LC_ALL: 'C' };
    const cc = await runProcess(c.command, args, { cwd: dir, timeoutMs: 120_000, env });
    if (cc.timedOut || cc.signal) return { ok: false, stderr: cc.stderr, definite: false };
    if (cc.status !== 0) return { ok: false, stderr: cc.stderr, definite: true };
    const run = await runProcess(join(dir, 'probe'), [], { cwd: dir, timeoutMs: 10_000, env });
    return { ok: run.status === 0 && run.stdout.trim() === PROBE_OUTPUT, stderr: cc.stderr, definite: !run.timedOut };
  };
}

/**
 * The flags that `test` accepts, in their order. They are tried in batches with at most one flag
 * per family (so no batch contradicts itself); a failing batch drops the flags its diagnostics
 * name, each tried again alone, and is otherwise split in halves until each failure is one flag.
 */
export async function acceptedFlags(
  flags: readonly string[],
  test: FlagTest,
): Promise<{ accepted: string[]; definite: boolean }> {
  let definite = true;
  const ok = new Set<string>();
  const check = async (batch: readonly string[]): Promise<void> => {
    if (batch.length === 0) return;
    const r = await test(batch);
    definite &&= r.definite;
    if (r.ok) {
      for (const f of batch) ok.add(f);
      return;
    }
    if (batch.length === 1) return;
    const named = batch.filter((f) => mentions(r.stderr, f));
    if (named.length > 0 && named.length < batch.length) {
      for (const f of named) await check([f]);
      return check(batch.filter((f) => !named.includes(f)));
    }
    const half = Math.ceil(batch.length / 2);
    await check(batch.slice(0, half));
    await check(batch.slice(half));
  };
  for (const batch of conflictFreeBatches(flags)) await check(batch);
  return { accepted: flags.filter((f) => ok.has(f)), definite };
}

/** Whether a diagnostic names a flag (`'-fno-foo'`, `-enable-x`, the name of a --param). */
function mentions(stderr: string, flag: string): boolean {
  const last = flagTokens(flag).at(-1)!;
  const name = /^--param=([^=]+)/.exec(last)?.[1] ?? last.replace(/=.*$/, '');
  return new RegExp(`(^|[^A-Za-z0-9_-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^A-Za-z0-9_-]|$)`, 'm').test(
    stderr,
  );
}

/** Splits flags into batches holding at most one flag of each family, in order. */
function conflictFreeBatches(flags: readonly string[]): string[][] {
  const batches: { families: Set<string>; flags: string[] }[] = [];
  for (const f of flags) {
    const fam = flagFamily(f);
    let b = batches.find((x) => !x.families.has(fam));
    if (!b) batches.push((b = { families: new Set(), flags: [] }));
    b.families.add(fam);
    b.flags.push(f);
  }
  return batches.map((b) => b.flags);
}

const catalogues = new Map<string, Promise<readonly string[]>>();

/**
 * The swarm catalogue of a compiler: its candidate flags that the probe accepts, sorted; empty
 * for families without one. Probed once per compiler and kept in the cache folder.
 */
export function swarmCatalogue(c: Compiler): Promise<readonly string[]> {
  if (!swarmFamily(c)) return Promise.resolve([]);
  const code = digest(
    [
      PROBE_SOURCE,
      JSON.stringify(SWARM_EXCLUDED.map((e) => e.pattern.source)),
      JSON.stringify(GCC_PARAMS),
      CLANG_FLAGS.join(' '),
      CLANG_MLLVM.join(' '),
      gccCatalogue.toString(),
      acceptedFlags.toString(),
    ].join('\0'),
  );
  return cachedProbe(
    'swarm',
    c,
    { code },
    async (): Promise<ProbeAnswer<readonly string[]>> => {
      const temp = TempRoot.create();
      try {
        const cand = await candidateFlags(c, temp);
        if (!cand) return { value: [], definite: true };
        const r = await acceptedFlags(cand.flags, probeTest(c, temp));
        return { value: [...r.accepted].sort(), definite: r.definite && cand.definite };
      } finally {
        temp.dispose();
      }
    },
    catalogues,
  );
}

/**
 * The flags one test draws: from 1 to `max`, uniformly, then that many flags of distinct families
 * none of the option set's own options belongs to, from a generator seeded by `seedText` (the
 * program's text and the configuration), so a test draws the same flags wherever it runs.
 */
export function drawSwarm(
  catalogue: readonly string[],
  max: number,
  own: readonly string[],
  seedText: string,
): string[] {
  const taken = new Set(own.map(flagFamily));
  const pool = catalogue.filter((f) => !taken.has(flagFamily(f)));
  if (pool.length === 0) return [];
  const rng = Rng.seeded(`kiln-swarm:${seedText}`);
  const want = Math.min(rng.int(1, max), pool.length);
  const drawn: string[] = [];
  const families = new Set<string>();
  for (let tries = 0; drawn.length < want && tries < 20 * want; tries++) {
    const f = rng.pick(pool);
    const fam = flagFamily(f);
    if (families.has(fam)) continue;
    families.add(fam);
    drawn.push(f);
  }
  return drawn;
}

/** The seed text of one test: the program's files and the configuration's identity. */
export function swarmSeedText(files: readonly EmittedFile[], configKey: string): string {
  return digest(`${configKey}\0${files.map((f) => `${f.name}\0${f.content}`).join('\0')}`);
}

/** What {@link withSwarmCatalogues} reads of a configuration (src/harness/matrix.ts's, which imports this file). */
interface SwarmConfigured {
  readonly compiler: Compiler;
  readonly optionsText: string;
  readonly swarm?: SwarmSpec;
}

/**
 * The configurations with the swarm catalogue of each swarm configuration's compiler attached
 * (probed once per compiler). `+swarm` for a compiler without a catalogue (tcc, pcc, cc), or one
 * whose catalogue came out empty, is refused with `KILN_BAD_OPTION`.
 */
export async function withSwarmCatalogues<C extends SwarmConfigured>(configs: readonly C[]): Promise<C[]> {
  const out: C[] = [];
  for (const c of configs) {
    if (!c.swarm || c.swarm.catalogue) {
      out.push(c);
      continue;
    }
    if (!swarmFamily(c.compiler))
      throw errBadOption(
        '--opts',
        c.optionsText,
        `+swarm only with gcc or clang (${c.compiler.name} is ${c.compiler.family}, which has no catalogue of flags)`,
      );
    const catalogue = await swarmCatalogue(c.compiler);
    if (catalogue.length === 0)
      throw errBadOption(
        '--opts',
        c.optionsText,
        `+swarm with a compiler that accepts some catalogue flag (${c.compiler.name} accepted none of them)`,
      );
    out.push({ ...c, swarm: { ...c.swarm, catalogue } });
  }
  return out;
}
