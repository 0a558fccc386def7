// Campaign throughput: Kiln against a plain loop over Debian's csmith, on the same configurations,
// for the same wall time, both using every core. Prints programs and tests per hour and the ratio.
//
//   npm run bench:campaign -- [--time 3m] [--compilers gcc,clang,tcc] [--opts '-O0;-O2'] [-j N]
//                             [--slices 3] [--only kiln|csmith] [--mode csmith] [--from-source] [--keep]
//   npm run bench:campaign -- --smoke     (gcc -O0, one job, 2 × 3 s, from source: checks the script works)
//
// Like with like:
// - Both sides test the same configurations: Kiln's own matrix (src/harness/matrix.ts) of the
//   compilers and option sets, after it drops duplicates (tcc has no optimiser, so tcc's `-O` sets
//   are one configuration); the csmith loop runs exactly that list.
// - Both are timed from outside, as whole processes: from spawn to exit, start-up and shut-down
//   included (Kiln's own "in N s" excludes its start-up). Each gets the slice as its budget and
//   stops itself, abandoning what is in flight: Kiln through `--time`, the loop by checking the
//   deadline before each step.
// - Failures: Kiln's are the campaign's findings (its total after the last slice); the loop's are
//   programs whose configurations disagreed or failed, summed over slices.
//
// Kiln runs as users run it: compiled to JavaScript first (into a temporary folder, so the
// checkout's dist/ is left alone); --from-source runs the TypeScript through tsx instead, which
// adds a second or two of start-up per process.
//
// The time of each tool is cut into slices run alternately (kiln, csmith, kiln, ...; Kiln resumes
// its campaign), so that load from other work on the machine falls on both alike. Besides wall
// time, the CPU time of each tool's process tree is measured (children's user+system time from
// /proc/self/stat), and programs per CPU-hour are reported: it is the fairer figure on a shared
// machine.
//
// A "program" is one generated program taken through the whole matrix (compile with every
// configuration, run, compare); "tests" are programs × configurations (Kiln's count, from its
// summary, also includes the second compile and run of each failure). The csmith loop is a bash
// script that does what a minimal csmith harness does: generate, compile each configuration with
// `-I/usr/include/csmith -w` under the same time and memory limits as Kiln's defaults (`timeout`,
// `prlimit`), run, compare the checksums across configurations (csmith has no expected value).
// Kiln runs `kiln fuzz` with its defaults (program size, limits, re-runs of failures).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCompilers } from '../src/harness/compilers.js';
import { durationMs } from '../src/harness/config.js';
import { buildMatrix, DEFAULT_LIMITS, splitOptionSets, type Configuration } from '../src/harness/matrix.js';
import { kilnEntry, ROOT } from './lib/kiln.js';

interface BenchArgs {
  timeMs: number;
  slices: number;
  compilers: string[];
  optionSets: string[];
  jobs: number;
  only: 'kiln' | 'csmith' | undefined;
  keep: boolean;
  /** Run Kiln's TypeScript sources through tsx instead of a fresh JavaScript build. */
  fromSource: boolean;
  /** Kiln's generation mode (csmith by default: whole programs, like the csmith loop's). */
  mode: string;
}

/** What one tool did in one or more slices, measured from outside its process. */
interface Throughput {
  programs: number;
  /** Tests as the tool counts them (the loop: programs × configurations). */
  tests: number;
  /** Wall seconds from spawn to exit. */
  seconds: number;
  /** CPU seconds of the tool's whole process tree. */
  cpuSeconds: number;
  /** Programs with at least one failing configuration. */
  failures: number;
  /** Kiln only: its findings (one per failing configuration of a program). */
  findings?: number;
  /** Kiln only: the seconds its own summary reports (from inside, start-up excluded). */
  selfSeconds?: number;
}

