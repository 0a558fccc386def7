// The indirect effect of YARPGen's generation policies (Livinskii et al. §4.3, digest A4): do
// optimisations fire more often on programs generated with the policies on? YARPGen counted
// optimisation statistics and reports a geometric-mean gain of 1.2x for LLVM and 1.4x for GCC.
// Here the proxy is the number of optimisation remarks per thousand lines of test code, from
// `gcc -O3 -fopt-info-all` and `clang -O3 -Rpass='.*'`, on the same seeds and size preset with
// the policies on (the default policy) and off (every field of `policies` off, shuffling and
// swarm included), and with YARPGen's policies only (swarm off). Test code is everything but
// Kiln's harness (see `harnessStart`); whole-program figures are printed too.
//
//   npm run bench:policy [-- --count 1000 --seed 1 --size medium --jobs 2 --modes csmith,yarpgen]
//                        [-- --variants on,no-swarm,expr,+contexts,-shuffle,@policy.json,off]
//                        [-- --detail 20] [-- --compilers gcc,clang] [-- --gcc gcc-16 --clang clang-22]
//   npm run bench:policy -- --smoke     (2 programs, csmith mode, gcc, on and off: checks the script works)
//
// `--variants` runs an ablation: `+NAME` is every policy off but NAME, `-NAME` the defaults
// without NAME. Program sizes vary a lot from seed to seed and a few programs with fully unrolled
// loops carry many of the remarks: at 300 programs per variant ratios still swing by ±25%, at
// 1,000 the typical program's by about ±8%. The defaults take about 50 minutes on 2 cores.
//
// Prints, per mode and compiler: remarks per thousand lines with the policies on, on without
// swarm, and off, and the ratios to off, both pooled over all programs and for the typical
// program (the geometric mean of per-program rates, robust to the few loop-heavy programs that
// carry much of the pooled figure); the share of programs where the loop or SLP vectoriser
// reports a vectorised loop or region in test code; and generation speed (programs per second).
// `--gcc` and `--clang` name the commands (default gcc and clang); every variant's policy is
// lowered to what the chosen compilers all accept (`_BitInt` widths, `__int128`, vectors).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitFiles, isTranslationUnit, SPLIT_FILES, type EmittedFile } from '../src/emit/files.js';
import type { Mode } from '../src/gen/mode.js';
import { CSMITH_POLICY, parsePolicy, type Policy, type SizePreset } from '../src/gen/policy.js';
import { compilerCapabilities, policyFor } from '../src/harness/capabilities.js';
import { resolveCompilers } from '../src/harness/compilers.js';
import { runProcess } from '../src/harness/process.js';
import { generateProgram } from '../src/repair/generate.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

// `--smoke`: two csmith-mode programs, gcc, on against off; checks the script works, measures nothing.
const smoke = process.argv.includes('--smoke');
const count = Number(arg('count', smoke ? '2' : '1000'));
const firstSeed = Number(arg('seed', '1'));
const size = arg('size', 'medium') as SizePreset;
const jobs = Number(arg('jobs', '2'));
const modes = arg('modes', smoke ? 'csmith' : 'csmith,yarpgen').split(',') as Mode[];
/**
 * `--detail N`: also list the N counters and the N kinds of remark whose counts changed most, per variant and compiler.
 */
const detail = Number(arg('detail', '0'));

/** Every field of `policies` switched off: numbers to 0, switches to false. */
function policiesOff(): Record<string, number | boolean> {
  const off: Record<string, number | boolean> = {};
  for (const [k, v] of Object.entries(CSMITH_POLICY.policies)) off[k] = typeof v === 'boolean' ? false : 0;
  return off;
}

/**
 * `on`: the default policy. `no-swarm`: YARPGen's policies only (swarm testing, which switches
 * whole features such as loops off, is Csmith's and changes what compilers can optimise far more
 * than expression shapes do). `expr`: the expression policies only (no swarm, no shuffling).
 * `off`: every field of `policies` off. For ablations, `--variants` also takes `+NAME` (everything
 * off but that policy, at its default) and `-NAME` (the default with that policy off).
 */
