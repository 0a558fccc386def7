// The validity check of reduced test cases (src/reduce/validity.ts): which compilers it asks, how
// it reads their diagnostics, and that Kiln's own programs pass it (a reduced case can only be as
// valid as the program it came from). Needs gcc and clang; fails, never skips, without them.
import { describe, expect, it } from 'vitest';
import { CSMITH_POLICY } from '../../src/gen/policy.js';
import { MODES } from '../../src/gen/mode.js';
import { detectCompilers, type Compiler } from '../../src/harness/compilers.js';
import { corpusOfSeed, type CorpusCase } from '../../src/reduce/validity-corpus.js';
import {
  invalidating,
  ValidityChecker,
  validityCompilers,
  validitySummary,
  versionNumbers,
} from '../../src/reduce/validity.js';
import { requireTool, policyForCompilers } from '../support/cc.js';

/** Seeds per mode checked here; `npm run bench:validity` checks 200 (see its header). */
const SEEDS_PER_MODE = 4;

const fake = (name: string, family: Compiler['family'], version: string, target?: string): Compiler => ({
  name,
  command: `/usr/bin/${name}`,
  realPath: `/usr/bin/${name}`,
  family,
  version,
  ...(target ? { target } : {}),
});

/** One definition of each GCC 14 error, as a program would get it from a careless edit. */
const BAD = `int *p; long q; static x = 1;
void f(void) { return 1; }
int g(void) { return; }
int h(a, b);
void k(void) { p = &q; p = q; undeclared(); }
`;

