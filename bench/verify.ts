// The full acceptance runs for generated programs (CI runs slices of them):
//   - N consecutive seeds (default 1,000) compile with gcc and clang at -O0 -O1 -O2 -Os -O3 and
//     print exactly the expected line;
//   - M seeds (default 200) are silent under clang ASan+UBSan, clang MSan, gcc UBSan and
//     valgrind memcheck, and still print the expected line (MSan skips the programs in its known
//     blind spot, as campaigns do: msanBlindSpot in src/edge/sanitize.ts).
//
//   npm run bench:verify [-- --seeds 1000 --sanitizer-seeds 200 --first 1 --size medium --mode csmith]
//                        [-- --policy floats.json --levels -O0,-O2,-O3] [-- --gcc gcc-16 --clang clang-22]
//
// A batch that fails as a whole (a compile, or a run that stops or reports) is checked program by
// program, so the other programs are still checked and the failure has a seed. Two causes are
// counted apart from the generator's failures: a compiler crash (a compiler bug, with its crash
// line), and a UBSan report its own operands refute (src/edge/refute.ts; the program alone is run
// again recovering, and every report it makes must be refuted and its line still printed).
//
// `--gcc` and `--clang` name the two compilers (default gcc and clang; a name `kiln compilers`
// lists, the newest from `npm run setup -- --profile latest`). The policy is lowered to what both
// accept (`__int128`, `_BitInt` widths, vectors and their builtins): every program runs on each.
//   npm run bench:verify -- --smoke     (2 seeds at -O0 and -O2, 1 under the sanitizers)
//
// With `--mode yarpgen|arith` (or `--mode all`: every mode in turn) the issue's acceptance for the
// other modes runs instead: 500 seeds per mode with gcc and clang at -O0 -O2 -O3 (`--levels` to
// change), each program compiled as the files a campaign compiles (yarpgen: separate translation
// units) and its whole output (arith: one @OK@ line per expression, then the checksum) compared.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitC } from '../src/emit/c.js';
import { emitFiles, isTranslationUnit, type EmittedFile } from '../src/emit/files.js';
import { MODES, type Mode } from '../src/gen/mode.js';
import { parsePolicy, type SizePreset } from '../src/gen/policy.js';
import { VALGRIND_SUPPRESSIONS, VALGRIND_SUPPRESSIONS_FILE } from '../src/edge/reports.js';
import { refutedByOperands } from '../src/edge/refute.js';
import { msanBlindSpot } from '../src/edge/sanitize.js';
import { crashMessage, looksLikeCrash } from '../src/harness/bucket.js';
import { compilerCapabilities, policyFor } from '../src/harness/capabilities.js';
import { resolveCompilers } from '../src/harness/compilers.js';
import { runProcess } from '../src/harness/process.js';
import { generateProgram } from '../src/repair/generate.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const modeArg = arg('mode', 'csmith');
if (modeArg !== 'all' && !(MODES as readonly string[]).includes(modeArg))
  throw new Error(`--mode: one of ${MODES.join(', ')}, all`);
const modes: Mode[] = modeArg === 'all' ? [...MODES] : [modeArg as Mode];
const acceptance = modeArg !== 'csmith';
// `--smoke`: two programs at -O0 and -O2, one under the sanitizers; checks the script works.
const smoke = process.argv.includes('--smoke');
const seeds = Number(arg('seeds', smoke ? '2' : acceptance ? '500' : '1000'));
const sanitizerSeeds = Number(arg('sanitizer-seeds', smoke ? '1' : acceptance ? '50' : '200'));
const first = Number(arg('first', '1'));
// `--policy FILE` (JSON or YAML, as `kiln gen --policy`), e.g. {"features": {"floats": true}}.
const policyFile = arg('policy', '');
const [gcc, clang] = await resolveCompilers([arg('gcc', 'gcc'), arg('clang', 'clang')]);
if (!gcc || !clang) throw new Error('--gcc and --clang must name two different compilers');
const policy = policyFor(
  parsePolicy(policyFile ? parseYaml(readFileSync(policyFile, 'utf8')) : {}, arg('size', 'medium') as SizePreset),
  [await compilerCapabilities(gcc), await compilerCapabilities(clang)],
  'every',
);
const feat = policy.features;
console.log(
  `compilers: ${gcc.name} (${gcc.version}), ${clang.name} (${clang.version}); drawn for both: ` +
    `__int128 ${feat.int128 ? 'yes' : 'no'}, ` +
    `_BitInt ${feat.bitInt ? `up to ${policy.limits.maxBitIntWidth} bits` : 'no'}, ` +
    `vectors ${feat.vectors ? 'yes' : 'no'}`,
);
const BATCH = 10;