type Variant = string;
function variantPolicy(v: Variant): Policy {
  const defaults = CSMITH_POLICY.policies as Record<string, number | boolean>;
  const one = (name: string): string => {
    if (!(name in defaults)) throw new Error(`unknown policy ${name}; one of ${Object.keys(defaults).join(', ')}`);
    return name;
  };
  if (v === 'on') return parsePolicy({}, size);
  if (v === 'no-swarm') return parsePolicy({ name: v, policies: { swarm: 0 } }, size);
  if (v === 'expr') return parsePolicy({ name: v, policies: { swarm: 0, shuffle: false } }, size);
  if (v === 'off') return parsePolicy({ name: v, policies: policiesOff() }, size);
  // A placebo: every chance so small it never fires, but still drawn, so the random stream moves
  // as with the policies on. Compared with `off` it shows how much of a difference is sampling.
  if (v === 'placebo') {
    const tiny = Object.fromEntries(
      Object.entries(policiesOff()).map(([k, x]) => [k, typeof x === 'boolean' ? false : 1e-12]),
    );
    return parsePolicy({ name: v, policies: tiny }, size);
  }
  if (v.startsWith('+'))
    return parsePolicy({ name: v, policies: { ...policiesOff(), [one(v.slice(1))]: defaults[v.slice(1)] } }, size);
  if (v.startsWith('-')) {
    const name = one(v.slice(1));
    return parsePolicy({ name: v, policies: { [name]: typeof defaults[name] === 'boolean' ? false : 0 } }, size);
  }
  // `@FILE`: a policy file (JSON), for trying other weights against the same `off`.
  if (v.startsWith('@')) return parsePolicy({ name: v, ...JSON.parse(readFileSync(v.slice(1), 'utf8')) }, size);
  throw new Error(`unknown variant ${v}: on, no-swarm, expr, off, placebo, +NAME, -NAME or @FILE`);
}
interface Compiler {
  readonly name: string;
  /** The command run (`--gcc`, `--clang`). */
  readonly command: string;
  readonly args: readonly string[];
  /**
   * Kinds of remark counted, each by the lines of the compiler's output it matches (the first
   * kind is the headline figure). `all`: anywhere in the program, checksum harness included;
   * otherwise only remarks located in the test code (see {@link harnessStart}).
   */
  readonly remarks: readonly { readonly label: string; readonly re: RegExp; readonly all?: boolean }[];
}

const ALL_COMPILERS: readonly Compiler[] = [
  // -fopt-info-all also reports missed optimisations and notes; "optimized" lines alone are shown too.
  {
    name: 'gcc',
    command: arg('gcc', 'gcc'),
    args: ['-O3', '-w', '-fopt-info-all', '-fdump-statistics'],
    remarks: [
      { label: 'gcc', re: /: (optimized|missed|note): / },
      { label: 'gcc optimized-only', re: /: optimized: / },
      { label: 'gcc whole program', re: /: (optimized|missed|note): /, all: true },
    ],
  },
  {
    name: 'clang',
    command: arg('clang', 'clang'),
    args: ['-O3', '-w', '-Rpass=.*'],
    remarks: [
      { label: 'clang', re: /: remark: / },
      { label: 'clang whole program', re: /: remark: /, all: true },
    ],
  },
];

const chosen = arg('compilers', smoke ? 'gcc' : 'gcc,clang').split(',');
for (const c of chosen)
  if (!ALL_COMPILERS.some((x) => x.name === c)) throw new Error(`unknown compiler ${c}: gcc or clang`);
const COMPILERS = ALL_COMPILERS.filter((c) => chosen.includes(c.name));

const VARIANTS: Variant[] = arg('variants', smoke ? 'on,off' : 'on,no-swarm,off').split(',');
if (!VARIANTS.includes('off')) VARIANTS.push('off');
const resolved = await resolveCompilers(COMPILERS.map((c) => c.command));
const caps = await Promise.all(resolved.map((c) => compilerCapabilities(c)));
// The resolved command: a root compiler's launcher is not on PATH under its name.
const commandOf = new Map(COMPILERS.map((c, i) => [c.name, resolved[i]!.command]));
console.log(`compilers: ${resolved.map((c) => `${c.name} (${c.version})`).join(', ')}`);
const POLICIES: Record<Variant, Policy> = Object.fromEntries(
  VARIANTS.map((v) => [v, policyFor(variantPolicy(v), caps, 'every')]),
);

