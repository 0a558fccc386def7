// The newest compilers, run through their sid-root launchers (npm run setup -- --profile latest):
// what the launcher costs, and how fast each root compiler tests against the host's gcc-12.
//
//   npm run bench:latest [-- --programs 40 --compilers gcc-snapshot,gcc-16,clang-22 --seed 1]
//   npm run bench:latest -- --smoke     (2 programs at -O0 -O2; the launcher figure on a small root)
//   --overhead-programs N: how many of the programs part 1 compiles (default: up to 20; the
//   launcher's cost per compile does not depend on the program, and part 2 is the long one;
//   0 skips part 1). --skip N: part 2 starts at the program N+1 of the list (the first N are
//   generated, so the list is the same, and not tested), to finish a run that was stopped.
//   SIGINT or SIGTERM during part 2 stops after the program being tested and prints the figures
//   of the programs tested so far (the output says how many).
//
// 1. The launcher's own cost, like with like: the same compiler (the host's gcc-12) compiles the
//    same programs at the same options, once as itself and once through a launcher into a root
//    assembled from the host's /usr (bound into an empty folder in a private mount namespace).
//    Both are timed from outside as whole processes, one after the other, per program; the
//    difference is the namespace, the mounts and the chroot, nothing else.
// 2. With a real root (skipped when there is none): every program generated in csmith mode and
//    tested exactly as a campaign tests it (testConfiguration: sandbox, limits, oracle) with each
//    root compiler and with gcc-12 at -O0 -O1 -O2 -Os -O3; figures per compiler: tests, failures,
//    mean time of one test (compile + run) and tests per hour of one core, and that time against
//    gcc-12's on the same programs. Every test must print its program's expected output: any
//    other outcome is listed with its seed and configuration (a finding to check with kiln check).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { emitFiles } from '../src/emit/files.js';
import { parsePolicy } from '../src/gen/policy.js';
import { compilerCapabilities, policyFor } from '../src/harness/capabilities.js';
import { detectCompilers, resolveCompiler, type Compiler } from '../src/harness/compilers.js';
import { testConfiguration } from '../src/harness/execute.js';
import { buildMatrix, DEFAULT_LIMITS, DEFAULT_OPTION_SETS } from '../src/harness/matrix.js';
import { TempRoot } from '../src/harness/tempdir.js';
import { generateProgram } from '../src/repair/generate.js';
// @ts-expect-error: a plain .mjs module of the set-up scripts, without type declarations
import { writeLaunchers } from '../scripts/roots.mjs';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const smoke = process.argv.includes('--smoke');
const programs = Number(arg('programs', smoke ? '2' : '40'));
const seed0 = BigInt(arg('seed', '1'));
const wanted = arg('compilers', 'gcc-snapshot,gcc-16,clang-22').split(',').filter(Boolean);
const optionSets = smoke ? ['-O0', '-O2'] : DEFAULT_OPTION_SETS;
const overheadPrograms = Number(arg('overhead-programs', String(Math.min(programs, 20))));
const skip = Number(arg('skip', '0'));

if (process.getuid?.() !== 0) {
  console.error('bench:latest: needs root (the launchers chroot in a private mount namespace)');
  process.exit(1);
}

// Every program is compiled by the host's gcc-12 too: what it accepts (no `_BitInt`).
const hostPolicy = policyFor(parsePolicy({}), [await compilerCapabilities(await resolveCompiler('gcc-12'))], 'every');
const sources: { seed: bigint; text: string; expected: string }[] = [];
for (let s = seed0; sources.length < programs; s++) {
  const r = generateProgram(s, hostPolicy, 'csmith');
  if (!r.ok) continue;
  sources.push({ seed: s, text: emitFiles(r.program, { expected: r.expected })[0]!.content, expected: r.expected });
}
console.log(`bench:latest: ${sources.length} csmith-mode programs from seed ${seed0}, options ${optionSets.join(' ')}`);

