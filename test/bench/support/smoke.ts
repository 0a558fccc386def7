// Every benchmark still runs: each `bench:*` script of package.json is run with `--smoke` (a tiny
// input, well under a minute) and must exit 0 and print its figures. Benchmarks are long and run
// by hand, so without this a refactoring that breaks one goes unnoticed until someone measures.
// The figures themselves are not judged: speed targets live in the scripts' output, never here.
// The scripts are dealt to three test files (smoke-1..3.test.ts), run by `npm run test:bench`
// (vitest.config.ts leaves them out of `npm test`).
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../../src/harness/process.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const allScripts = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> })
  .scripts;
const scripts = Object.keys(allScripts).filter((s) => s.startsWith('bench:'));

/**
 * What each script's figures look like in its output. A script not listed here (a new one) must
 * print at least one line with a number in it; add it here to check more.
 */
const FIGURES: Readonly<Record<string, readonly RegExp[]>> = {
  'bench:interp': [/loops over int32 arrays .* M ops\/s/],
  'bench:gen': [
    /^kiln +\d+ +[\d.]+ s +[\d.]+/m,
    /^kiln gen --count \d+ -j 1 +\d+ +[\d.]+ s/m,
    /^kiln gen --count \d+ +\d+ +[\d.]+ s/m,
    /^csmith loop +\d+ +[\d.]+ s/m,
    /ratio \(kiln \/ csmith\), one core each \(-j 1\): [\d.]+× programs per second/,
  ],
  'bench:verify': [
    /compilers: 2 programs × 4 configurations = 8 runs, 0 mismatches/,
    /sanitizers: 1 programs × 4 tools = 4 runs, 0 reports or mismatches/,
  ],
  'bench:campaign': [
    /^kiln +\d+ programs, +\d+ tests in [\d.]+ s wall/m,
    /^csmith +\d+ programs, +\d+ tests in [\d.]+ s wall/m,
  ],
  'bench:policy': [/csmith gcc remarks per 1000 lines: off [\d.]+; on [\d.]+ = [\d.]+x/],
  'bench:check': [
    /\| signed-overflow \| 1 \| 1 \| 1 \| 1 \| ubsan 1 \| 0 \| 0 \| 0 \|/,
    /\| out-of-bounds \| 1 \| 1 \| 1 \| 1 \| asan 1 \| 0 \| 0 \| 0 \|/,
    /UB-free Kiln programs: 1 of 1 clean; 0 reports/,
    /Eva-only UB on a shared line .*: (\d+) programs: \1 UB, 0 clean \(false\), 0 incomplete/,
  ],
  'bench:cross': [
    /^\w+: model agrees with [\w-]+-gcc/m,
    /: 1 programs, 1 tests: ok 1; median compile \d+ ms, median emulated run \d+ ms; \d+ tests\/hour\/core/,
    /every test printed its expected output/,
  ],
  'bench:cross-campaign': [
    /^\| m68k \| [^|]+ \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| 0 \|/m,
    /^\| all \| \| \d+ \| \| \d+ \| \d+ \|/m,
  ],
  'bench:live': [
    /^line executions, test code \(all files\) +[\d.e+]+ \/ [\d.e+]+ \/ [\d.e+]+ +[\d.e+]+ \/ /m,
    /^ {2}the same, test code \(no main, no harness\) +[\d.]+% \//m,
    /runs not finished within 10 s: kiln \d+ of \d+, csmith \d+ of \d+/,
  ],
  'bench:emi': [
    /kiln emi failures \(seeds with no variants\): 0/,
    /proven: \d+\/\d+ /,
    /disagreements with the expected line: 0/,
    /sanitizers .* on \d+ variants: 0 reports/,
  ],
  'bench:emi-campaign': [
    /^\| plain \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| 0 \|/m,
    /^\| emi-4 \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| 0 \|/m,
    /^\| gcc \| [\d.]+ \| [\d.]+ \| [\d.]+ \|$/m,
  ],
  'bench:scale': [
    /^ +1 +\d+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +\d+%$/m,
    new RegExp(
      String.raw`coordinator ceiling: \d+ tests from \d+ workers whose tests take no time: ` +
        String.raw`(?:\d+|no window for a) tests/s steady, \d+ in session, \d+ whole process`,
    ),
    /near the ceiling: every program reported was recorded once/,
  ],
  'bench:sanitizers': [
    /\| signed-overflow \| ubsan \| gcc \| 1\/1 \(100%\) \|/,
    /\| out-of-bounds \| asan \| clang \| 1\/1 \(100%\) \|/,
    /UB-free programs: 1 programs, 3 sanitized runs, 0 false alarms/,
  ],
  'bench:latest': [
    new RegExp(
      String.raw`launcher overhead \(gcc-12 on the host against the same gcc-12 through a launcher, static links, ` +
        String.raw`4 compiles each\): direct [\d.]+ ms, launcher [\d.]+ ms per compile`,
    ),
  ],
  'bench:profile': [/profile soundness: \d+ programs × 4 configurations, \d+ tests: 0 mismatches/],
  'bench:flow': [
    /^irreducible loops( +[\d.]+){6}$/m,
    /^executed gotos \(gcov\)( +[\d.]+){6}$/m,
    /programs with an irreducible loop: kiln \d+ of \d+, csmith \d+ of \d+/,
  ],
  'bench:reduce': [
    /wrong-code-ring +kiln-text +script +[\d.]+ +\d+ +\d+ +\d+ +interesting/,
    /wrong-code-ring +cvise +script +[\d.]+ +\d+ +\d+ +- +interesting/,
    /wrong-code-ring +creduce +script/,
  ],
};

/** Declares the smoke tests of every `part`-th script of `parts` (part 0 also checks the list). */
export function smokeTests(part: number, parts: number): void {
  describe(`benchmark scripts at smoke size (${part + 1} of ${parts})`, () => {
    if (part === 0) {
      it('package.json has the benchmarks this test knows', () => {
        for (const name of Object.keys(FIGURES)) expect(scripts).toContain(name);
      });

      it('every bench/*.ts has a bench:* script, so none escapes the smoke runs', () => {
        const files = readdirSync(`${ROOT}bench`).filter((f) => f.endsWith('.ts'));
        expect(files.length).toBeGreaterThan(0);
        for (const f of files)
          expect(
            scripts.some((s) => allScripts[s]!.split(/\s+/).includes(`bench/${f}`)),
            f,
          ).toBe(true);
      });
    }

    for (const name of scripts.filter((_, i) => i % parts === part)) {
      it(`${name} -- --smoke exits 0 and prints its figures`, { timeout: 180_000 }, async () => {
        const r = await runProcess('npm', ['run', '--silent', name, '--', '--smoke'], {
          cwd: ROOT,
          timeoutMs: 170_000,
          maxOutputBytes: 4 << 20,
        });
        const log =
          `${name}: status ${r.status}${r.timedOut ? ' (timed out)' : ''}\n--- ` +
          `stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}`;
        expect(r.timedOut, log).toBe(false);
        expect(r.status, log).toBe(0);
        for (const re of FIGURES[name] ?? [/\d/]) expect(r.stdout, log).toMatch(re);
      });
    }
  });
}