interface Case {
  seed: number;
  /**
   * A csmith-mode program emitted for its place in a batch (prefix `p<i>_`, i = `slot`). Text, not
   * IR: a thousand programs' IR does not fit in Node's default heap.
   */
  unit?: string;
  slot: number;
  expected: string;
  /** Why MSan is not run on the program (msanBlindSpot in src/edge/sanitize.ts), when it is not. */
  msanSkip?: string;
  /** Set for programs tested one by one as a campaign compiles them (every mode but csmith). */
  files?: EmittedFile[];
}

function generate(from: number, count: number, mode: Mode): { cases: Case[]; discarded: number; ms: number } {
  const cases: Case[] = [];
  let discarded = 0;
  const t0 = performance.now();
  for (let s = from; s < from + count; s++) {
    const r = generateProgram(s, policy, mode);
    if (!r.ok) {
      discarded++;
      continue;
    }
    // csmith-mode programs print one line and are batched BATCH to a translation unit.
    const slot = cases.length % BATCH;
    const msanSkip = msanBlindSpot(r.program);
    const unit = (): string => emitC(r.program, { prefix: `p${slot}_` });
    cases.push({
      seed: s,
      slot,
      expected: r.expected,
      ...(mode === 'csmith' ? { unit: unit() } : { files: emitFiles(r.program, { expected: r.expected }) }),
      ...(msanSkip ? { msanSkip } : {}),
    });
  }
  return { cases, discarded, ms: performance.now() - t0 };
}

/** A translation unit of csmith-mode programs, each printing its line, in the order given. */
function batchSource(batch: readonly Case[]): string {
  return (
    `${batch.map((x) => x.unit!).join('\n')}\nint main(void)\n{\n` +
    `${batch.map((x) => `    p${x.slot}_main();`).join('\n')}\n    return 0;\n}\n`
  );
}

interface Config {
  name: string;
  cc: string;
  flags: string[];
  runner?: string[];
  env?: Record<string, string>;
  /** For a program checked alone: the flags that let UBSan go on after a report, to see every report. */
  recover?: string[];
  /** Programs this configuration leaves out (MSan: its known blind spot). */
  skips?: (x: Case) => boolean;
}

/** What a set of runs showed, by cause (only `failures` counts against the generator). */
interface Checked {
  checked: number;
  /** Wrong output, a sanitizer report the operands do not refute, a program the compiler rejected. */
  failures: string[];
  /** A compiler that crashed on a program (bucketed by crash message): a compiler bug, not the program's. */
  crashes: Map<string, number[]>;
  /** Sanitizer reports false by their own operands (src/edge/refute.ts): sanitizer bugs. */
  refuted: Map<string, number[]>;
}

/** A crash's message, with the LLVM pass it happened in when the stack dump names one. */
function crashLine(stderr: string): string {
  const passes = [...stderr.matchAll(/Running pass "([^"<]+)[^"]*" on (?:function|loop)/g)].map((m) => m[1]);
  const pass = passes.at(-1);
  return `${crashMessage(stderr).key}${pass ? ` (in ${pass})` : ''}`;
}

/** The runtime-error lines of a UBSan run. */
function runtimeErrors(stderr: string): string[] {
  return [...stderr.matchAll(/runtime error: ([^\n]*)/g)].map((m) => m[1]!.trim());
}

