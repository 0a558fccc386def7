// Text reduction: Kiln's text reducer against C-Vise and C-Reduce, on the same inputs with the
// same interestingness tests, in the same run.
//
//   npm run bench:reduce [-- --jobs 2 --time-limit 600 --reducers kiln-text,cvise,creduce --cases NAME,…]
//   npm run bench:reduce -- --smoke    (the hand-written wrong-code case only, 3 s per reducer)
//
// Inputs: two Kiln findings (a fake crash and a fake miscompilation, made by a short campaign),
// which all four reducers get (Kiln's IR reducer the finding folder, the others prog.c and the
// same script); Csmith programs that a fault-injected compiler "crashes" on (a script that accepts what
// `gcc -fsyntax-only` accepts and prints an ICE when the source has a planted pair of constructs),
// and one wrong-code case (a hand-written program and a compiler that miscompiles `^=`) under
// Kiln's UB-guarded `--wrong-code` test. Prints wall time, final size (bytes, lines), and whether
// the result is still interesting, for each reducer and case. A run that hits --time-limit is
// stopped and reported with the size it had reached.
//
// Every reducer is given the case's script, except Kiln's IR reducer, which is run twice on the
// Kiln findings: `kiln-ir` with its own test (the failing configuration fails the same way, and for
// wrong code `gcc -O0` prints the interpreter's recomputed output: no sanitizer builds), and
// `kiln-ir/script` with the case's script like everyone else (its candidates are still checked by
// the interpreter first, which is how it makes them). The `test` column says which; sizes and
// times compare like with like only between rows that used the same test. Every result, whatever
// test made it, is finally judged by the case's script (the `result` column).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runProcess } from '../src/harness/process.js';
import { parsePolicy } from '../src/gen/policy.js';
import { readFindingManifest, reduceFinding } from '../src/reduce/finding.js';
import { reduceIR } from '../src/reduce/ir/engine.js';
import { generateProgram } from '../src/repair/generate.js';
import { InterestingnessTest } from '../src/reduce/text/interesting.js';
import { reduceText, textSize } from '../src/reduce/text/manager.js';
import { crashScript, probeCrash, probeWrongCodeGuards, wrongCodeScript } from '../src/reduce/text/scripts.js';

/** One input with its interestingness test. */
export interface BenchCase {
  readonly name: string;
  /** What makes it interesting. */
  readonly about: string;
  /** The C file (reducers work on copies). */
  readonly file: string;
  /** Basename the test expects. */
  readonly fileName: string;
  /** C-Reduce-style interestingness script. */
  readonly test: string;
  /** A Kiln finding directory for the same bug, when there is one (for the IR reducer). */
  readonly finding?: string;
}

/** How a reducer is run on a case. */
export interface ReduceRun {
  /** A private copy of the case's file, in a directory of its own; reducers may rewrite it. */
  readonly file: string;
  readonly jobs: number;
  /** Wall-clock budget; the reducer must stop (or be stopped) by then. */
  readonly timeLimitMs: number;
  /** Limit of one test run. */
  readonly testTimeoutMs: number;
}

/** A reducer in the comparison table. */
export interface ReducerEntry {
  readonly name: string;
  /** Why it cannot run here, or null. */
  unavailable(): string | null;
  /** Whether it handles this case (the IR reducer needs a Kiln finding). */
  supports(c: BenchCase): boolean;
  /** The test it reduces with: the case's script, or its own. */
  readonly test: 'script' | 'own';
  /** Reduces; returns the final text and whether it was stopped by the time limit. */
  run(c: BenchCase, r: ReduceRun): Promise<{ text: string; stopped: boolean; tests?: number }>;
}

function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

const kilnText: ReducerEntry = {
  name: 'kiln-text',
  test: 'script',
  unavailable: () => null,
  supports: () => true,
  async run(c, r) {
    const test = new InterestingnessTest(c.test, c.fileName, r.testTimeoutMs);
    try {
      const res = await reduceText({
        text: readFileSync(r.file, 'utf8'),
        test,
        label: c.name,
        jobs: r.jobs,
        maxTimeMs: r.timeLimitMs,
      });
      return { text: res.text, stopped: res.stoppedBy === 'time-limit', tests: res.tests };
    } finally {
      test.dispose();
    }
  },
};

