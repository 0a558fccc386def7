// ISA levels of x86-64 as configurations (`-march=x86-64-v2`, `-v3`, `-v4`, `native`): whether
// this machine runs a compiler's binaries for an ISA, probed once per compiler, ISA options and
// CPU with a check program that uses the ISA's vector instructions, and kept in the cache folder.
// A configuration whose binaries cannot run here is compile-only: it still finds crashes, hangs
// and rejections. Queue workers probe on their own machine.
import { readFileSync } from 'node:fs';
import { errBadOption, errBrokenConfiguration } from '../diag/errors.js';
import type { Compiler } from './compilers.js';
import { testConfiguration } from './execute.js';
import { configEmulator, configTarget, type Configuration } from './matrix.js';
import { cachedProbe, digest, type ProbeAnswer } from './probe-cache.js';
import { TempRoot } from './tempdir.js';
import { LP64 } from '../c/target.js';

/** The ISA levels Kiln names: the x86-64 micro-architecture levels and the machine's own. */
export const ISA_LEVELS = ['x86-64-v2', 'x86-64-v3', 'x86-64-v4', 'native'] as const;

/** What the compiled check program reports it was built for, widest first. */
const BUILT_FOR = ['avx512', 'avx2', 'sse4.2', 'baseline'] as const;
type BuiltFor = (typeof BUILT_FOR)[number];

/** What each named level must compile to. */
const LEVEL_BUILDS: Readonly<Record<string, BuiltFor>> = {
  'x86-64': 'baseline',
  'x86-64-v2': 'sse4.2',
  'x86-64-v3': 'avx2',
  'x86-64-v4': 'avx512',
};

/** Lanes of the check program's vectors for each build: one register of the ISA's widest kind. */
const LANES: Readonly<Record<BuiltFor, number>> = { avx512: 16, avx2: 8, 'sse4.2': 4, baseline: 4 };

/** The check program: a vector multiply-add over one register of the ISA's widest kind, and popcounts. */
const ISA_CHECK_PROGRAM = `/* kiln: ISA check */
#include <stdio.h>
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define KILN_BUILD "avx512"
#define KILN_LANES 16
#elif defined(__AVX2__) && defined(__FMA__) && defined(__BMI2__)
#define KILN_BUILD "avx2"
#define KILN_LANES 8
#elif defined(__SSE4_2__) && defined(__POPCNT__)
#define KILN_BUILD "sse4.2"
#define KILN_LANES 4
#else
#define KILN_BUILD "baseline"
#define KILN_LANES 4
#endif
typedef int kiln_v __attribute__((vector_size(KILN_LANES * 4)));
volatile int kiln_seed = 3;
int kiln_x[256], kiln_y[256];
int main(void) {
  kiln_v a, b, c;
  unsigned long long h = 0;
  long dot = 0;
  int i;
  for (i = 0; i < KILN_LANES; i++) { a[i] = kiln_seed * (i + 1); b[i] = kiln_seed + i; }
  c = a * b + (a >> 1) - b;
  for (i = 0; i < KILN_LANES; i++)
    h = h * 31 + (unsigned)c[i] + (unsigned)__builtin_popcount((unsigned)c[i] * 2654435761u);
  /* A loop every vectoriser takes (RVV, SVE, LASX, VSX and z/Vector code on the other targets). */
  for (i = 0; i < 256; i++) { kiln_x[i] = i * kiln_seed; kiln_y[i] = i ^ 5; }
  for (i = 0; i < 256; i++) dot += (long)kiln_x[i] * kiln_y[i];
  printf("%s %llu %ld\\n", KILN_BUILD, h, dot);
  return 0;
}
`;

/** The line the check program prints when built for `b`. */
function isaCheckOutput(b: BuiltFor): string {
  const n = LANES[b];
  const seed = 3;
  let h = 0n;
  for (let i = 0; i < n; i++) {
    const a = seed * (i + 1);
    const bb = seed + i;
    const c = (Math.imul(a, bb) + (a >> 1) - bb) | 0;
    const pop = popcount(Math.imul(c >>> 0, 2654435761) >>> 0);
    h = BigInt.asUintN(64, h * 31n + BigInt(c >>> 0) + BigInt(pop));
  }
  let dot = 0;
  for (let i = 0; i < 256; i++) dot += i * seed * (i ^ 5);
  return `${b} ${h} ${dot}`;
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}