async function check(cases: Case[], configs: Config[]): Promise<Checked> {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-verify-'));
  const jobs: { batch: Case[]; c: Config }[] = [];
  const step = cases.some((x) => x.files) ? 1 : BATCH;
  // A left-out program leaves its batch's other slots as they are (each prefix stays unique).
  for (let i = 0; i < cases.length; i += step)
    for (const c of configs) {
      const batch = cases.slice(i, i + step).filter((x) => !c.skips?.(x));
      if (batch.length) jobs.push({ batch, c });
    }
  const checked = jobs.reduce((n, j) => n + j.batch.length, 0);
  const out: Checked = { checked, failures: [], crashes: new Map(), refuted: new Map() };
  const note = (m: Map<string, number[]>, key: string, seed: number): void => {
    m.set(key, [...(m.get(key) ?? []), seed]);
  };
  let built = 0;
  /** Builds and runs programs as one binary; the failures of the build or run as a whole, or undefined. */
  const buildAndRun = async (
    batch: Case[],
    c: Config,
    flags: string[],
  ): Promise<{ compile?: string; stdout: string; stderr: string; status: number | null } | undefined> => {
    const k = built++;
    const exe = join(dir, `b${k}`);
    let units: string[];
    const one = batch[0]!.files;
    if (one) {
      const sub = join(dir, `p${k}`);
      mkdirSync(sub);
      for (const f of one) writeFileSync(join(sub, f.name), f.content);
      units = one.filter((f) => isTranslationUnit(f.name)).map((f) => join(sub, f.name));
    } else {
      units = [join(dir, `b${k}.c`)];
      writeFileSync(units[0]!, batchSource(batch));
    }
    const cr = await runProcess(c.cc, [...flags, '-w', ...units, '-o', exe, '-lm'], { timeoutMs: 600_000 });
    if (cr.status !== 0) return { compile: cr.stderr, stdout: '', stderr: '', status: null };
    const [cmd, ...args] = [...(c.runner ?? []), exe];
    return runProcess(cmd!, args, { timeoutMs: 600_000, ...(c.env ? { env: c.env } : {}) });
  };
  /** Compares each program's output with its expected line(s); the number of mismatches. */
  const compare = (batch: Case[], c: Config, stdout: string): number => {
    let wrong = 0;
    const one = batch[0]!.files;
    if (one) {
      const x = batch[0]!;
      if (stdout.trimEnd() !== x.expected) {
        wrong++;
        out.failures.push(
          `${c.name}: seed ${x.seed}: output differs ` +
            `(${stdout.includes('@NG@') ? 'self-check @NG@' : JSON.stringify(stdout.trimEnd().slice(-80))})`,
        );
      }
      return wrong;
    }
    const lines = stdout.split('\n');
    batch.forEach((x, i) => {
      if (lines[i] !== x.expected) {
        wrong++;
        out.failures.push(
          `${c.name}: seed ${x.seed}: got ${JSON.stringify(lines[i])}, expected ${JSON.stringify(x.expected)}`,
        );
      }
    });
    return wrong;
  };
  /**
   * A program alone, after its batch failed as a whole: a compiler crash is the compiler's, a
   * UBSan run (recovering, so every report shows) whose reports its own operands all refute is the
   * sanitizer's; anything else is a failure.
   */
  const alone = async (x: Case, c: Config): Promise<void> => {
    let r = await buildAndRun([x], c, c.flags);
    if (!r) return;
    if (c.recover && runtimeErrors(r.stderr).length > 0) r = (await buildAndRun([x], c, c.recover)) ?? r;
    if (r.compile !== undefined) {
      if (looksLikeCrash(r.compile)) note(out.crashes, `${c.name}: ${crashLine(r.compile)}`, x.seed);
      else out.failures.push(`${c.name}: seed ${x.seed}: compile failed: ${r.compile.slice(0, 300)}`);
      return;
    }
    const errors = runtimeErrors(r.stderr);
    const reasons = errors.map((e) => refutedByOperands(e));
    if (errors.length > 0 && reasons.every((why) => why !== undefined)) {
      for (const [i, e] of errors.entries()) note(out.refuted, `${c.name}: ${e} (${reasons[i]})`, x.seed);
      // The run went on past its reports: it must still print the expected line.
      if (r.status === 0) compare([x], c, r.stdout);
      else out.failures.push(`${c.name}: seed ${x.seed}: status ${r.status} after refuted reports`);
      return;
    }
    if (r.status !== 0 || r.stderr.trim())
      out.failures.push(`${c.name}: seed ${x.seed}: status ${r.status} ${r.stderr.slice(0, 500)}`);
    else compare([x], c, r.stdout);
  };
  let done = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const j = jobs[next++];
      if (!j) return;
      const r = await buildAndRun(j.batch, j.c, j.c.flags);
      if (r && (r.compile !== undefined || r.status !== 0 || r.stderr.trim())) {
        // The batch failed as a whole: check each program alone, so one program's crash or report
        // neither hides the others' results nor goes unattributed.
        for (const x of j.batch) await alone(x, j.c);
      } else if (r) compare(j.batch, j.c, r.stdout);
      done++;
      const bad = out.failures.length + out.crashes.size + out.refuted.size;
      if (process.stderr.isTTY) process.stderr.write(`\r  ${done}/${jobs.length} builds, ${bad} problems`);
    }
  };
  await Promise.all(Array.from({ length: cpus().length }, worker));
  if (process.stderr.isTTY) process.stderr.write('\n');
  rmSync(dir, { recursive: true, force: true });
  return out;
}

