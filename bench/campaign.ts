// Campaign throughput: Kiln against a plain loop over Debian's csmith, on the same compiler matrix,
// for the same wall time, both using every core. Prints programs (and tests) per hour and the ratio.
//
//   npm run bench:campaign -- [--time 3m] [--compilers gcc,clang,tcc] [--opts '-O0;-O2'] [-j N]
//                             [--slices 3] [--only kiln|csmith] [--mode csmith] [--from-source] [--keep]
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
// configuration, run, compare); "tests" are programs × configurations. The csmith loop does what
// a minimal csmith harness does: generate, compile each configuration with `-I/usr/include/csmith
// -w`, run with a timeout, compare the checksums across configurations (csmith has no expected
// value). Kiln runs `kiln fuzz` with its defaults (program size, limits, re-runs of failures).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { durationMs } from '../src/harness/config.js';
import { splitOptionSets, optionTokens } from '../src/harness/matrix.js';
import { runProcess } from '../src/harness/process.js';

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

interface Throughput {
  programs: number;
  seconds: number;
  /** CPU seconds of the tool's whole process tree. */
  cpuSeconds: number;
  failures: number;
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function parseArgs(argv: readonly string[]): BenchArgs {
  const a: BenchArgs = { timeMs: 180_000, slices: 3, compilers: ['gcc', 'clang', 'tcc'], optionSets: ['-O0', '-O2'], jobs: availableParallelism(), only: undefined, keep: false, fromSource: false, mode: 'csmith' };
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
    else usage(`unknown argument '${flag}'`);
  }
  if (!(a.jobs >= 1)) usage('-j takes a positive integer');
  if (!(Number.isInteger(a.slices) && a.slices >= 1)) usage('--slices takes a positive integer');
  return a;
}

function usage(msg: string): never {
  process.stderr.write(`bench:campaign: ${msg}\nusage: npm run bench:campaign -- [--time 3m] [--compilers gcc,clang,tcc] [--opts '-O0;-O2'] [-j N] [--slices 3] [--only kiln|csmith] [--mode csmith|yarpgen|arith|mixed] [--from-source] [--keep]\n`);
  process.exit(2);
}

/** The node arguments that start `kiln`: a fresh build in `work`, or the sources through tsx. */
function kilnEntry(a: BenchArgs, work: string): string[] {
  if (a.fromSource) return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, join(ROOT, 'src/cli/main.ts')];
  const build = join(work, 'build');
  mkdirSync(build, { recursive: true });
  spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(build, 'dist')], { stdio: 'ignore' });
  const main = join(build, 'dist/cli/main.js');
  if (!existsSync(main)) throw new Error('cannot build Kiln (tsc -p tsconfig.build.json); try --from-source');
  copyFileSync(join(ROOT, 'package.json'), join(build, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(build, 'node_modules'));
  return [main];
}

/** Kiln: one session of `kiln fuzz` (resuming after the first); its summary line gives programs and time. */
async function benchKiln(a: BenchArgs, entry: readonly string[], out: string, sliceMs: number, first: boolean): Promise<Throughput> {
  const matrix = first ? ['--compilers', a.compilers.join(','), '--opts', a.optionSets.join(';')] : ['--resume'];
  const args = [...entry, 'fuzz', ...matrix, ...(first ? ['--mode', a.mode] : []), '--time', `${sliceMs}ms`, '-j', String(a.jobs), '--out', out];
  const cpu0 = childrenCpuSeconds();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (status !== 0) throw new Error(`kiln fuzz exited with ${status}:\n${stdout}`);
  const m = /this session (\d+) programs, (\d+) tests in ([\d.]+) s; campaign total \d+ programs, (\d+) findings/.exec(stdout);
  if (!m) throw new Error(`cannot read kiln's summary:\n${stdout}`);
  return { programs: Number(m[1]), seconds: Number(m[3]), cpuSeconds: childrenCpuSeconds() - cpu0, failures: Number(m[4]) };
}

