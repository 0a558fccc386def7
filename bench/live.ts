// Live code and dynamic work: N programs of Kiln (csmith mode) and N of Debian's csmith, both at
// their defaults, from the same seed range, in the same run. Each program is built with
// `gcc -O0 --coverage`, run once with a 10 s limit, and measured with gcov (its JSON output,
// which names the function of every line):
//   - share of executable lines that ran, and lines that ran, in the program's .c file;
//   - line executions (the sum of gcov's per-line counts: the dynamic work), three ways:
//       .c file      the program's own file, as gcov reports it by default;
//       test code    every file, without main and the checksum harness (csmith's CRC functions
//                    and platform hooks in csmith.h and platform_generic.h; Kiln's kiln_hash),
//                    with the safe-math functions of both (csmith's are in safe_math.h);
//       whole program every file: csmith's CRC harness is most of its figure;
//   - runs that did not finish within 10 s (their coverage is lost; they are left out of the figures above).
// Beside them, each generator's rate as processes, the way a user runs it: one
// `kiln gen --count N -o DIR` (one generation process per core, its default) against a loop of
// `csmith -s S -o F`, timed from outside.
//
//   npm run bench:live [-- --count 100 --first 1 --jobs 2 --size medium --policy p.yaml] [-- --smoke]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coverageRun, csmithPrograms, isOwnFile, pool } from './lib/coverage.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const smoke = process.argv.includes('--smoke');
const count = smoke ? 3 : Number(arg('count', '100'));
const first = Number(arg('first', '1'));
const jobs = Math.max(1, Number(arg('jobs', '2')));
const size = arg('size', 'medium');
const policyFile = arg('policy', '');
const RUN_LIMIT_MS = 10_000;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const tools = spawnSync(process.execPath, [join(root, 'scripts/ensure-tools.mjs'), '--profile', 'bench'], {
  stdio: 'inherit',
});
if (tools.status !== 0) throw new Error('could not install the benchmark tools (gcc, csmith)');

/** What gcov saw of one program. */
interface Coverage {
  readonly lines: number;
  /** Executable lines of the .c file, and those that ran. */
  readonly executable: number;
  readonly executed: number;
  /** The same, test code only (the .c file without main and the checksum harness). */
  readonly testExecutable: number;
  readonly testExecuted: number;
  /** Line executions: the .c file, test code in every file, every line of every file. */
  readonly executions: number;
  readonly testExecutions: number;
  readonly wholeExecutions: number;
  readonly finished: boolean;
}

/**
 * The checksum harness: functions that hash or print the program's state, or set the platform
 * up, rather than test a compiler. csmith's live in its headers (csmith.h: crc32_gentab,
 * crc32_byte, crc32_8bytes, transparent_crc, transparent_crc_bytes; platform_generic.h:
 * platform_main_begin, platform_main_end); Kiln's is kiln_hash. Both programs' main only
 * calls the test code and hashes the globals.
 */
const HARNESS_FILES = /(^|\/)(csmith|platform_generic|platform_avr|platform_msp430)\.h$/;
const HARNESS_FUNCTIONS = new Set(['main', 'kiln_hash']);

/** Generates the programs of one side as processes and returns the time taken, in seconds. */
function timed(f: () => void): number {
  const t0 = performance.now();
  f();
  return (performance.now() - t0) / 1000;
}

function generateKiln(dir: string): number {
  const args = [
    '--import',
    'tsx',
    join(root, 'src/cli/main.ts'),
    'gen',
    '--seed',
    String(first),
    '--count',
    String(count),
    '-o',
    dir,
    '--size',
    size,
  ];
  if (policyFile) args.push('--policy', policyFile);
  return timed(() => {
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], cwd: root });
    if (r.status !== 0) throw new Error(`kiln gen failed (status ${r.status})`);
  });
}

function generateCsmith(dir: string): number {
  return timed(() => csmithPrograms(dir, first, count));
}

/** Builds one program with coverage in its own folder, runs it once, and reads gcov's counts. */
async function measure(src: string, work: string): Promise<Coverage> {
  const lines = readFileSync(src, 'utf8').split('\n').length;
  const json = await coverageRun(src, work, RUN_LIMIT_MS);
  if (!json)
    return {
      lines,
      executable: 0,
      executed: 0,
      testExecutable: 0,
      testExecuted: 0,
      executions: 0,
      testExecutions: 0,
      wholeExecutions: 0,
      finished: false,
    };
  const c = {
    executable: 0,
    executed: 0,
    testExecutable: 0,
    testExecuted: 0,
    executions: 0,
    testExecutions: 0,
    wholeExecutions: 0,
  };
  for (const file of json.files) {
    const own = isOwnFile(file.file, src);
    const harnessFile = HARNESS_FILES.test(file.file);
    // gcov lists a line once per function instance; a line has one count per listing.
    for (const line of file.lines) {
      const test = !harnessFile && !HARNESS_FUNCTIONS.has(line.function_name ?? '');
      c.wholeExecutions += line.count;
      if (test) c.testExecutions += line.count;
      if (!own) continue;
      c.executable++;
      c.executions += line.count;
      if (line.count > 0) c.executed++;
      if (test) {
        c.testExecutable++;
        if (line.count > 0) c.testExecuted++;
      }
    }
  }
  return { lines, ...c, finished: true };
}