/**
 * The line where a file's harness starts: `main`, which hashes every global into the checksum and
 * prints it. That code is Kiln's, the same whatever the policies, and it is large: one inlined
 * `kiln_hash` call per scalar object (arrays in completely unrolled loops) made about 45% of all
 * gcc and clang remarks on csmith-mode programs, so its share of a program, which follows the
 * number of globals rather than anything the policies do, swamped the comparison. Remarks located
 * from here on are left out of the headline figures, and so are these lines. In a yarpgen-mode
 * program only `func.c` is test code: `init.c` (the globals' values) and `driver.c` (the checksum)
 * are harness throughout, and they carried over 99% of its remarks.
 */
function harnessStart(f: EmittedFile): number {
  if (f.name === SPLIT_FILES.init || f.name === SPLIT_FILES.driver) return 1;
  const i = f.content.indexOf('\nint main(');
  return i < 0 ? Infinity : f.content.slice(0, i + 1).split('\n').length;
}

/** Lines of test code in a file: all lines before the harness. */
function testLines(f: EmittedFile): number {
  const total = f.content.split('\n').length - 1;
  return Math.min(total, harnessStart(f) - 1);
}

/** The source line a remark is located at (`prog.c:12:3: remark: …`), or undefined. */
const remarkLine = (l: string): number | undefined => {
  const m = /^[^:\s]+:(\d+):\d+: /.exec(l);
  return m ? Number(m[1]) : undefined;
};

/**
 * A remark's kind, for `--detail`: its message without location, names, numbers and vector
 * modes (`note: Considering inline candidate X.`, `remark: hoisting load [-Rpass=licm]`).
 */
function remarkKind(l: string): string {
  return l
    .replace(/^[^:\s]+:\d+:\d+: /, '')
    .replace(/'[^']*'|‘[^’]*’/g, 'X')
    .replace(/\bV\d+[A-Z]{2}\b/g, 'V')
    .replace(/\d+/g, 'N')
    .slice(0, 90);
}

/** Runs `f` over the items with at most `n` in flight. */
async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await f(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/** Generates the programs of one mode and policy; returns their files and the generation time. */
function generate(mode: Mode, policy: Policy): { programs: EmittedFile[][]; seconds: number; discarded: number } {
  const programs: EmittedFile[][] = [];
  let discarded = 0;
  const t0 = performance.now();
  for (let s = firstSeed; s < firstSeed + count; s++) {
    const r = generateProgram(s, policy, mode);
    if (!r.ok) {
      discarded++;
      continue;
    }
    programs.push(emitFiles(r.program, { expected: r.expected }));
  }
  return { programs, seconds: (performance.now() - t0) / 1000, discarded };
}

/**
 * Optimisation counters, YARPGen's measure (§4.3): GCC's `-fdump-statistics` counters (pass and
 * counter name, summed over functions and programs); for clang, whose Debian build has no
 * `-mllvm -stats`, the number of remarks of each pass (`[-Rpass=licm]`).
 */
type Counters = Map<string, number>;

function add(c: Counters, key: string, v: number): void {
  c.set(key, (c.get(key) ?? 0) + v);
}

/** `44 fre "Eliminated" "func_2" 7` lines of a gcc statistics dump. */
function gccStatistics(dir: string, unit: string, into: Counters): void {
  for (const name of readdirSync(dir).filter((n) => n.startsWith(`${unit}.`) && n.endsWith('.statistics'))) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      // The harness (main) is left out, as for the remarks.
      const m = /^\d+ (\S+) "([^"]*)" "([^"]*)" (\d+)$/.exec(line);
      if (m && m[3] !== 'main') add(into, `${m[1]}: ${m[2]}`, Number(m[4]));
    }
    rmSync(join(dir, name));
  }
}

/**
 * Compiles every translation unit of every program to an object file; returns the count of each kind of remark and the
 * counters.
 */