// 1. The launcher's cost: gcc-12 as itself and through a launcher, on the same files.
if (overheadPrograms > 0) {
  const work = mkdtempSync(join(tmpdir(), 'kiln-bench-latest-'));
  try {
    const root = join(work, 'root');
    for (const d of ['usr', 'tmp', 'proc', 'dev', 'etc']) mkdirSync(join(root, d), { recursive: true });
    for (const d of ['bin', 'lib', 'lib64', 'sbin']) symlinkSync(`usr/${d}`, join(root, d));
    writeFileSync(join(root, '.kiln-root.json'), JSON.stringify({ suite: 'sid', packages: {} }));
    writeLaunchers(root, join(work, 'bin'), [{ name: 'gcc-12', command: '/usr/bin/gcc-12' }]);
    const dir = join(work, 'src');
    mkdirSync(dir);
    const measured = sources.slice(0, overheadPrograms);
    for (const p of measured) writeFileSync(join(dir, `p${p.seed}.c`), p.text);
    // One shell, in one namespace with /usr bound, times each compile as a whole process.
    const lines = measured.flatMap((p) =>
      optionSets.flatMap((o) => [
        `t0=$(date +%s%N); gcc-12 ${o} p${p.seed}.c -o a -lm -static || exit 1; t1=$(date +%s%N); echo ` +
          `direct $((t1 - t0))`,
        `t0=$(date +%s%N); "$L" ${o} p${p.seed}.c -o b -lm || exit 1; t1=$(date +%s%N); echo launcher $((t1 - t0))`,
      ]),
    );
    const script = `mount --bind /usr "$R/usr" || exit 1\ncd "$D" || exit 1\n${lines.join('\n')}\n`;
    const r = spawnSync('unshare', ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script], {
      encoding: 'utf8',
      env: { ...process.env, R: root, D: dir, L: join(work, 'bin', 'gcc-12') },
      maxBuffer: 16 << 20,
    });
    if (r.status !== 0) {
      console.error(`bench:latest: the launcher comparison failed (status ${r.status}):\n${r.stderr}`);
      process.exit(1);
    }
    const ns = { direct: [] as number[], launcher: [] as number[] };
    for (const l of r.stdout.split('\n')) {
      const m = /^(direct|launcher) (\d+)$/.exec(l);
      if (m) ns[m[1] as 'direct' | 'launcher'].push(Number(m[2]) / 1e6);
    }
    const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const d = mean(ns.direct);
    const l = mean(ns.launcher);
    console.log(
      `launcher overhead (gcc-12 on the host against the same gcc-12 through a launcher, static ` +
        `links, ${ns.direct.length} compiles each): direct ${d.toFixed(1)} ms, launcher ${l.toFixed(1)} ms per ` +
        `compile, +${(l - d).toFixed(1)} ms (${((l / d - 1) * 100).toFixed(1)}%)`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// 2. The real root's compilers against gcc-12, test by test.
const installed = await detectCompilers();
const roots = wanted
  .map((n) => installed.find((c) => c.name === n && c.root))
  .filter((c): c is Compiler => c !== undefined);
if (roots.length === 0) {
  console.log(
    `no sid root with ${wanted.join(', ')} here (npm run setup -- --profile latest builds one): root ` +
      `compilers not measured`,
  );
  process.exit(0);
}
const gcc12 = await resolveCompiler('gcc-12');
const compilers = [...roots, gcc12];
const temp = TempRoot.create();
const stats = new Map<string, { tests: number; ms: number; bad: string[] }>();
const started = performance.now();
let stopRequested = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    stopRequested = true;
  });
let tested = 0;
try {
  for (const [i, p] of sources.entries()) {
    if (stopRequested) break;
    if (i < skip) continue;
    if (i > 0 && i % 10 === 0) {
      const bad = [...stats.values()].reduce((a, s) => a + s.bad.length, 0);
      console.error(
        `bench:latest: ${i}/${sources.length} programs tested, ${bad} not as ` +
          `expected, ${Math.round((performance.now() - started) / 1000)} s`,
      );
    }
    for (const c of buildMatrix(compilers, optionSets)) {
      const t = performance.now();
      const res = await testConfiguration(p.text, p.expected, c, DEFAULT_LIMITS, temp);
      const s = stats.get(c.compiler.name) ?? { tests: 0, ms: 0, bad: [] };
      s.tests++;
      s.ms += performance.now() - t;
      if (res.judgement.outcome !== 'ok') s.bad.push(`seed ${p.seed} ${c.optionsText}: ${res.judgement.outcome}`);
      stats.set(c.compiler.name, s);
    }
    tested = i + 1;
  }
} finally {
  temp.dispose();
}
const base = stats.get(gcc12.name)!;
console.log(
  `\n${tested - Math.min(skip, tested)} of ${sources.length} programs tested` +
    `${skip > 0 ? ` (the first ${skip} skipped)` : ''}${tested < sources.length ? ' (stopped early)' : ''}; ` +
    `each test is one compile and one run of the binary, timed together`,
);
console.log(
  '\n| compiler | version | tests | not as expected | mean test (compile + run) | tests/hour/core | time ' +
    'against gcc-12 |',
);
console.log('|---|---|---|---|---|---|---|');
for (const c of compilers) {
  const s = stats.get(c.name)!;
  const mean = s.ms / s.tests;
  console.log(
    `| ${c.name} | ${c.version} | ${s.tests} | ${s.bad.length} | ${(mean / 1000).toFixed(2)} s ` +
      `| ${Math.round(3_600_000 / mean)} | ${(mean / (base.ms / base.tests)).toFixed(2)}x |`,
  );
}
const bad = [...stats.entries()].flatMap(([n, s]) => s.bad.map((b) => `${n} ${b}`));
console.log(
  bad.length
    ? `\nnot as expected (check each with kiln check, then kiln triage):\n${bad.join('\n')}`
    : '\nevery test printed its expected output',
);
