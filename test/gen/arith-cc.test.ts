// Arith programs on real compilers: each program's whole output (one @OK@ line per expression,
// then the checksum line) must be exactly what the interpreter predicted, with gcc and clang at
// -O0, -O2 and -O3. Programs with float and double variables are included; a UBSan build of a few
// checks that no UB (float casts included) is left.
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/gen/policy.js';
import type { Program } from '../../src/ir/nodes.js';
import { walkProgram } from '../../src/ir/visit.js';
import { generateProgram } from '../../src/repair/generate.js';
import { batchSource } from '../support/batch.js';
import { compileC, requireTool, runExe } from '../support/cc.js';
import { mapPool } from '../support/pool.js';

const FIRST = Number(process.env.KILN_TEST_SEED ?? 1);
const COUNT = 40;
const BATCH = 10;
// Smaller than the defaults (maxOps 1000, maxExprs 40) to keep compile time modest here; the
// acceptance run, bench/verify.ts (npm run bench:verify), uses the defaults.
const POLICY = parsePolicy({ arith: { maxOps: 300, maxExprs: 25 } });

interface Case {
  readonly seed: number;
  readonly program: Program;
  readonly expected: string;
}

function generate(first: number, count: number): Case[] {
  const out: Case[] = [];
  for (let s = first; out.length < count; s++) {
    const r = generateProgram(s, POLICY, 'arith');
    if (!r.ok) throw new Error(`arith seed ${s} discarded: ${r.reason}`);
    out.push({ seed: s, program: r.program, expected: r.expected });
  }
  return out;
}

function usesFloat(p: Program): boolean {
  let found = false;
  walkProgram(p, (n) => {
    if (n.kind === 'var-decl' && n.type.kind === 'float') found = true;
  });
  return found;
}

/**
 * Compiles batches of programs (one translation unit each, every program with its own prefix)
 * and compares each program's lines: a program prints as many lines as it is expected to.
 */
async function check(
  cases: readonly Case[],
  configs: readonly { cc: string; flags: readonly string[] }[],
): Promise<string[]> {
  const batches: Case[][] = [];
  for (let i = 0; i < cases.length; i += BATCH) batches.push(cases.slice(i, i + BATCH));
  const failures: string[] = [];
  await mapPool(
    batches.flatMap((batch) => configs.map((c) => ({ batch, c }))),
    2,
    async ({ batch, c }) => {
      const what = `${c.cc} ${c.flags.join(' ')}`;
      const bin = await compileC(batchSource(batch.map((x) => x.program)), {
        cc: c.cc,
        flags: c.flags,
        timeoutMs: 300_000,
      });
      try {
        const r = await runExe(bin.exe, [], 60_000);
        if (r.status !== 0 || r.stderr.trim() !== '')
          failures.push(`${what} seeds ${batch[0]!.seed}…: status ${r.status}, stderr ${r.stderr.slice(0, 500)}`);
        const lines = r.stdout.split('\n');
        let at = 0;
        for (const x of batch) {
          const want = x.expected.split('\n');
          const got = lines.slice(at, at + want.length);
          at += want.length;
          if (got.join('\n') !== x.expected) {
            const i = want.findIndex((l, k) => got[k] !== l);
            failures.push(
              `seed ${x.seed} ${what}: line ${i + 1} is ${JSON.stringify(got[i])}, expected ${JSON.stringify(want[i])}`,
            );
          }
        }
      } finally {
        bin.cleanup();
      }
    },
  );
  return failures;
}

describe('arith programs on real compilers', () => {
  const cases = generate(FIRST, COUNT);

  it('include programs with float and double variables', () => {
    const withFloat = cases.filter((c) => usesFloat(c.program)).length;
    expect(withFloat).toBeGreaterThanOrEqual(COUNT / 4);
    expect(withFloat).toBeLessThan(COUNT);
  });

  it(`${COUNT} seeds print exactly the expected lines with gcc and clang at -O0, -O2 and -O3`, async () => {
    requireTool('gcc');
    requireTool('clang');
    const failures = await check(cases, [
      { cc: 'gcc', flags: ['-O0'] },
      { cc: 'gcc', flags: ['-O2'] },
      { cc: 'gcc', flags: ['-O3'] },
      { cc: 'clang', flags: ['-O0'] },
      { cc: 'clang', flags: ['-O2'] },
      { cc: 'clang', flags: ['-O3'] },
    ]);
    expect(failures).toEqual([]);
  }, 900_000);

  it('10 seeds are silent under clang UBSan with float-cast-overflow', async () => {
    requireTool('clang');
    const failures = await check(cases.slice(0, 10), [
      {
        cc: 'clang',
        flags: ['-O1', '-fsanitize=undefined,float-cast-overflow,float-divide-by-zero', '-fno-sanitize-recover=all'],
      },
    ]);
    expect(failures).toEqual([]);
  }, 300_000);
});