/** C-Vise and C-Reduce share a command line: TOOL --n J --timeout S --tidy TEST FILE (in place). */
function classicReducer(name: string, cmd: string): ReducerEntry {
  return {
    name,
    test: 'script',
    unavailable: () =>
      hasCommand(cmd) ? null : `${cmd} is not installed (node scripts/ensure-tools.mjs --profile bench)`,
    supports: () => true,
    async run(_c, r) {
      const dir = join(r.file, '..');
      // C-Vise insists on a bare file name (no folder) for the test case, run from its folder.
      const p = await runProcess(
        cmd,
        [
          '--n',
          String(r.jobs),
          '--timeout',
          String(Math.ceil(r.testTimeoutMs / 1000)),
          '--tidy',
          _c.test,
          basename(r.file),
        ],
        {
          cwd: dir,
          // Killed at the time limit, C-Vise and C-Reduce leave their temporary folders behind: keep
          // them inside the bench's scratch folder, which is removed at the end.
          env: { TMPDIR: dir },
          timeoutMs: r.timeLimitMs,
          maxOutputBytes: 1 << 16,
        },
      );
      if (!p.timedOut && p.status !== 0) throw new Error(`${cmd} failed (status ${p.status}): ${p.stderr.slice(-500)}`);
      return { text: readFileSync(r.file, 'utf8'), stopped: p.timedOut };
    },
  };
}

/**
 * Kiln's IR reducer: it works on the finding (regenerated from its seed), re-executes every
 * candidate in the interpreter, and uses its own test (the failing compiler must still fail the
 * same way; for wrong code a reference `gcc -O0` must print the recomputed output). Its result is
 * then judged by the case's script like everyone else's.
 */
const kilnIR: ReducerEntry = {
  name: 'kiln-ir',
  test: 'own',
  unavailable: () => null,
  supports: (c) => c.finding !== undefined,
  async run(c, r) {
    const res = await reduceFinding(c.finding!, { jobs: r.jobs, maxTimeMs: r.timeLimitMs });
    return { text: res.source, stopped: !res.complete, tests: res.stats.tested };
  },
};

/**
 * Kiln's IR reducer with the case's script as its test, the test the other reducers get: each
 * candidate the interpreter accepts is printed (one file, as the finding's prog.c) and given to
 * the script.
 */
const kilnIRScript: ReducerEntry = {
  name: 'kiln-ir/script',
  test: 'script',
  unavailable: () => null,
  supports: (c) => c.finding !== undefined,
  async run(c, r) {
    const f = readFindingManifest(c.finding!);
    if (f.mode !== 'csmith') throw new Error(`${c.name}: only single-file (csmith mode) findings are supported`);
    const g = generateProgram(f.seed, parsePolicy(f.policy), f.mode);
    if (!g.ok) throw new Error(`${c.name}: seed ${f.seed} no longer generates a program`);
    const test = new InterestingnessTest(c.test, c.fileName, r.testTimeoutMs);
    try {
      const res = await reduceIR(
        g.program,
        async (cand, signal) => (await test.run(cand.source, signal)) === 'interesting',
        { jobs: r.jobs, maxTimeMs: r.timeLimitMs },
      );
      return { text: res.best.source, stopped: res.stats.ms >= r.timeLimitMs, tests: res.stats.tested };
    } finally {
      test.dispose();
    }
  },
};

/** The reducers compared. */
export const REDUCERS: ReducerEntry[] = [
  kilnIR,
  kilnIRScript,
  kilnText,
  classicReducer('cvise', 'cvise'),
  classicReducer('creduce', 'creduce'),
];

// ---------------------------------------------------------------------------------------------
// Cases

/** Planted "bugs" of the fake compiler: it crashes when every pattern (grep -E) occurs. */
const FAKE_BUGS: Readonly<Record<string, readonly string[]>> = {
  'xor-in-loop': ['\\^=', 'for \\('],
  'volatile-ptr-mod': ['volatile', '->|\\*\\*', 'safe_mod_func'],
  'lshift-break': ['safe_lshift_func', 'break;', '\\|='],
};

