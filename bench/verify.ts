// The full acceptance runs for generated programs (CI runs slices of them):
//   - N consecutive seeds (default 1,000) compile with gcc and clang at -O0 -O1 -O2 -Os -O3 and
//     print exactly the expected line;
//   - M seeds (default 200) are silent under clang ASan+UBSan, clang MSan, gcc UBSan and
//     valgrind memcheck, and still print the expected line.
//
//   npm run bench:verify [-- --seeds 1000 --sanitizer-seeds 200 --first 1 --size medium --mode csmith]
//                        [-- --policy floats.json --levels -O0,-O2,-O3] [-- --gcc gcc-16 --clang clang-22]
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
   * A csmith-mode program emitted for its place in a batch (prefix `p<i>_`, i its index modulo
   * BATCH). Text, not IR: a thousand programs' IR does not fit in Node's default heap.
   */
  unit?: string;
  expected: string;
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
    const unit = (): string => emitC(r.program, { prefix: `p${cases.length % BATCH}_` });
    cases.push({
      seed: s,
      expected: r.expected,
      ...(mode === 'csmith' ? { unit: unit() } : { files: emitFiles(r.program, { expected: r.expected }) }),
    });
  }
  return { cases, discarded, ms: performance.now() - t0 };
}

/**
 * A translation unit of up to BATCH programs (cases at positions k·BATCH … k·BATCH+BATCH-1), each printing its line.
 */
function batchSource(units: readonly string[]): string {
  return (
    `${units.join('\n')}\nint main(void)\n{\n${units.map((_, i) => `    p${i}_main();`).join('\n')}\n    ` +
    `return 0;\n}\n`
  );
}

interface Config {
  name: string;
  cc: string;
  flags: string[];
  runner?: string[];
  env?: Record<string, string>;
}

async function check(cases: Case[], configs: Config[]): Promise<{ checked: number; failures: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-verify-'));
  const jobs: { batch: Case[]; c: Config; k: number }[] = [];
  const step = cases.some((x) => x.files) ? 1 : BATCH;
  for (let i = 0; i < cases.length; i += step)
    for (const c of configs) jobs.push({ batch: cases.slice(i, i + step), c, k: jobs.length });
  const failures: string[] = [];
  let done = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const j = jobs[next++];
      if (!j) return;
      const exe = join(dir, `b${j.k}`);
      let units: string[];
      const one = j.batch[0]!.files;
      if (one) {
        const sub = join(dir, `p${j.k}`);
        mkdirSync(sub);
        for (const f of one) writeFileSync(join(sub, f.name), f.content);
        units = one.filter((f) => isTranslationUnit(f.name)).map((f) => join(sub, f.name));
      } else {
        units = [join(dir, `b${j.k}.c`)];
        writeFileSync(units[0]!, batchSource(j.batch.map((x) => x.unit!)));
      }
      const cr = await runProcess(j.c.cc, [...j.c.flags, '-w', ...units, '-o', exe, '-lm'], { timeoutMs: 600_000 });
      if (cr.status !== 0)
        failures.push(`${j.c.name}: compile failed for seeds ${j.batch[0]!.seed}…: ${cr.stderr.slice(0, 300)}`);
      else {
        const [cmd, ...args] = [...(j.c.runner ?? []), exe];
        const r = await runProcess(cmd!, args, { timeoutMs: 600_000, ...(j.c.env ? { env: j.c.env } : {}) });
        const lines = r.stdout.split('\n');
        if (r.status !== 0 || r.stderr.trim())
          failures.push(`${j.c.name}: seeds ${j.batch[0]!.seed}…: status ${r.status} ${r.stderr.slice(0, 500)}`);
        if (one) {
          const x = j.batch[0]!;
          if (r.stdout.trimEnd() !== x.expected)
            failures.push(
              `${j.c.name}: seed ${x.seed}: output differs ` +
                `(${r.stdout.includes('@NG@') ? 'self-check @NG@' : JSON.stringify(r.stdout.trimEnd().slice(-80))})`,
            );
        } else {
          j.batch.forEach((x, i) => {
            if (lines[i] !== x.expected)
              failures.push(
                `${j.c.name}: seed ${x.seed}: got ${JSON.stringify(lines[i])}, expected ${JSON.stringify(x.expected)}`,
              );
          });
        }
      }
      done++;
      if (process.stderr.isTTY) process.stderr.write(`\r  ${done}/${jobs.length} builds, ${failures.length} failures`);
    }
  };
  await Promise.all(Array.from({ length: cpus().length }, worker));
  if (process.stderr.isTTY) process.stderr.write('\n');
  rmSync(dir, { recursive: true, force: true });
  return { checked: cases.length * configs.length, failures };
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
  { name: `${clang.name} ASan+UBSan`, cc: clang.command, flags: ['-O1', '-fsanitize=undefined,address', '-fno-sanitize-recover=all'], env: { ASAN_OPTIONS: 'detect_leaks=0' } },
  { name: `${clang.name} MSan`, cc: clang.command, flags: ['-O1', '-fsanitize=memory', '-fno-sanitize-recover=all'] },
  { name: `${gcc.name} UBSan`, cc: gcc.command, flags: ['-O1', '-fsanitize=undefined', '-fno-sanitize-recover=all'] },
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
      `= ${r1.checked} runs, ${r1.failures.length} mismatches (${main.discarded} seeds discarded)`,
  );
  for (const f of r1.failures.slice(0, 20)) console.log(`  ${f}`);
  if (sanitizerSeeds > 0) {
    console.log(`[${mode}] generating ${sanitizerSeeds} programs for the sanitizers (seeds ${first + 100000}…)`);
    const san = generate(first + 100000, sanitizerSeeds, mode);
    const r2 = await check(san.cases, sanitizerConfigs);
    console.log(
      `[${mode}] sanitizers: ${san.cases.length} programs × ${sanitizerConfigs.length} tools ` +
        `= ${r2.checked} runs, ${r2.failures.length} reports or mismatches`,
    );
    for (const f of r2.failures.slice(0, 20)) console.log(`  ${f}`);
    failed += r2.failures.length;
  }
  failed += r1.failures.length;
}
process.exitCode = failed === 0 ? 0 : 1;
