// Kiln's main promise, checked on real compilers: every generated program compiles and prints
// exactly the line the interpreter predicted. CI runs a slice; `npm run bench:verify` runs the
// full 1,000 seeds (and 200 seeds under sanitizers). The slice is sized for CI's time: since
// live-guided generation, programs are larger and run far more of their code (about 4× the
// generation CPU and twice the compile time), and 100 + 30 + 40 seeds took 15 minutes here; the
// whole suite's 20 minutes now allow 8 + 4 + 8.
import { describe, expect, it } from 'vitest';
import { CSMITH_POLICY, parsePolicy, type Policy } from '../../src/gen/policy.js';
import type { Program } from '../../src/ir/nodes.js';
import { walkProgram } from '../../src/ir/visit.js';
import { generateProgram } from '../../src/repair/generate.js';
import { batchSource } from '../support/batch.js';
import { compileC, policyForCompilers, requireTool, runExe } from '../support/cc.js';
import { mapPool } from '../support/pool.js';
import { runProcess } from '../../src/harness/process.js';

const FIRST = Number(process.env.KILN_TEST_SEED ?? 1);
const COUNT = 8;
const SANITIZER_COUNT = 4;
const BATCH = 10;

interface Case {
  readonly seed: number;
  readonly program: Program;
  readonly expected: string;
}

// The default policy as gcc (12: no `_BitInt`) and clang both accept it: each program is built by each.
const HOST = await policyForCompilers(CSMITH_POLICY, 'gcc', 'clang');

const FLOATS = await policyForCompilers(parsePolicy({ features: { floats: true } }), 'gcc', 'clang');

function generate(first: number, count: number, policy: Policy = HOST): Case[] {
  const out: Case[] = [];
  for (let s = first; out.length < count; s++) {
    const r = generateProgram(s, policy);
    if (r.ok) out.push({ seed: s, program: r.program, expected: r.expected });
    if (s > first + 2 * count) throw new Error('too many seeds discarded');
  }
  return out;
}

async function check(
  cases: readonly Case[],
  configs: readonly { cc: string; flags: readonly string[]; env?: Record<string, string> }[],
): Promise<string[]> {
  const batches: Case[][] = [];
  for (let i = 0; i < cases.length; i += BATCH) batches.push(cases.slice(i, i + BATCH));
  const failures: string[] = [];
  await mapPool(
    batches.flatMap((batch) => configs.map((c) => ({ batch, c }))),
    2,
    async ({ batch, c }) => {
      const bin = await compileC(batchSource(batch.map((x) => x.program)), {
        cc: c.cc,
        flags: c.flags,
        timeoutMs: 300_000,
      });
      try {
        const r = await runExe(bin.exe, [], 60_000, c.env);
        const lines = r.stdout.split('\n');
        if (r.status !== 0 || r.stderr.trim() !== '')
          failures.push(
            `${c.cc} ${c.flags.join(' ')} seeds ${batch[0]!.seed}…: status ${r.status}, ` +
              `stderr ${r.stderr.slice(0, 500)}`,
          );
        batch.forEach((x, i) => {
          if (lines[i] !== x.expected)
            failures.push(
              `seed ${x.seed} ${c.cc} ${c.flags.join(' ')}: got ${JSON.stringify(lines[i])}, ` +
                `expected ${JSON.stringify(x.expected)}`,
            );
        });
      } finally {
        bin.cleanup();
      }
    },
  );
  return failures;
}

/** Runs gcc -O0 builds under valgrind with --error-exitcode=1 (memcheck must be silent). */
async function valgrindSilent(cases: readonly Case[]): Promise<string[]> {
  const bin = await compileC(batchSource(cases.map((x) => x.program)), { cc: 'gcc', flags: ['-O0', '-g'] });
  try {
    const r = await runProcess('valgrind', ['-q', '--vgdb=no', '--error-exitcode=1', bin.exe], { timeoutMs: 300_000 });
    const lines = r.stdout.split('\n');
    const failures = r.status === 0 ? [] : [`valgrind status ${r.status}: ${r.stderr.slice(0, 800)}`];
    cases.forEach((x, i) => {
      if (lines[i] !== x.expected) failures.push(`valgrind seed ${x.seed}: got ${JSON.stringify(lines[i])}`);
    });
    return failures;
  } finally {
    bin.cleanup();
  }
}

