// Generation throughput: Kiln (generate + interpret + repair + print) against Debian's csmith,
// on one core each, in the same run. Two comparisons:
//
// 1. In process: Kiln's generator called in a loop inside this (warmed-up) process, against csmith
//    started once per program. This is the generator's own speed, what a long campaign sees.
// 2. As a user runs them: `kiln gen --count B -o DIR` as one command, against a shell-style loop of
//    `csmith --seed N -o F` processes over the same B seeds; both timed from outside, from the
//    first spawn to the last exit, so Kiln's start-up (Node, module loading, a cold JIT) counts.
//    Kiln twice: with `-j 1` (one core, like csmith's loop) and with its default (one generation
//    process per core, as a user gets it; the files are the same).
//
//   npm run bench:gen [-- --kiln 300 --csmith 60 --batch 150 --size medium --from-source]
//   npm run bench:gen -- --smoke          (3 programs each, from source: checks the script works)
//
// Prints programs per second, median lines, lines per second, the ratios, and Kiln's share of
// wrapped operations (Csmith wraps every arithmetic operation in a safe-math call).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitC } from '../src/emit/c.js';
import { parsePolicy, type SizePreset } from '../src/gen/policy.js';
import { wrappedShare } from '../src/ir/census.js';
import { generateProgram } from '../src/repair/generate.js';
import { kilnEntry, ROOT } from './lib/kiln.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const smoke = process.argv.includes('--smoke');
const kilnCount = Number(arg('kiln', smoke ? '3' : '300'));
const csmithCount = Number(arg('csmith', smoke ? '3' : '60'));
const batch = Number(arg('batch', smoke ? '3' : '150'));
const size = arg('size', 'medium') as SizePreset;
const fromSource = smoke || process.argv.includes('--from-source');

const tools = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-tools.mjs'), '--profile', 'bench', '--check'], {
  stdio: 'inherit',
});
if (tools.status !== 0) throw new Error('could not install the benchmark tools (csmith)');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const linesOf = (file: string): number => readFileSync(file, 'utf8').split('\n').length;