describe('validity check', () => {
  it('asks the newest native gcc and clang, whatever their names (a root gcc-16 launcher included)', () => {
    const list = [
      fake('gcc', 'gcc', 'gcc (Debian 12.2.0-14+deb12u1) 12.2.0'),
      fake('m68k-linux-gnu-gcc-12', 'gcc', 'm68k-linux-gnu-gcc-12 (Debian 12.2.0-13) 12.2.0', 'm68k'),
      fake('clang', 'clang', 'Debian clang version 14.0.6'),
      fake('clang-15', 'clang', 'Debian clang version 15.0.6'),
      fake('tcc', 'tcc', 'tcc version 0.9.27 (x86_64 Linux)'),
    ];
    expect(validityCompilers(list).map((c) => c.name)).toEqual(['gcc', 'clang-15']);
    const later = [
      ...list,
      fake('gcc-16', 'gcc', 'gcc-16 (GCC) 16.0.0 20260110 (experimental)'),
      fake('clang-22', 'clang', 'clang version 22.0.0git (https://github.com/llvm/llvm-project abc)'),
    ];
    expect(validityCompilers(later).map((c) => c.name)).toEqual(['gcc-16', 'clang-22']);
    expect(versionNumbers('gcc (Debian 12.2.0-14+deb12u1) 12.2.0')).toEqual([12, 2, 0]);
    expect(validityCompilers([list[4]!])).toEqual([]);
  });

  it('reads the GCC 14 errors from any version of gcc and clang, under their own names or none', () => {
    // biome-ignore format: data table
    const lines: [string, string | undefined][] = [
      ["prog.c:3:21: warning: 'return' with a value, in function returning void [-Wreturn-type]", 'return-mismatch'],
      ["prog.c:3:21: error: 'return' with a value, in function returning void [-Wreturn-mismatch]", 'return-mismatch'],
      ["prog.c:4:15: warning: 'return' with no value, in function returning non-void [-Wreturn-type]", 'return-mismatch'],
      ["prog.c:4:15: error: non-void function 'g' should return a value [-Wreturn-type]", 'return-mismatch'],
      ['prog.c:5:1: warning: parameter names (without types) in function declaration', 'declaration-missing-parameter-type'],
      ['prog.c:5:1: error: a parameter list without types is only allowed in a function definition', 'declaration-missing-parameter-type'],
      ["prog.c:6:18: error: assignment to 'int *' from incompatible pointer type 'long int *' [-Werror=incompatible-pointer-types]", 'incompatible-pointer-types'],
      ["prog.c:6:18: error: incompatible pointer types assigning to 'int *' from 'long *' [-Werror,-Wincompatible-pointer-types]", 'incompatible-pointer-types'],
      ["prog.c:6:26: warning: assignment to 'int *' from 'long int' makes pointer from integer without a cast [-Wint-conversion]", 'int-conversion'],
      ["prog.c:1:24: warning: type defaults to 'int' in declaration of 'x' [-Wimplicit-int]", 'implicit-int'],
      ["prog.c:6:31: warning: implicit declaration of function 'undeclared' [-Wimplicit-function-declaration]", 'implicit-function-declaration'],
      ["prog.c:9:1: error: expected ';' before '}' token", 'error'],
      ["prog.c:9:5: warning: unused variable 'l_1' [-Wunused-variable]", undefined],
      ["prog.c:9:5: warning: control reaches end of non-void function [-Wreturn-type]", undefined],
      ['prog.c: In function \'f\':', undefined],
    ];
    for (const [line, code] of lines) expect(invalidating(line), line).toBe(code);
  });

  it('finds each GCC 14 error with both compilers; passes a clean program with -Wall -Wextra warnings', async () => {
    requireTool('gcc');
    requireTool('clang');
    const checker = new ValidityChecker(validityCompilers(await detectCompilers()));
    expect(checker.compilers.map((c) => c.family)).toEqual(['gcc', 'clang']);
    const [bad, good] = await checker.checkMany([
      [{ name: 'prog.c', content: BAD }],
      [{ name: 'prog.c', content: 'int main(void) { int unused; return 0; }\n' }],
    ]);
    expect(good!.ok, validitySummary(good!)).toBe(true);
    expect(bad!.ok).toBe(false);
    for (const c of checker.compilers) {
      const codes = new Set(bad!.diagnostics.filter((d) => d.compiler === c.name).map((d) => d.code));
      for (const code of [
        'implicit-function-declaration',
        'implicit-int',
        'int-conversion',
        'incompatible-pointer-types',
        'return-mismatch',
        'declaration-missing-parameter-type',
      ])
        expect(codes.has(code as never), `${c.name}: ${code}`).toBe(true);
    }
  });

  it(`passes the generator's own programs: ${SEEDS_PER_MODE} seeds ` +
    `per mode, with EMI variants and UB-free relaxed programs`, async () => {
    requireTool('gcc');
    requireTool('clang');
    const checker = new ValidityChecker(validityCompilers(await detectCompilers()));
    // What every compiler of the check accepts (gcc 12 has no `_BitInt`, clang no __builtin_shuffle).
    const policy = await policyForCompilers(CSMITH_POLICY, ...checker.compilers.map((c) => c.command));
    const cases: CorpusCase[] = [];
    for (const mode of MODES) {
      for (let seed = 1; seed <= SEEDS_PER_MODE; seed++) cases.push(...corpusOfSeed(mode, seed, policy).cases);
      // About one relaxed program in ten is UB-free: csmith mode goes on until it has one (bounded),
      // taking only that kind from the further seeds.
      const relaxed = new Set(['relaxed'] as const);
      for (let seed = SEEDS_PER_MODE + 1; mode === 'csmith' && seed <= 30; seed++) {
        if (cases.some((c) => c.kind === 'relaxed')) break;
        cases.push(...corpusOfSeed(mode, seed, policy, relaxed).cases);
      }
    }
    // Every mode, and every kind of program, is there.
    for (const mode of MODES)
      expect(cases.filter((c) => c.mode === mode && c.kind === 'base').length).toBeGreaterThan(SEEDS_PER_MODE / 2);
    expect(cases.some((c) => c.kind === 'emi')).toBe(true);
    expect(cases.some((c) => c.kind === 'relaxed')).toBe(true);
    const results = await checker.checkMany(cases.map((c) => c.files));
    const bad = results.flatMap((r, i) =>
      r.ok ? [] : [`${cases[i]!.mode} seed ${cases[i]!.seed} (${cases[i]!.kind}): ${validitySummary(r)}`],
    );
    expect(bad).toEqual([]);
    expect(results.every((r) => r.inconclusive.length === 0)).toBe(true);
  }, 240_000);
});