describe('generated programs on real compilers', () => {
  it(`${COUNT} consecutive seeds print the expected line with gcc and clang at -O0 and -O2`, async () => {
    requireTool('gcc');
    requireTool('clang');
    const cases = generate(FIRST, COUNT);
    const failures = await check(cases, [
      { cc: 'gcc', flags: ['-O0'] },
      { cc: 'gcc', flags: ['-O2'] },
      { cc: 'clang', flags: ['-O0'] },
      { cc: 'clang', flags: ['-O2'] },
    ]);
    expect(failures).toEqual([]);
  }, 900_000);

  it(`${SANITIZER_COUNT} seeds are silent under clang ASan+UBSan, clang MSan, gcc UBSan and valgrind`, async () => {
    requireTool('clang');
    requireTool('valgrind');
    const cases = generate(FIRST + 5000, SANITIZER_COUNT);
    // biome-ignore format: data table
    const failures = await check(cases, [
      { cc: 'clang', flags: ['-O1', '-fsanitize=undefined,address', '-fno-sanitize-recover=all'], env: { ASAN_OPTIONS: 'detect_leaks=0' } },
      { cc: 'clang', flags: ['-O1', '-fsanitize=memory', '-fno-sanitize-recover=all'] },
      { cc: 'gcc', flags: ['-O1', '-fsanitize=undefined', '-fno-sanitize-recover=all'] },
    ]);
    expect(failures).toEqual([]);
    expect(await valgrindSilent(cases)).toEqual([]);
  }, 900_000);
});

describe('csmith mode with floating point (features.floats)', () => {
  /** Floating operations (arithmetic, comparisons, conversions) in a program. */
  function floatOps(p: Program): number {
    let n = 0;
    walkProgram(p, (x) => {
      if (
        (x.kind === 'binary' && (x.left.type.kind === 'float' || x.right.type.kind === 'float')) ||
        (x.kind === 'cast' && (x.type.kind === 'float' || x.operand.type.kind === 'float'))
      )
        n++;
    });
    return n;
  }

  it('8 seeds print the expected line bit for bit with gcc ' +
    'and clang at -O0, -O2 and -O3, and are UBSan-clean', async () => {
    requireTool('gcc');
    requireTool('clang');
    const cases = generate(FIRST, 8, FLOATS);
    // Most programs really compute with floats (the switch is not a no-op).
    expect(cases.filter((c) => floatOps(c.program) > 0).length).toBeGreaterThan(cases.length / 2);
    // biome-ignore format: data table
    const failures = await check(cases, [
      { cc: 'gcc', flags: ['-O0'] },
      { cc: 'gcc', flags: ['-O3'] },
      { cc: 'clang', flags: ['-O2'] },
      { cc: 'clang', flags: ['-O3'] },
      { cc: 'clang', flags: ['-O1', '-fsanitize=undefined,float-cast-overflow,float-divide-by-zero', '-fno-sanitize-recover=all'] },
    ]);
    expect(failures).toEqual([]);
  }, 900_000);

  it('is off by default: default programs have no floating operations', () => {
    expect(CSMITH_POLICY.features.floats).toBe(false);
    const off = parsePolicy({ features: { floats: false } });
    for (let s = FIRST; s < FIRST + 5; s++) {
      const a = generateProgram(s, CSMITH_POLICY);
      const b = generateProgram(s, off);
      expect(a.ok && b.ok && floatOps(a.program)).toBe(0);
      if (a.ok && b.ok) expect(b.expected).toBe(a.expected);
    }
  });
});