/** The csmith loop: every worker generates, compiles each configuration, runs, compares. */
async function benchCsmith(a: BenchArgs, work: string, sliceMs: number, seeds: { next: number }): Promise<Throughput> {
  const started = Date.now();
  const cpu0 = childrenCpuSeconds() + selfCpuSeconds();
  const deadline = started + sliceMs;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), sliceMs);
  let programs = 0;
  let failures = 0;
  const configs = a.compilers.flatMap((cc) => a.optionSets.map((o) => ({ cc, opts: optionTokens(o) })));
  const worker = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const seed = seeds.next++;
      const dir = await mkdtemp(join(work, 'p-'));
      try {
        // tcc rejects csmith's `#pragma pack(push)` (it needs an argument): without packed structs
        // every csmith program is tested by every compiler, as Kiln's are.
        const gen = await runProcess('csmith', ['--seed', String(seed), ...(a.compilers.some((c) => /tcc/.test(c)) ? ['--no-packed-struct'] : []), '-o', 'prog.c'], { cwd: dir, timeoutMs: 30_000, signal: stop.signal });
        if (gen.aborted) return;
        if (gen.status !== 0) continue;
        const sums: (string | undefined)[] = [];
        let aborted = false;
        for (const [k, c] of configs.entries()) {
          const exe = `prog${k}`;
          const cr = await runProcess(c.cc, [...c.opts, '-I/usr/include/csmith', '-w', 'prog.c', '-o', exe, '-lm'], { cwd: dir, timeoutMs: 120_000, memoryMb: 2048, signal: stop.signal });
          if (cr.aborted) {
            aborted = true;
            break;
          }
          if (cr.status !== 0) {
            sums.push(undefined);
            continue;
          }
          const rr = await runProcess(join(dir, exe), [], { cwd: dir, timeoutMs: 10_000, memoryMb: 2048, signal: stop.signal });
          if (rr.aborted) {
            aborted = true;
            break;
          }
          sums.push(rr.status === 0 && !rr.timedOut ? /checksum = ([0-9A-Fa-f]+)/.exec(rr.stdout)?.[1] : undefined);
        }
        if (aborted) return; // in flight at the deadline: not counted (as Kiln abandons it too)
        programs++;
        const seen = new Set(sums);
        if (seen.size > 1 || seen.has(undefined)) failures++;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  };
  await Promise.all(Array.from({ length: a.jobs }, worker));
  clearTimeout(timer);
  return { programs, seconds: (Date.now() - started) / 1000, cpuSeconds: childrenCpuSeconds() + selfCpuSeconds() - cpu0, failures };
}

/** User+system CPU seconds of this process's waited-for children (and theirs), from /proc/self/stat. */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the command name start at field 3 (state); cutime and cstime are fields 16 and 17.
  const ticks = Number(fields[16 - 3]) + Number(fields[17 - 3]);
  return ticks / CLOCK_TICKS;
}

/** This process's own CPU seconds (the csmith loop's orchestration). */
function selfCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

function add(total: Throughput | undefined, t: Throughput): Throughput {
  if (!total) return { ...t };
  total.programs += t.programs;
  total.seconds += t.seconds;
  total.cpuSeconds += t.cpuSeconds;
  total.failures = Math.max(total.failures, t.failures);
  return total;
}

function perHour(t: Throughput): number {
  return (t.programs * 3600) / t.seconds;
}

function perCpuHour(t: Throughput): number {
  return (t.programs * 3600) / t.cpuSeconds;
}

function line(name: string, t: Throughput, configs: number): string {
  return (
    `${name.padEnd(7)} ${String(t.programs).padStart(6)} programs in ${t.seconds.toFixed(1)} s wall, ${t.cpuSeconds.toFixed(1)} s CPU → ` +
    `${perHour(t).toFixed(0).padStart(6)} programs/h (${(perHour(t) * configs).toFixed(0)} tests/h), ${perCpuHour(t).toFixed(0).padStart(6)} programs/CPU-h; ${t.failures} failing`
  );
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const tools = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-tools.mjs'), '--profile', 'bench', '--check'], { stdio: 'inherit' });
  if (tools.status !== 0) throw new Error('missing tools: run node scripts/ensure-tools.mjs --profile bench');
  const configs = a.compilers.length * a.optionSets.length;
  process.stderr.write(
    `bench:campaign: ${a.compilers.join(',')} × ${a.optionSets.join(' | ')} = ${configs} configurations, ${a.jobs} jobs, ${a.timeMs / 1000} s each in ${a.slices} alternating slices\n`,
  );
  const work = mkdtempSync(join(tmpdir(), 'kiln-bench-'));
  const sliceMs = a.timeMs / a.slices;
  const csmithSeeds = { next: 1 };
  let kiln: Throughput | undefined;
  let csmith: Throughput | undefined;
  try {
    const entry = a.only === 'csmith' ? [] : kilnEntry(a, work);
    for (let i = 0; i < a.slices; i++) {
      if (a.only !== 'csmith') kiln = add(kiln, await benchKiln(a, entry, join(work, 'kiln-out'), sliceMs, i === 0));
      if (a.only !== 'kiln') csmith = add(csmith, await benchCsmith(a, work, sliceMs, csmithSeeds));
    }
    if (kiln) console.log(line('kiln', kiln, configs));
    if (csmith) console.log(line('csmith', csmith, configs));
    if (kiln && csmith && csmith.programs > 0) {
      console.log(`ratio   kiln/csmith = ${(perHour(kiln) / perHour(csmith)).toFixed(2)}× per wall hour, ${(perCpuHour(kiln) / perCpuHour(csmith)).toFixed(2)}× per CPU hour (target ≥ 1.5×)`);
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