/** csmith once per seed, as processes: wall seconds over the loop, and each program's line count. */
function csmithLoop(dir: string, count: number): { sec: number; lines: number[]; safe: number } {
  mkdirSync(dir, { recursive: true });
  const lines: number[] = [];
  let safe = 0;
  const t0 = performance.now();
  for (let s = 1; s <= count; s++) {
    const out = join(dir, `c${s}.c`);
    // csmith writes platform.info into its working directory: keep it in the scratch folder.
    const r = spawnSync('csmith', ['--seed', String(s), '-o', out], { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`csmith failed on seed ${s}: ${r.stderr}`);
  }
  const sec = (performance.now() - t0) / 1000;
  // Read after the clock stops: the loop times csmith alone.
  for (let s = 1; s <= count; s++) {
    const src = readFileSync(join(dir, `c${s}.c`), 'utf8');
    lines.push(src.split('\n').length);
    safe += (src.match(/safe_[a-z]+_func_/g) ?? []).length;
  }
  return { sec, lines, safe };
}

const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-gen-'));
try {
  // 1. In process. Warm up the JIT a little, as a long campaign would be.
  const policy = parsePolicy({}, size);
  for (let s = 0; s < 5; s++) generateProgram(1_000_000 + s, policy);

  const kilnLines: number[] = [];
  let wrapped = 0;
  let operations = 0;
  let discarded = 0;
  const t0 = performance.now();
  for (let s = 1; s <= kilnCount; s++) {
    const r = generateProgram(s, policy);
    if (!r.ok) {
      discarded++;
      continue;
    }
    const src = emitC(r.program, { expected: r.expected });
    writeFileSync(join(dir, `k${s}.c`), src);
    kilnLines.push(src.split('\n').length);
    const w = wrappedShare(r.program);
    wrapped += w.wrapped;
    operations += w.operations;
  }
  const kilnSec = (performance.now() - t0) / 1000;
  const cs = csmithLoop(join(dir, 'csmith-1'), csmithCount);

  // 2. As processes, over one batch of seeds each. Building Kiln is not timed.
  const entry = kilnEntry(dir, fromSource);
  const cores = availableParallelism();
  const kilnBatch = (name: string, jobs: string[]): { sec: number; lines: number[] } => {
    const out = join(dir, name);
    const t1 = performance.now();
    const kg = spawnSync(
      process.execPath,
      [...entry, 'gen', '--seed', '1', '--count', String(batch), '--size', size, ...jobs, '-o', out],
      { cwd: dir, encoding: 'utf8' },
    );
    const sec = (performance.now() - t1) / 1000;
    if (kg.status !== 0) throw new Error(`kiln gen failed (status ${kg.status}): ${kg.stderr.slice(-400)}`);
    const files = readdirSync(out).filter((f) => f.endsWith('.c'));
    return { sec, lines: files.map((f) => linesOf(join(out, f))) };
  };
  const serial = kilnBatch('kiln-batch-1', ['-j', '1']);
  const parallel = kilnBatch('kiln-batch-n', []);
  const csBatch = csmithLoop(join(dir, 'csmith-2'), batch);

  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const row = (name: string, n: number, sec: number, lines: number[]) =>
    `${name.padEnd(28)} ${String(n).padStart(6)} ${sec.toFixed(1).padStart(8)} ` +
    `s ${(n / sec).toFixed(2).padStart(10)} ${String(median(lines)).padStart(12)} ` +
    `${(sum(lines) / sec).toFixed(0).padStart(10)}`;
  const head = `generator                    programs     time   programs/s  median lines    lines/s`;
  console.log(
    `\n1. in process (Kiln's generator in a warmed-up loop; csmith one process per program), size ` +
      `preset ${size}, one core each`,
  );
  console.log(head);
  console.log(row('kiln', kilnLines.length, kilnSec, kilnLines));
  console.log(row('csmith', csmithCount, cs.sec, cs.lines));
  console.log(
    `ratio (kiln / csmith): ${(kilnLines.length / kilnSec / (csmithCount / cs.sec)).toFixed(2)}× programs ` +
      `per second, ${(sum(kilnLines) / kilnSec / (sum(cs.lines) / cs.sec)).toFixed(2)}× lines per second`,
  );
  console.log(
    `\n2. as processes, timed from outside (\`kiln gen ` +
      `--count ${batch}\`${fromSource ? ' from source through tsx' : ', compiled JavaScript'}, with -j 1 and ` +
      `with its default of one generation process per core (${cores} here); a loop of ${batch} \`csmith --seed ` +
      `N -o F\`, one at a time)`,
  );
  console.log(head);
  console.log(row(`kiln gen --count ${batch} -j 1`, serial.lines.length, serial.sec, serial.lines));
  console.log(row(`kiln gen --count ${batch}`, parallel.lines.length, parallel.sec, parallel.lines));
  console.log(row('csmith loop', batch, csBatch.sec, csBatch.lines));
  const ratio = (k: { sec: number; lines: number[] }): string =>
    `${(k.lines.length / k.sec / (batch / csBatch.sec)).toFixed(2)}× programs per ` +
    `second, ${(sum(k.lines) / k.sec / (sum(csBatch.lines) / csBatch.sec)).toFixed(2)}× lines per second`;
  console.log(`ratio (kiln / csmith), one core each (-j 1): ${ratio(serial)}`);
  console.log(`ratio (kiln / csmith), kiln on ${cores} cores (default): ${ratio(parallel)}`);
  console.log(
    `\nkiln discarded ${discarded} of ${kilnCount} seeds in process, ${batch - parallel.lines.length} ` +
      `of ${batch} in the batch`,
  );
  console.log(
    `wrapped operations: kiln ${wrapped} of ${operations} ` +
      `(${((100 * wrapped) / Math.max(1, operations)).toFixed(2)}%); csmith wraps all ` +
      `(${(cs.safe / csmithCount).toFixed(0)} safe-math calls per program)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