const quartiles = (xs: readonly number[]): [number, number, number] => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => (s.length ? s[Math.round(q * (s.length - 1))]! : NaN);
  return [at(0.25), at(0.5), at(0.75)];
};

const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-live-'));
try {
  const kilnDir = join(dir, 'kiln');
  const csmithDir = join(dir, 'csmith');
  mkdirSync(kilnDir);
  mkdirSync(csmithDir);
  console.log(
    `bench:live: ${count} programs each, seeds ${first}..${first + count - 1}, gcc -O0 --coverage, one run ` +
      `each (limit ${RUN_LIMIT_MS / 1000} s)`,
  );
  const kilnSec = generateKiln(kilnDir);
  const csmithSec = generateCsmith(csmithDir);
  const kilnFiles = readdirSync(kilnDir)
    .filter((f) => f.endsWith('.c'))
    .map((f) => join(kilnDir, f));
  const csmithFiles = readdirSync(csmithDir)
    .filter((f) => f.endsWith('.c'))
    .map((f) => join(csmithDir, f));
  const kiln = await pool(kilnFiles, jobs, (f) => measure(f, join(dir, 'work', `k-${f.split('/').pop()}`)));
  const csmith = await pool(csmithFiles, jobs, (f) => measure(f, join(dir, 'work', `c-${f.split('/').pop()}`)));

  const fmt = (x: number, pct: boolean): string =>
    pct ? `${(100 * x).toFixed(1)}%` : x >= 1e4 ? x.toExponential(2) : x.toFixed(0);
  const row = (what: string, k: readonly number[], c: readonly number[], pct = false): string =>
    `${what.padEnd(44)} ${quartiles(k)
      .map((x) => fmt(x, pct))
      .join(' / ')
      .padStart(26)}   ${quartiles(c)
      .map((x) => fmt(x, pct))
      .join(' / ')
      .padStart(26)}`;
  const done = (xs: readonly Coverage[]): Coverage[] => xs.filter((x) => x.finished);
  const share = (xs: readonly Coverage[]): number[] => done(xs).map((x) => x.executed / Math.max(1, x.executable));
  const big = (xs: readonly Coverage[]): Coverage[] => done(xs).filter((x) => x.executable >= 300);
  console.log(`\n${'quartiles (25% / median / 75%)'.padEnd(44)} ${'kiln'.padStart(26)}   ${'csmith'.padStart(26)}`);
  console.log(
    row(
      'lines per program',
      kiln.map((x) => x.lines),
      csmith.map((x) => x.lines),
    ),
  );
  console.log(
    row(
      'executable lines (gcov)',
      done(kiln).map((x) => x.executable),
      done(csmith).map((x) => x.executable),
    ),
  );
  console.log(
    row(
      'executed lines',
      done(kiln).map((x) => x.executed),
      done(csmith).map((x) => x.executed),
    ),
  );
  console.log(row('share of executable lines executed', share(kiln), share(csmith), true));
  console.log(row('  the same, programs of 300+ executable lines', share(big(kiln)), share(big(csmith)), true));
  const testShare = (xs: readonly Coverage[]): number[] =>
    done(xs).map((x) => x.testExecuted / Math.max(1, x.testExecutable));
  console.log(row('  the same, test code (no main, no harness)', testShare(kiln), testShare(csmith), true));
  console.log(
    row(
      'line executions, .c file',
      done(kiln).map((x) => x.executions),
      done(csmith).map((x) => x.executions),
    ),
  );
  console.log(
    row(
      'line executions, test code (all files)',
      done(kiln).map((x) => x.testExecutions),
      done(csmith).map((x) => x.testExecutions),
    ),
  );
  console.log(
    row(
      'line executions, whole program (all files)',
      done(kiln).map((x) => x.wholeExecutions),
      done(csmith).map((x) => x.wholeExecutions),
    ),
  );
  const late = (xs: readonly Coverage[]): number => xs.filter((x) => !x.finished).length;
  console.log(
    `runs not finished within ${RUN_LIMIT_MS / 1000} s: kiln ${late(kiln)} of ${kiln.length}, ` +
      `csmith ${late(csmith)} of ${csmith.length} (left out of the figures above)`,
  );
  console.log(
    `generation as processes: kiln ${(kilnFiles.length / kilnSec).toFixed(2)} programs/s (one 'kiln gen ` +
      `--count ${count}', one generation process per core (${availableParallelism()}), ${kilnSec.toFixed(1)} s), ` +
      `csmith ${(csmithFiles.length / csmithSec).toFixed(2)} programs/s (${count} ` +
      `processes, ${csmithSec.toFixed(1)} s): ` +
      `ratio ${(kilnFiles.length / kilnSec / (csmithFiles.length / csmithSec)).toFixed(2)}x`,
  );
  if (kilnFiles.length < count) console.log(`kiln discarded ${count - kilnFiles.length} of ${count} seeds`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