const FAKE_ICE_CC = `#!/bin/sh
# Fake compiler driver for bench:reduce: accepts what gcc -fsyntax-only accepts, and "crashes"
# when the source has every pattern of the bug chosen with -fbug=NAME.
src= ; bug=
for a; do case $a in *.c) src=$a ;; -fbug=*) bug=\${a#-fbug=} ;; esac; done
gcc -fsyntax-only -w -I/usr/include/csmith "$src" || exit 1
case $bug in
${Object.entries(FAKE_BUGS)
  .map(([name, pats]) => `  ${name}) ${pats.map((p) => `grep -Eq -e '${p}' "$src"`).join(' && ')} || exit 0 ;;`)
  .join('\n')}
  *) exit 0 ;;
esac
echo "$src:1:1: internal compiler error: in fake_$bug, at fake.c:42" >&2
exit 4
`;

function sh(cmd: string, cwd: string): { status: number | null; stdout: string } {
  const r = spawnSync('sh', ['-c', cmd], { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout };
}

/** Csmith programs the fake compiler crashes on: the first seed from `seed` that triggers each bug. */
export async function csmithCases(work: string, firstSeed: number): Promise<BenchCase[]> {
  const cc = join(work, 'fake-ice-cc.sh');
  writeFileSync(cc, FAKE_ICE_CC);
  chmodSync(cc, 0o755);
  const out: BenchCase[] = [];
  let seed = firstSeed;
  for (const bug of Object.keys(FAKE_BUGS)) {
    for (let tries = 0; ; tries++, seed++) {
      if (tries > 200) throw new Error(`no Csmith seed triggers ${bug}`);
      const dir = join(work, `csmith-${seed}`);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'prog.c');
      const gen = sh(`csmith --seed ${seed} --max-funcs 4 --max-block-depth 3 > prog.c`, dir);
      if (gen.status !== 0) continue;
      const lines = readFileSync(file, 'utf8').split('\n').length;
      if (lines < 250 || lines > 700) continue;
      const compiler = `${cc} -fbug=${bug} -O2`;
      const probe = await probeCrash(compiler, 'prog.c', readFileSync(file, 'utf8'), 60_000);
      if (!probe.crashed) continue;
      const test = join(dir, 'test.sh');
      writeFileSync(test, crashScript({ fileName: 'prog.c', compiler, match: probe.signature }));
      chmodSync(test, 0o755);
      out.push({
        name: `csmith-${seed}-${bug}`,
        about: `fake ICE on ${FAKE_BUGS[bug]!.join(' + ')}`,
        file,
        fileName: 'prog.c',
        test,
      });
      seed++;
      break;
    }
  }
  return out;
}

/** The wrong-code case: hand-written ring.c, a compiler that miscompiles `^=`, Kiln's UB-guarded test. */
export async function wrongCodeCase(work: string): Promise<BenchCase> {
  const fixtures = new URL('../test/reduce/text/fixtures/', import.meta.url).pathname;
  const dir = join(work, 'wrong-code');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'ring.c');
  copyFileSync(join(fixtures, 'ring.c'), file);
  const text = readFileSync(file, 'utf8');
  const guards = await probeWrongCodeGuards('ring.c', text, []);
  const test = join(dir, 'test.sh');
  writeFileSync(
    test,
    wrongCodeScript({
      fileName: 'ring.c',
      failing: join(fixtures, 'fake-wrong-cc.sh'),
      reference: 'gcc -O0 -w',
      cflags: [],
      ...guards,
      runTimeoutS: 5,
    }),
  );
  chmodSync(test, 0o755);
  return {
    name: 'wrong-code-ring',
    about: `miscompiled ^=, UB-guarded (MSan ${guards.msan ? 'on' : 'off'})`,
    file,
    fileName: 'ring.c',
    test,
  };
}

/** Planted bugs of the fake compilers for Kiln programs: every pattern (grep -E) must occur. */
const KILN_ICE = ['\\^=', 'while \\(', '->'];
const KILN_WRONG = ['\\|=', 'switch'];