/** Prints the causes apart: generator failures, compiler crashes, refuted sanitizer reports. */
function printChecked(r: Checked): void {
  for (const f of r.failures.slice(0, 20)) console.log(`  ${f}`);
  if (r.failures.length > 20) console.log(`  … and ${r.failures.length - 20} more`);
  for (const [what, seeds] of r.crashes)
    console.log(`  compiler crash (a compiler bug): ${what}: seeds ${seeds.join(', ')}`);
  for (const [what, seeds] of r.refuted)
    console.log(`  sanitizer report refuted by its own operands (a sanitizer bug): ${what}: seeds ${seeds.join(', ')}`);
}

/** `N programs crashed compiler X` and `N reports refuted`, for a summary line. */
function causes(r: Checked): string {
  const crashed = [...r.crashes.values()].reduce((n, s) => n + s.length, 0);
  const refuted = [...r.refuted.values()].reduce((n, s) => n + s.length, 0);
  return `${crashed} runs lost to compiler crashes, ${refuted} refuted sanitizer reports`;
}

const levels = arg('levels', smoke ? '-O0,-O2' : acceptance ? '-O0,-O2,-O3' : '-O0,-O1,-O2,-Os,-O3').split(',');
const compilerConfigs: Config[] = [gcc, clang].flatMap((c) =>
  levels.map((o) => ({ name: `${c.name} ${o}`, cc: c.command, flags: [o] })),
);
// memcheck's suppressions of glibc's start-up in static binaries (the root compilers' builds).
const suppDir = mkdtempSync(join(tmpdir(), 'kiln-verify-supp-'));
const suppressions = join(suppDir, VALGRIND_SUPPRESSIONS_FILE);
writeFileSync(suppressions, VALGRIND_SUPPRESSIONS);
process.on('exit', () => rmSync(suppDir, { recursive: true, force: true }));
const valgrind = ['valgrind', '-q', '--vgdb=no', '--error-exitcode=1', `--suppressions=${suppressions}`];
// biome-ignore format: data table
const sanitizerConfigs: Config[] = [
  { name: `${clang.name} ASan+UBSan`, cc: clang.command, flags: ['-O1', '-fsanitize=undefined,address', '-fno-sanitize-recover=all'], env: { ASAN_OPTIONS: 'detect_leaks=0' }, recover: ['-O1', '-fsanitize=undefined,address', '-fsanitize-recover=undefined'] },
  { name: `${clang.name} MSan`, cc: clang.command, flags: ['-O1', '-fsanitize=memory', '-fno-sanitize-recover=all'], skips: (x) => x.msanSkip !== undefined },
  { name: `${gcc.name} UBSan`, cc: gcc.command, flags: ['-O1', '-fsanitize=undefined', '-fno-sanitize-recover=all'], recover: ['-O1', '-fsanitize=undefined', '-fsanitize-recover=undefined'] },
  { name: 'valgrind', cc: gcc.command, flags: ['-O0', '-g'], runner: valgrind },
];
let failed = 0;
for (const mode of modes) {
  console.log(`[${mode}] generating ${seeds} programs (seeds ${first}…${first + seeds - 1})`);
  const main = generate(first, seeds, mode);
  console.log(
    `[${mode}] generated ${main.cases.length} in ${(main.ms / 1000).toFixed(1)} s ` +
      `(${((1000 * seeds) / main.ms).toFixed(1)} programs/s), ${main.discarded} discarded`,
  );
  const r1 = await check(main.cases, compilerConfigs);
  console.log(
    `[${mode}] compilers: ${main.cases.length} programs × ${compilerConfigs.length} configurations ` +
      `= ${r1.checked} runs, ${r1.failures.length} mismatches or rejections, ${causes(r1)} ` +
      `(${main.discarded} seeds discarded)`,
  );
  printChecked(r1);
  if (sanitizerSeeds > 0) {
    console.log(`[${mode}] generating ${sanitizerSeeds} programs for the sanitizers (seeds ${first + 100000}…)`);
    const san = generate(first + 100000, sanitizerSeeds, mode);
    const r2 = await check(san.cases, sanitizerConfigs);
    // MSan leaves out the programs in its known blind spot, as campaigns do.
    const blind = san.cases.filter((x) => x.msanSkip !== undefined).length;
    console.log(
      `[${mode}] sanitizers: ${san.cases.length} programs × ${sanitizerConfigs.length} tools ` +
        `(MSan skips ${blind}: a function takes or returns a _BitInt(65-127), LLVM issue 204217) ` +
        `= ${r2.checked} runs, ${r2.failures.length} reports or mismatches, ${causes(r2)}`,
    );
    printChecked(r2);
    failed += r2.failures.length;
  }
  failed += r1.failures.length;
}
process.exitCode = failed === 0 ? 0 : 1;