/** What the probe found for one compiler and ISA options. */
export type IsaProbe =
  | { readonly kind: 'runs'; readonly built: string }
  | { readonly kind: 'compile-only'; readonly built: string; readonly reason: string }
  | { readonly kind: 'rejected'; readonly reason: string };

/**
 * The options of an option set that choose the ISA: `-march=`, `-mcpu=`, `-mtune=`, feature
 * switches (`-mavx2`, `-mno-avx512f`) and `-mprefer-vector-width=`; not `-mllvm` nor `-m32`.
 */
export function isaOptions(options: readonly string[]): string[] {
  return options.filter((o) => ISA_OPTION.test(o));
}

const ISA_OPTION = new RegExp(
  [
    '^-m(arch|cpu|tune)=',
    '^-m(no-)?(avx|sse|fma|bmi|popcnt|f16c|lzcnt|movbe|aes|pclmul)',
    '^-mprefer-vector-width=',
    // RISC-V V, SVE, LoongArch LSX/LASX, POWER VSX/Altivec, z/Architecture vectors.
    '^-m(rvv-vector-bits|rvv-max-lmul|sve-vector-bits)=',
    '^-m(no-)?(lasx|lsx|vsx|altivec|vx|zvector)$',
  ].join('|'),
);

/**
 * Whether a configuration names an ISA that the probe must check: a gcc or clang with `-march=`,
 * features or a qemu CPU.
 */
function needsIsaProbe(c: Configuration): boolean {
  if (c.compiler.family !== 'gcc' && c.compiler.family !== 'clang') return false;
  if (c.qemuCpu !== undefined) return true;
  return isaOptions(c.options).some((o) => !o.startsWith('-mtune=') && !o.startsWith('-mprefer-vector-width='));
}

/** The CPU this process runs on, for probe keys (a worker on another machine probes again). */
function cpuIdentity(): string {
  try {
    const text = readFileSync('/proc/cpuinfo', 'utf8');
    const model = /^model name\s*:\s*(.*)$/m.exec(text)?.[1] ?? '';
    const flags = /^flags\s*:\s*(.*)$/m.exec(text)?.[1] ?? '';
    return digest(`${model}\0${flags}`);
  } catch {
    return 'unknown';
  }
}

const memo = new Map<string, Promise<IsaProbe>>();

/**
 * Whether this machine runs the binaries compiler `c` builds with these ISA options: the check
 * program compiled at -O2 with them and run under the campaign's sandbox. A compile that fails is
 * `rejected` (an unknown -march); a binary that dies (SIGILL, or glibc refusing a binary marked for
 * a higher ISA level) or prints another line is `compile-only`.
 */
export function probeIsa(c: Compiler, options: readonly string[], qemuCpu?: string): Promise<IsaProbe> {
  const opts = [...options];
  return cachedProbe(
    'isa',
    c,
    {
      options: opts,
      qemuCpu: qemuCpu ?? null,
      emulator: c.emulator ?? null,
      cpu: cpuIdentity(),
      code: digest(ISA_CHECK_PROGRAM + probeIsaOnce.toString()),
    },
    () => probeIsaOnce(c, opts, qemuCpu),
    memo,
  );
}