async function remarks(
  programs: readonly EmittedFile[][],
  cc: Compiler,
  dir: string,
): Promise<number[] & { counters: Counters; kinds: Counters; perProgram: number[]; vectorised: boolean[] }> {
  const totals = Object.assign(
    cc.remarks.map(() => 0),
    {
      counters: new Map<string, number>(),
      kinds: new Map<string, number>(),
      perProgram: programs.map(() => 0),
      vectorised: programs.map(() => false),
    },
  );
  const units = programs.flatMap((files, i) => files.filter((f) => isTranslationUnit(f.name)).map((f) => ({ i, f })));
  await pool(units, jobs, async ({ i, f }) => {
    const cwd = join(dir, String(i));
    const r = await runProcess(commandOf.get(cc.name)!, [...cc.args, '-c', f.name, '-o', `${f.name}.${cc.name}.o`], {
      cwd,
      timeoutMs: 600_000,
      maxOutputBytes: 256 << 20,
    });
    const out = r.stderr.split('\n');
    // A compiler crash is a finding of its own, not a reason to stop the measurement: it is said,
    // with the pass that crashed, and the program's remarks are not counted (0).
    const crashed =
      (r.signal !== null && !r.timedOut) || (r.status ?? 0) >= 128 || /PLEASE submit a bug report/.test(r.stderr);
    if (crashed) {
      const pass = out.find((l) => /Running pass|during .* pass|internal compiler error/.test(l)) ?? '';
      console.log(
        `  ${cc.name} crashed on program ${i} ${f.name} (exit ${r.status ?? r.signal}): ${pass.trim()}; ` +
          'its remarks are not counted',
      );
      return;
    }
    if (r.status !== 0) {
      // The remarks fill stderr: say how the compile ended and quote only the lines that are not remarks.
      const how = r.timedOut ? 'timed out' : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
      const other = out.filter((l) => l.trim() !== '' && !cc.remarks.some((k) => k.re.test(l)));
      throw new Error(`${cc.name} failed on program ${i} ${f.name} (${how}): ${other.slice(-40).join('\n')}`);
    }
    const start = harnessStart(f);
    const inTest = (l: string): boolean => (remarkLine(l) ?? Infinity) < start;
    if (out.some((l) => VECTORISED.test(l) && inTest(l))) totals.vectorised[i] = true;
    cc.remarks.forEach((k, j) => {
      const counted = out.filter((l) => k.re.test(l) && (k.all || inTest(l)));
      totals[j]! += counted.length;
      if (j > 0) return;
      totals.perProgram[i]! += counted.length;
      for (const l of counted) add(totals.kinds, remarkKind(l), 1);
    });
    if (cc.name === 'gcc') gccStatistics(cwd, f.name, totals.counters);
    else
      for (const l of out.filter(inTest)) {
        const m = /\[-Rpass=([\w.-]+)\]/.exec(l);
        if (m) add(totals.counters, m[1]!, 1);
      }
  });
  return totals;
}

/**
 * A remark of the loop or SLP vectoriser that it vectorised something: gcc's `optimized: loop
 * vectorized …` and `optimized: basic block part vectorized …`, clang's `remark: vectorized loop
 * …` (loop-vectorize) and `remark: SLP vectorized …`/`Stores SLP vectorized …` (slp-vectorizer).
 */
const VECTORISED =
  /optimized: (loop|basic block( part)?) vectorized|remark: (vectorized loop|(Stores )?SLP vectorized)/;

/** Lines per program: of test code, or (`all`) of the whole program. */
const linesPer = (programs: readonly EmittedFile[][], all = false): number[] =>
  programs.map((fs) => fs.reduce((m, f) => m + (all ? f.content.split('\n').length - 1 : testLines(f)), 0));

/** Per-program remarks and lines of one variant. */
interface Sample {
  readonly remarks: number[];
  readonly lines: number[];
}

/** A statistic of a sample, over the programs at the given indices. */
type Statistic = (x: Sample, at: readonly number[]) => number;

/** Remarks per thousand lines of all the programs together. */
const pooled: Statistic = (x, at) => {
  let r = 0;
  let l = 0;
  for (const i of at) {
    r += x.remarks[i]!;
    l += x.lines[i]!;
  }
  return (1000 * r) / Math.max(1, l);
};

/**
 * The typical program's remarks per thousand lines: the geometric mean over programs (a remark
 * added to each, so a program without any counts). Robust where `pooled` is not: the top 5% of
 * programs carry a third to two thirds of all remarks (nested loops fully unrolled, each copy
 * of an inner loop hoisting its own invariants), so the pooled rate mostly measures those few.
 */