/** A fake compiler over gcc that crashes (`ice`) or miscompiles (`wrong`) when all patterns occur. */
function kilnFake(kind: 'ice' | 'wrong', pats: readonly string[]): string {
  const hit = pats.map((p) => `grep -Eq -e '${p}' "$src"`).join(' && ');
  const act =
    kind === 'ice'
      ? `echo "$src:1:1: internal compiler error: in fake_kiln_ice, at fake.c:7" >&2; exit 4`
      : `sed 's/\\(kiln_crc = 0x[0-9A-F]*ULL\\)/\\1 + 1/' "$src" > "$src.fake.c" && exec gcc -w "$src.fake.c" ` +
        `-o "$out" -lm`;
  // biome-ignore format: embedded text
  return `#!/bin/sh
# Fake compiler driver for bench:reduce: gcc, except that it ${kind === 'ice' ? 'crashes' : 'miscompiles'} when the source has every planted pattern.
src= ; out= ; prev=
for a; do case $a in *.c) src=$a ;; esac; [ "$prev" = -o ] && out=$a; prev=$a; done
if [ -n "$src" ] && ${hit}; then gcc -fsyntax-only -w "$src" || exit 1; ${act}; fi
exec gcc -w "$@"
`;
}

/**
 * Kiln findings made by a short campaign with the two fakes above: a crash (test: the crash script)
 * and a wrong-code finding (test: Kiln's UB-guarded --wrong-code script, reference gcc -O0). The
 * IR reducer takes the finding folders; the text reducers take prog.c with the script.
 */