function parseArgs(argv: readonly string[]): BenchArgs {
  const a: BenchArgs = {
    timeMs: 180_000,
    slices: 3,
    compilers: ['gcc', 'clang', 'tcc'],
    optionSets: ['-O0', '-O2'],
    jobs: availableParallelism(),
    only: undefined,
    keep: false,
    fromSource: false,
    mode: 'csmith',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) usage(`${flag} needs a value`);
      return v;
    };
    if (flag === '--time') a.timeMs = durationMs(value()) ?? usage('--time takes a duration such as 20s or 3m');
    else if (flag === '--compilers') a.compilers = value().split(',').filter(Boolean);
    else if (flag === '--opts') a.optionSets = splitOptionSets(value());
    else if (flag === '-j' || flag === '--jobs') a.jobs = Number(value());
    else if (flag === '--slices') a.slices = Number(value());
    else if (flag === '--only') {
      const v = value();
      if (v !== 'kiln' && v !== 'csmith') usage('--only takes kiln or csmith');
      a.only = v;
    } else if (flag === '--keep') a.keep = true;
    else if (flag === '--from-source') a.fromSource = true;
    else if (flag === '--mode') a.mode = value();
    else if (flag === '--smoke')
      Object.assign(a, {
        timeMs: 6_000,
        slices: 2,
        compilers: ['gcc'],
        optionSets: ['-O0'],
        jobs: 1,
        fromSource: true,
      });
    else usage(`unknown argument '${flag}'`);
  }
  if (!(a.jobs >= 1)) usage('-j takes a positive integer');
  if (!(Number.isInteger(a.slices) && a.slices >= 1)) usage('--slices takes a positive integer');
  return a;
}

function usage(msg: string): never {
  process.stderr.write(
    `bench:campaign: ${msg}\nusage: npm run bench:campaign -- [--time 3m] [--compilers gcc,clang,tcc] ` +
      `[--opts '-O0;-O2'] [-j N] [--slices 3] [--only kiln|csmith] [--mode csmith|yarpgen|arith|mixed] ` +
      `[--from-source] [--keep] [--smoke]\n`,
  );
  process.exit(2);
}

/** Runs a command to completion; wall seconds from spawn to exit and the CPU seconds of its whole tree. */
async function timedProcess(
  cmd: string,
  args: readonly string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ status: number | null; stdout: string; seconds: number; cpuSeconds: number }> {
  const cpu0 = childrenCpuSeconds();
  const t0 = performance.now();
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { status, stdout, seconds: (performance.now() - t0) / 1000, cpuSeconds: childrenCpuSeconds() - cpu0 };
}

/**
 * Kiln: one session of `kiln fuzz` (resuming after the first), timed as a process; its summary gives programs, tests
 * and findings.
 */
async function benchKiln(
  a: BenchArgs,
  entry: readonly string[],
  out: string,
  sliceMs: number,
  first: boolean,
): Promise<Throughput> {
  const matrix = first ? ['--compilers', a.compilers.join(','), '--opts', a.optionSets.join(';')] : ['--resume'];
  const args = [
    ...entry,
    'fuzz',
    ...matrix,
    ...(first ? ['--mode', a.mode] : []),
    '--time',
    `${sliceMs}ms`,
    '-j',
    String(a.jobs),
    '--out',
    out,
  ];
  const r = await timedProcess(process.execPath, args, { cwd: ROOT });
  if (r.status !== 0) throw new Error(`kiln fuzz exited with ${r.status}:\n${r.stdout}`);
  const m = /this session (\d+) programs, (\d+) tests in ([\d.]+) s; campaign total \d+ programs, (\d+) findings/.exec(
    r.stdout,
  );
  if (!m) throw new Error(`cannot read kiln's summary:\n${r.stdout}`);
  // Both failure figures are the campaign's running totals: the last slice's are Kiln's totals.
  return {
    programs: Number(m[1]),
    tests: Number(m[2]),
    seconds: r.seconds,
    cpuSeconds: r.cpuSeconds,
    failures: failingPrograms(out),
    findings: Number(m[4]),
    selfSeconds: Number(m[3]),
  };
}

/** Kiln's programs with a finding: distinct seeds among the finding folders (`<campaign>-<seed>-<configuration>`). */
function failingPrograms(out: string): number {
  const dir = join(out, 'findings');
  if (!existsSync(dir)) return 0;
  return new Set(
    readdirSync(dir)
      .map((n) => /^\d+-(\d+)-/.exec(n)?.[1])
      .filter((x) => x !== undefined),
  ).size;
}

/**
 * The plain csmith loop as a bash script: `jobs` workers, each generating, compiling with every
 * configuration, running and comparing, and appending one line per finished program (`seed ok` or
 * `seed fail`) to its own results file. A worker checks the deadline before each step and leaves
 * the program in flight unrecorded, as Kiln abandons its programs in flight at `--time`.
 */