async function probeIsaOnce(
  c: Compiler,
  options: readonly string[],
  qemuCpu: string | undefined,
): Promise<ProbeAnswer<IsaProbe>> {
  const temp = TempRoot.create();
  try {
    const config: Configuration = {
      compiler: c,
      options: ['-O2', ...options],
      optionsText: ['-O2', ...options].join(' '),
      key: `isa\0${options.join(' ')}`,
      slug: 'isa-check',
      ...(qemuCpu ? { qemuCpu } : {}),
    };
    const limits = {
      compile: { timeoutMs: 120_000, memoryMb: undefined },
      run: { timeoutMs: 20_000, memoryMb: undefined },
    };
    // The expected line is the level's; `native` (or a CPU name) may be any build.
    const march = /^-march=(.*)$/.exec([...options].reverse().find((o) => o.startsWith('-march=')) ?? '')?.[1];
    const want = march !== undefined ? LEVEL_BUILDS[march] : undefined;
    const r = await testConfiguration(ISA_CHECK_PROGRAM, isaCheckOutput(want ?? 'baseline'), config, limits, temp);
    const timedOut = r.compile.timedOut || (r.run?.timedOut ?? false);
    if (!r.run) {
      const first = firstLine(r.compile.stderr) || `exit status ${r.compile.status ?? r.compile.signal}`;
      return { value: { kind: 'rejected', reason: first }, definite: !timedOut };
    }
    const printed = r.run.stdout.trim();
    const built = BUILT_FOR.find((b) => printed === isaCheckOutput(b));
    if (r.run.signal || r.run.status !== 0 || built === undefined) {
      const said = firstLine(r.run.stderr);
      const why = r.run.signal
        ? `its binaries die of ${r.run.signal} here`
        : r.run.status !== 0
          ? `its binaries exit with status ${r.run.status} here${said ? `: ${said}` : ''}`
          : `its check binary printed '${printed.slice(0, 60)}'`;
      const compiledFor = /^(avx512|avx2|sse4\.2|baseline) /.exec(printed)?.[1] ?? want ?? 'unknown';
      return { value: { kind: 'compile-only', built: compiledFor, reason: why }, definite: !timedOut };
    }
    if (want !== undefined && built !== want)
      return {
        value: { kind: 'rejected', reason: `-march=${march} compiled for ${built}, not ${want}` },
        definite: true,
      };
    return { value: { kind: 'runs', built }, definite: true };
  } finally {
    temp.dispose();
  }
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0)
      ?.slice(0, 200) ?? ''
  );
}

/**
 * The configurations with their ISA probed: those whose binaries cannot run here become
 * compile-only (`compileOnly` holds the reason). An ISA the compiler rejects is refused with
 * `KILN_BAD_OPTION`, before any test runs.
 */
export async function withIsaProbes(configs: readonly Configuration[]): Promise<Configuration[]> {
  const out: Configuration[] = [];
  for (const c of configs) {
    if (!needsIsaProbe(c)) {
      out.push(c);
      continue;
    }
    const isa = isaOptions(c.options);
    const p = await probeIsa(c.compiler, isa, c.qemuCpu);
    const foreign = configTarget(c) !== LP64;
    if (p.kind === 'rejected')
      throw errBadOption(
        '--opts',
        c.optionsText,
        foreign
          ? `ISA options ${c.compiler.name} accepts (it says: ${p.reason})`
          : `ISA options ${c.compiler.name} accepts (it says: ${p.reason}); the levels are ` +
              ISA_LEVELS.map((l) => `-march=${l}`).join(', '),
      );
    // A foreign target's binaries run under qemu: one that cannot run the ISA is a broken
    // configuration (another qemu CPU, or a newer qemu, runs it), not a compile-only one.
    if (p.kind === 'compile-only' && foreign)
      throw errBrokenConfiguration(
        `${c.compiler.name} ${c.optionsText}`,
        `${configEmulator(c)?.join(' ') ?? 'no qemu'} cannot run its ISA's check program (${p.reason})`,
        0,
        'name a qemu CPU that has the ISA with +cpu=NAME (rv64,v=true,vlen=256; max,sve-default-vector-length=32; ' +
          "power10; max), or use the sid root's qemu-user (npm run setup -- --profile latest)",
      );
    out.push(p.kind === 'compile-only' ? { ...c, compileOnly: `${isa.join(' ')}: ${p.reason}` } : c);
  }
  return out;
}

/** What `kiln compilers` says of a gcc or clang: each ISA level, and whether it runs here. */
export async function isaLevels(c: Compiler): Promise<{ level: string; probe: IsaProbe }[]> {
  const out: { level: string; probe: IsaProbe }[] = [];
  for (const level of ISA_LEVELS) out.push({ level, probe: await probeIsa(c, [`-march=${level}`]) });
  return out;
}