export async function kilnCases(work: string, firstSeed: number): Promise<BenchCase[]> {
  const bin = join(work, 'bin');
  mkdirSync(bin, { recursive: true });
  const ice = join(bin, 'fake-ice-kiln');
  const wrong = join(bin, 'fake-wrong-kiln');
  writeFileSync(ice, kilnFake('ice', KILN_ICE));
  writeFileSync(wrong, kilnFake('wrong', KILN_WRONG));
  chmodSync(ice, 0o755);
  chmodSync(wrong, 0o755);
  const out = join(work, 'kiln-out');
  const root = new URL('..', import.meta.url).pathname;
  const tsx = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'src/cli/main.ts'),
      'fuzz',
      '--compilers',
      `gcc,${ice},${wrong}`,
      '--opts',
      '-O0',
      '--tests',
      '12',
      '--seed-start',
      String(firstSeed),
      '--mode',
      'csmith',
      '--out',
      out,
    ],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  if (tsx.status !== 0) throw new Error(`kiln fuzz failed: ${tsx.stderr.slice(-400)}`);
  const found = readdirSync(join(out, 'findings')).sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1]));
  const cases: BenchCase[] = [];
  for (const [fake, kind] of [
    [ice, 'ice'],
    [wrong, 'wrong'],
  ] as const) {
    const id = found.find((d) => d.includes(basename(fake)));
    if (!id) throw new Error(`no Kiln finding for ${basename(fake)} in seeds ${firstSeed}…${firstSeed + 11}`);
    const dir = join(out, 'findings', id);
    const file = join(dir, 'prog.c');
    const test = join(dir, 'test.sh');
    const compiler = `${fake} -O0`;
    if (kind === 'ice') {
      const probe = await probeCrash(compiler, 'prog.c', readFileSync(file, 'utf8'), 60_000);
      writeFileSync(test, crashScript({ fileName: 'prog.c', compiler, match: probe.signature }));
    } else {
      // Runtime guards only (UBSan+ASan, MSan): Kiln repairs the code that runs, and compilers warn
      // about UB in branches that never run (`x / 0` in dead code is valid C), so warnings-as-errors
      // guards would reject the original program.
      const guards = await probeWrongCodeGuards('prog.c', readFileSync(file, 'utf8'), []);
      writeFileSync(
        test,
        wrongCodeScript({
          fileName: 'prog.c',
          failing: compiler,
          reference: 'gcc -O0 -w',
          cflags: [],
          ...guards,
          gccErrors: [],
          clangErrors: [],
          runTimeoutS: 5,
        }),
      );
    }
    chmodSync(test, 0o755);
    cases.push({
      name: `kiln-${id}`,
      about:
        kind === 'ice'
          ? `fake ICE on ${KILN_ICE.join(' + ')}`
          : `fake wrong code on ${KILN_WRONG.join(' + ')}, UB-guarded test`,
      file,
      fileName: 'prog.c',
      test,
      finding: dir,
    });
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Main

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

async function main(): Promise<void> {
  const smoke = process.argv.includes('--smoke');
  const jobs = Number(arg('jobs', '2'));
  const timeLimitMs = Number(arg('time-limit', smoke ? '3' : '600')) * 1000;
  const testTimeoutMs = Number(arg('test-timeout', '60')) * 1000;
  const seed = Number(arg('seed', '1'));
  const onlyReducers = arg('reducers', '') ? arg('reducers', '').split(',') : null;
  const onlyCases = arg('cases', '') ? arg('cases', '').split(',') : null;
  // A smoke run skips the cases that need a campaign or a search over csmith seeds.
  const wanted = (group: 'kiln' | 'csmith'): boolean =>
    !smoke || (onlyCases?.some((n) => n.startsWith(group)) ?? false);

  const tools = spawnSync(
    process.execPath,
    [new URL('../scripts/ensure-tools.mjs', import.meta.url).pathname, '--profile', 'bench', '--check'],
    { stdio: 'inherit' },
  );
  if (tools.status !== 0) throw new Error('could not install the benchmark tools (csmith, creduce, cvise)');

  const work = mkdtempSync(join(tmpdir(), 'kiln-bench-reduce-'));
  try {
    const cases = [
      ...(wanted('kiln') ? await kilnCases(work, seed) : []),
      ...(wanted('csmith') ? await csmithCases(work, seed) : []),
      await wrongCodeCase(work),
    ].filter((c) => !onlyCases || onlyCases.some((n) => c.name.includes(n)));
    const reducers = REDUCERS.filter((r) => !onlyReducers || onlyReducers.includes(r.name));
    console.log(`bench:reduce  jobs=${jobs}  time limit ${timeLimitMs / 1000}s per run  (${new Date().toISOString()})`);
    for (const c of cases) {
      const { bytes, lines } = textSize(readFileSync(c.file, 'utf8'));
      console.log(`case ${c.name}: ${bytes} bytes, ${lines} lines — ${c.about}`);
    }
    const rows: string[][] = [['case', 'reducer', 'test', 'time s', 'bytes', 'lines', 'tests', 'result']];
    for (const c of cases) {
      for (const red of reducers) {
        const why = red.unavailable();
        if (why || !red.supports(c)) {
          rows.push([c.name, red.name, red.test, '-', '-', '-', '-', why ?? 'not applicable']);
          continue;
        }
        const dir = join(work, 'runs', `${c.name}-${red.name}`);
        mkdirSync(dir, { recursive: true });
        const file = join(dir, c.fileName);
        copyFileSync(c.file, file);
        const t0 = Date.now();
        let row: string[];
        try {
          const out = await red.run(c, { file, jobs, timeLimitMs, testTimeoutMs });
          const secs = ((Date.now() - t0) / 1000).toFixed(1);
          const size = textSize(out.text);
          const check = new InterestingnessTest(c.test, c.fileName, testTimeoutMs);
          const verdict = await check.run(out.text);
          check.dispose();
          const status =
            `${verdict === 'interesting' ? 'interesting' : 'NOT INTERESTING'}` +
            `${out.stopped ? ' (time limit)' : ''}`;
          row = [
            c.name,
            red.name,
            red.test,
            secs,
            String(size.bytes),
            String(size.lines),
            out.tests === undefined ? '-' : String(out.tests),
            status,
          ];
        } catch (e) {
          row = [
            c.name,
            red.name,
            red.test,
            ((Date.now() - t0) / 1000).toFixed(1),
            '-',
            '-',
            '-',
            `error: ${(e as Error).message.split('\n')[0]}`,
          ];
        }
        rows.push(row);
        console.log(row.join('  '));
      }
    }
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    console.log('');
    console.log(
      `test: "script" is the case's interestingness script, "own" Kiln's IR test (see the header of ` +
        `bench/reduce.ts); result: the final text judged by the case's script`,
    );
    for (const r of rows)
      console.log(
        r.map((cell, i) => (i >= 3 && i <= 6 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  '),
      );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// Run only as a script, so the IR reducer's bench code can import REDUCERS and the cases.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