function csmithLoopScript(configs: readonly Configuration[], noPacked: boolean): string {
  const { compile, run } = DEFAULT_LIMITS;
  const limited = (s: { timeoutMs: number; memoryMb: number | undefined }): string =>
    `timeout -k ` +
    `2 ${Math.ceil(s.timeoutMs / 1000)} ` +
    `${s.memoryMb === undefined ? '' : `prlimit --as=${s.memoryMb * 1024 * 1024} -- `}`;
  const q = (w: string): string => `'${w.replace(/'/g, `'\\''`)}'`;
  const compiles = configs.map(
    (c, k) =>
      `    ${limited(compile)}${[c.compiler.command, ...c.options].map(q).join(' ')} -I/usr/include/csmith ` +
      `-w prog.c -o prog${k} -lm >/dev/null 2>&1 && ok=1 || ok=0`,
  );
  // biome-ignore format: embedded text
  return `#!/usr/bin/env bash
# A plain csmith loop (written by bench/campaign.ts): generate, compile each configuration, run, compare.
#   csmith-loop.sh DEADLINE_US FIRST_SEED JOBS WORKDIR
set -u
deadline=$1; first=$2; jobs=$3; work=$4
export LC_ALL=C
before() { [ "\${EPOCHREALTIME/./}" -lt "$deadline" ] || exit 0; }
worker() {
  local k=$1 seed=$(( first + $1 )) d sums s ok fail
  while :; do
    before
    d=$(mktemp -d "$work/p-XXXXXX") || exit 1
    cd "$d" || exit 1
    if csmith --seed "$seed"${noPacked ? ' --no-packed-struct' : ''} -o prog.c >/dev/null 2>&1; then
      sums=""; fail=0
${configs
  .map(
    (_, k) => `      before
${compiles[k]!.replace(/^ {4}/, '      ')}
      s=-
      if [ "$ok" = 1 ]; then
        before
        s=$(${limited(run)}./prog${k} 2>/dev/null | sed -n 's/^checksum = \\([0-9A-Fa-f]*\\)$/\\1/p') && [ -n "$s" ] || s=-
      fi
      [ "$s" = - ] && fail=1
      [ -n "$sums" ] && [ "$sums" != "$s" ] && fail=1
      sums=$s`,
  )
  .join('\n')}
      before
      if [ "$fail" = 1 ]; then echo "$seed fail"; else echo "$seed ok"; fi >> "$work/results-$k"
    fi
    cd "$work" && rm -rf "$d"
    seed=$(( seed + jobs ))
  done
}
trap 'kill 0' TERM
for k in $(seq 0 $(( jobs - 1 ))); do worker "$k" & done
wait
`;
}

/** The csmith loop for one slice, timed as a process: programs and failures are read from its results files. */
async function benchCsmith(
  a: BenchArgs,
  script: string,
  work: string,
  sliceMs: number,
  firstSeed: number,
): Promise<Throughput> {
  const dir = mkdtempSync(join(work, 'loop-'));
  try {
    // The deadline is set before the spawn: the loop's start-up counts against its slice, as Kiln's
    // start-up is counted in its wall time.
    const deadlineUs = BigInt(Date.now() + sliceMs) * 1000n;
    const r = await timedProcess('bash', [script, String(deadlineUs), String(firstSeed), String(a.jobs), dir], {
      cwd: dir,
    });
    if (r.status !== 0) throw new Error(`the csmith loop exited with ${r.status}`);
    let programs = 0;
    let failures = 0;
    for (const f of readdirSync(dir).filter((n) => n.startsWith('results-'))) {
      for (const l of readFileSync(join(dir, f), 'utf8').split('\n')) {
        if (!l) continue;
        programs++;
        if (l.endsWith(' fail')) failures++;
      }
    }
    return { programs, tests: 0, seconds: r.seconds, cpuSeconds: r.cpuSeconds, failures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** User+system CPU seconds of this process's waited-for children (and theirs), from /proc/self/stat. */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the command name start at field 3 (state); cutime and cstime are fields 16 and 17.
  const ticks = Number(fields[16 - 3]) + Number(fields[17 - 3]);
  return ticks / CLOCK_TICKS;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** Adds a slice; failures add up unless `total` is a running total (Kiln's campaign findings). */
function add(total: Throughput | undefined, t: Throughput, runningTotal: boolean): Throughput {
  if (!total) return { ...t };
  total.programs += t.programs;
  total.tests += t.tests;
  total.seconds += t.seconds;
  total.cpuSeconds += t.cpuSeconds;
  total.failures = runningTotal ? t.failures : total.failures + t.failures;
  if (t.selfSeconds !== undefined) total.selfSeconds = (total.selfSeconds ?? 0) + t.selfSeconds;
  if (t.findings !== undefined) total.findings = runningTotal ? t.findings : (total.findings ?? 0) + t.findings;
  return total;
}

function perHour(t: Throughput): number {
  return (t.programs * 3600) / t.seconds;
}

function perCpuHour(t: Throughput): number {
  return (t.programs * 3600) / t.cpuSeconds;
}

function line(name: string, t: Throughput): string {
  return (
    `${name.padEnd(7)} ${String(t.programs).padStart(6)} programs, ${String(t.tests).padStart(7)} tests ` +
    `in ${t.seconds.toFixed(1)} s wall, ${t.cpuSeconds.toFixed(1)} s CPU → ` +
    `${perHour(t).toFixed(0).padStart(6)} programs/h (${((t.tests * 3600) / t.seconds).toFixed(0)} ` +
    `tests/h), ${perCpuHour(t).toFixed(0).padStart(6)} programs/CPU-h; ${t.failures} failing ` +
    `programs${t.findings === undefined ? '' : ` (${t.findings} findings)`}`
  );
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const tools = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-tools.mjs'), '--profile', 'bench', '--check'], {
    stdio: 'inherit',
  });
  if (tools.status !== 0) throw new Error('missing tools: run node scripts/ensure-tools.mjs --profile bench');
  // Kiln's matrix, duplicates dropped: the configurations both sides test.
  const configs = buildMatrix(await resolveCompilers(a.compilers), a.optionSets);
  process.stderr.write(
    `bench:campaign: ${a.compilers.join(',')} × ${a.optionSets.join(' | ')} = ${configs.length} ` +
      `configurations (${configs.map((c) => c.slug).join(' ')}), ${a.jobs} jobs, ${a.timeMs / 1000} s each ` +
      `in ${a.slices} alternating slices\n`,
  );
  const work = mkdtempSync(join(tmpdir(), 'kiln-bench-'));
  const sliceMs = a.timeMs / a.slices;
  let kiln: Throughput | undefined;
  let csmith: Throughput | undefined;
  try {
    const entry = a.only === 'csmith' ? [] : kilnEntry(work, a.fromSource);
    const script = join(work, 'csmith-loop.sh');
    // tcc rejects csmith's `#pragma pack(push)` (it needs an argument): without packed structs
    // every csmith program is tested by every compiler, as Kiln's are.
    writeFileSync(
      script,
      csmithLoopScript(
        configs,
        configs.some((c) => c.compiler.family === 'tcc'),
      ),
    );
    for (let i = 0; i < a.slices; i++) {
      if (a.only !== 'csmith')
        kiln = add(kiln, await benchKiln(a, entry, join(work, 'kiln-out'), sliceMs, i === 0), true);
      if (a.only !== 'kiln') {
        const slice = await benchCsmith(a, script, work, sliceMs, 1 + i * 1_000_000);
        csmith = add(csmith, { ...slice, tests: slice.programs * configs.length }, false);
      }
    }
    console.log(
      `programs: generated and tested with all ${configs.length} configurations; tests: compile+run of one ` +
        `configuration (Kiln's include its second run of each failure)`,
    );
    console.log(
      'failing programs: Kiln: with a finding (a configuration off the expected output, crashed, hung or ' +
        'rejected it); csmith: whose configurations failed or disagreed, summed over slices',
    );
    console.log(
      "seconds: wall time of the tool's processes from spawn to exit, start-up included; CPU: their whole process tree",
    );
    if (kiln) console.log(line('kiln', kiln));
    if (kiln?.selfSeconds)
      console.log(
        `        (Kiln's own summaries count ${kiln.selfSeconds.toFixed(1)} ` +
          `s: ${(kiln.seconds - kiln.selfSeconds).toFixed(1)} s of start-up and shut-down are outside them)`,
      );
    if (csmith) console.log(line('csmith', csmith));
    if (kiln && csmith && csmith.programs > 0) {
      console.log(
        `ratio   kiln/csmith = ${(perHour(kiln) / perHour(csmith)).toFixed(2)}× programs per wall ` +
          `hour, ${(perCpuHour(kiln) / perCpuHour(csmith)).toFixed(2)}× per CPU hour (target ≥ 1.5×)`,
      );
    }
  } finally {
    if (a.keep) process.stderr.write(`bench:campaign: kept ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:campaign: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