const typical: Statistic = (x, at) => {
  let s = 0;
  for (const i of at) s += Math.log((1000 * (x.remarks[i]! + 1)) / Math.max(1, x.lines[i]!));
  return Math.exp(s / Math.max(1, at.length));
};

const everyIndex = (x: Sample): number[] => x.remarks.map((_, i) => i);

/**
 * A 90% bootstrap interval for the ratio of a statistic, variant over off: programs are
 * resampled with replacement within each variant (a fixed-seed generator, so reruns agree).
 */
function ratioInterval(on: Sample, off: Sample, stat: Statistic): [number, number] {
  let state = 0x9e3779b9;
  const next = (n: number): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  const resample = (x: Sample): number =>
    stat(
      x,
      x.remarks.map(() => next(x.remarks.length)),
    );
  const ratios = Array.from({ length: 2000 }, () => resample(on) / resample(off)).sort((a, b) => a - b);
  return [ratios[100]!, ratios[1899]!];
}

const lines = (programs: readonly EmittedFile[][], all = false): number =>
  linesPer(programs, all).reduce((a, b) => a + b, 0);
const fmt = (x: number, d = 1): string => x.toFixed(d);

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-policy-'));
try {
  console.log(`bench:policy — ${count} seeds from ${firstSeed}, size ${size}, ${jobs} jobs`);
  for (const mode of modes) {
    const perThousand: Record<string, Record<Variant, number>> = {};
    const linesOf: Record<Variant, number> = {};
    const samples: Record<string, Record<Variant, Sample>> = {};
    const counters: Record<string, Partial<Record<Variant, Counters>>> = {};
    const kinds: Record<string, Partial<Record<Variant, Counters>>> = {};
    for (const which of VARIANTS) {
      const g = generate(mode, POLICIES[which]);
      const dir = join(root, `${mode}-${which}`);
      g.programs.forEach((files, i) => {
        const d = join(dir, String(i));
        mkdirSync(d, { recursive: true });
        for (const f of files) writeFileSync(join(d, f.name), f.content);
      });
      const n = lines(g.programs);
      const nAll = lines(g.programs, true);
      linesOf[which] = n;
      const perLines = linesPer(g.programs);
      console.log(
        `${mode} policies ${which}: ${g.programs.length} programs (${g.discarded} discarded), ${nAll} lines ` +
          `(${n} of test code), ${fmt(g.programs.length / g.seconds)} programs/s, ${fmt(nAll / g.seconds, 0)} ` +
          `lines/s`,
      );
      for (const cc of COMPILERS) {
        const t0 = performance.now();
        const ks = await remarks(g.programs, cc, dir);
        (counters[cc.name] ??= {})[which] = ks.counters;
        (kinds[cc.name] ??= {})[which] = ks.kinds;
        (samples[cc.remarks[0]!.label] ??= {})[which] = { remarks: ks.perProgram, lines: perLines };
        // How heavy the tail is: the share of the headline remarks carried by the top 5% of programs.
        const top = [...ks.perProgram]
          .sort((a, b) => b - a)
          .slice(0, Math.ceil(ks.perProgram.length / 20))
          .reduce((a, b) => a + b, 0);
        const headline =
          ` (${fmt((performance.now() - t0) / 1000)} s, top 5% of ` +
          `programs ${fmt((100 * top) / Math.max(1, ks[0]!), 0)}%)`;
        const vec = ks.vectorised.filter(Boolean).length;
        console.log(
          `  ${cc.name} vectoriser: a vectorised loop or region in ${vec} of ${g.programs.length} programs ` +
            `(${fmt((100 * vec) / Math.max(1, g.programs.length))}%)`,
        );
        cc.remarks.forEach((kind, j) => {
          const k = ks[j]!;
          const per = (k / (kind.all ? nAll : n)) * 1000;
          (perThousand[kind.label] ??= {})[which] = per;
          console.log(
            `  ${kind.label}: ${k} remarks, ${fmt(k / g.programs.length)} per program, ${fmt(per)} per 1000 ` +
              `lines${j === 0 ? headline : ''}`,
          );
        });
      }
    }
    for (const label of Object.keys(perThousand)) {
      const r = perThousand[label]!;
      const ci = (v: Variant, stat: Statistic): string => {
        const x = samples[label]?.[v];
        const o = samples[label]?.off;
        if (!x || !o) return '';
        const [lo, hi] = ratioInterval(x, o, stat);
        return ` (90% interval ${fmt(lo, 2)}-${fmt(hi, 2)})`;
      };
      const others = VARIANTS.filter((v) => v !== 'off').map(
        (v) => `${v} ${fmt(r[v]!)} = ${fmt(r[v]! / r.off!, 2)}x${ci(v, pooled)}`,
      );
      console.log(`${mode} ${label} remarks per 1000 lines: off ${fmt(r.off!)}; ${others.join('; ')}`);
      const per = samples[label];
      if (!per) continue;
      const t = (v: Variant): number => typical(per[v]!, everyIndex(per[v]!));
      const typicalOthers = VARIANTS.filter((v) => v !== 'off').map(
        (v) => `${v} ${fmt(t(v))} = ${fmt(t(v) / t('off'), 2)}x${ci(v, typical)}`,
      );
      console.log(
        `${mode} ${label} remarks per 1000 lines, typical program (geometric mean): ` +
          `off ${fmt(t('off'))}; ${typicalOthers.join('; ')}`,
      );
    }
    // YARPGen's table: per counter, the ratio with policies to without (same number of programs),
    // counted better (> +5%), worse (< -5%) or comparable; and the geometric mean of the ratios.
    // Counters seen fewer than 20 times in both runs together are left out (noise).
    for (const [cc, byVariant] of Object.entries(counters)) {
      for (const which of VARIANTS.filter((v) => v !== 'off')) {
        const on = byVariant[which]!;
        const off = byVariant.off!;
        const keys = [...new Set([...on.keys(), ...off.keys()])].filter(
          (k) => (on.get(k) ?? 0) + (off.get(k) ?? 0) >= 20,
        );
        const ratios = keys.map((k) => ((on.get(k) ?? 0) + 1) / ((off.get(k) ?? 0) + 1));
        const better = ratios.filter((r) => r > 1.05).length;
        const worse = ratios.filter((r) => r < 1 / 1.05).length;
        const geo = Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / Math.max(1, ratios.length));
        // The same per thousand lines, for when the variants' programs differ in length.
        const perLine = geo * (linesOf.off! / linesOf[which]!);
        console.log(
          `${mode} ${cc} counters, policies ${which} vs off: ${keys.length} counters, ${better} ` +
            `better, ${worse} worse, ${keys.length - better - worse} comparable; geometric ` +
            `mean ${fmt(geo, 2)}x (${fmt(perLine, 2)}x per line)`,
        );
        const moved = keys
          .map((k) => ({ k, on: on.get(k) ?? 0, off: off.get(k) ?? 0 }))
          .sort((a, b) => Math.abs(b.on - b.off) - Math.abs(a.on - a.off))
          .slice(0, detail);
        for (const m of moved) console.log(`    ${m.k}: ${m.off} -> ${m.on} (${fmt((m.on + 1) / (m.off + 1), 2)}x)`);
      }
    }
    // Which kinds of remark moved most, per thousand lines of test code (so length differences between variants do not
    // show as moves).
    if (detail > 0) {
      for (const [cc, byVariant] of Object.entries(kinds)) {
        for (const which of VARIANTS.filter((v) => v !== 'off')) {
          const on = byVariant[which]!;
          const off = byVariant.off!;
          const rate = (m: Counters, k: string, v: Variant): number =>
            (1000 * (m.get(k) ?? 0)) / Math.max(1, linesOf[v]!);
          const moved = [...new Set([...on.keys(), ...off.keys()])]
            .map((k) => ({ k, on: rate(on, k, which), off: rate(off, k, 'off') }))
            .sort((a, b) => Math.abs(b.on - b.off) - Math.abs(a.on - a.off))
            .slice(0, detail);
          console.log(`${mode} ${cc} remark kinds that moved most, per 1000 lines of test code, off -> ${which}:`);
          for (const m of moved) console.log(`    ${fmt(m.off, 2)} -> ${fmt(m.on, 2)}  ${m.k}`);
        }
      }
    }
  }
  console.log('YARPGen (optimisation counters, geometric mean): 1.2x LLVM, 1.4x GCC');
} finally {
  rmSync(root, { recursive: true, force: true });
}
