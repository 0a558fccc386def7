// Generation throughput: Kiln (generate + interpret + repair + print) against Debian's csmith,
// on one core each, in the same run.
//
//   npm run bench:gen [-- --kiln 300 --csmith 60 --size medium]
//
// Prints programs per second, median lines, lines per second, the ratio, and Kiln's share of
// wrapped operations (Csmith wraps every arithmetic operation in a safe-math call).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitC } from '../src/emit/c.js';
import { parsePolicy, type SizePreset } from '../src/gen/policy.js';
import { wrappedShare } from '../src/ir/census.js';
import { generateProgram } from '../src/repair/generate.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const kilnCount = Number(arg('kiln', '300'));
const csmithCount = Number(arg('csmith', '60'));
const size = arg('size', 'medium') as SizePreset;

const tools = spawnSync(process.execPath, ['scripts/ensure-tools.mjs', '--profile', 'bench'], { stdio: 'inherit' });
if (tools.status !== 0) throw new Error('could not install the benchmark tools (csmith)');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-gen-'));
try {
  // Warm up the JIT a little, as a long campaign would be.
  const policy = parsePolicy({}, size);
  for (let s = 0; s < 5; s++) generateProgram(1_000_000 + s, policy);

  const kilnLines: number[] = [];
  let wrapped = 0;
  let operations = 0;
  let discarded = 0;
  let t0 = performance.now();
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

  const csmithLines: number[] = [];
  let csmithSafe = 0;
  t0 = performance.now();
  for (let s = 1; s <= csmithCount; s++) {
    const out = join(dir, `c${s}.c`);
    // csmith writes platform.info into its working directory: keep it in the scratch folder.
    const r = spawnSync('csmith', ['--seed', String(s), '-o', out], { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`csmith failed on seed ${s}: ${r.stderr}`);
    const src = readFileSync(out, 'utf8');
    csmithLines.push(src.split('\n').length);
    csmithSafe += (src.match(/safe_[a-z]+_func_/g) ?? []).length;
  }
  const csmithSec = (performance.now() - t0) / 1000;

  const kilnRate = kilnLines.length / kilnSec;
  const csmithRate = csmithCount / csmithSec;
  const kilnLps = kilnLines.reduce((a, b) => a + b, 0) / kilnSec;
  const csmithLps = csmithLines.reduce((a, b) => a + b, 0) / csmithSec;
  const row = (name: string, n: number, sec: number, rate: number, med: number, lps: number) =>
    `${name.padEnd(8)} ${String(n).padStart(6)} ${sec.toFixed(1).padStart(8)} s ${rate.toFixed(2).padStart(10)} ${String(med).padStart(12)} ${lps.toFixed(0).padStart(10)}`;
  console.log(`\ngenerator  programs     time   programs/s  median lines    lines/s   (size preset: ${size}, one core each)`);
  console.log(row('kiln', kilnLines.length, kilnSec, kilnRate, median(kilnLines), kilnLps));
  console.log(row('csmith', csmithCount, csmithSec, csmithRate, median(csmithLines), csmithLps));
  console.log(`\nratio (kiln / csmith): ${(kilnRate / csmithRate).toFixed(2)}× programs per second, ${(kilnLps / csmithLps).toFixed(2)}× lines per second`);
  console.log(`kiln discarded ${discarded} of ${kilnCount} seeds`);
  console.log(
    `wrapped operations: kiln ${wrapped} of ${operations} (${((100 * wrapped) / Math.max(1, operations)).toFixed(2)}%); csmith wraps all (${(csmithSafe / csmithCount).toFixed(0)} safe-math calls per program)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
