// The interpreter's contract: on every UB-free program, each real compiler at each option level
// prints exactly the interpreter's checksum line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Program } from '../../src/ir/nodes.js';
import { interpret } from '../../src/interp/interpret.js';
import { batchSource } from '../support/batch.js';
import { compileC, requireTool, runExe } from '../support/cc.js';
import { mapPool } from '../support/pool.js';
import { randomProgram } from '../support/randprog.js';

const WANTED = 300;
/** Programs per translation unit (compiler start-up dominates for small programs). */
const BATCH = 25;
const BASE_SEED = Number(process.env.KILN_TEST_SEED ?? 20261125);

describe('interpreter vs gcc and clang on random UB-free programs', () => {
  it(`prints exactly the interpreter's checksum for ${WANTED} programs (seed ${BASE_SEED})`, async () => {
    requireTool('gcc');
    requireTool('clang');
    const seeds = fc.sample(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { seed: BASE_SEED, numRuns: 20 * WANTED });
    const programs: { seed: number; program: Program; expected: string }[] = [];
    let skippedForUB = 0;
    for (const seed of seeds) {
      if (programs.length >= WANTED) break;
      const p = randomProgram(seed);
      const r = interpret(p);
      if (!r.ok) {
        skippedForUB++;
        continue;
      }
      programs.push({ seed, program: p, expected: r.output });
    }
    expect(programs.length).toBe(WANTED);
    const configs = [
      { cc: 'gcc', flags: ['-O0'] },
      { cc: 'gcc', flags: ['-O2'] },
      { cc: 'clang', flags: ['-O0'] },
      { cc: 'clang', flags: ['-O2'] },
    ];
    const batches: (typeof programs)[] = [];
    for (let i = 0; i < programs.length; i += BATCH) batches.push(programs.slice(i, i + BATCH));
    const jobs = batches.flatMap((batch) => configs.map((c) => ({ batch, ...c })));
    const mismatches: string[] = [];
    await mapPool(jobs, 2, async (j) => {
      const bin = await compileC(batchSource(j.batch.map((x) => x.program)), { cc: j.cc, flags: j.flags });
      try {
        const r = await runExe(bin.exe, [], 30_000);
        const lines = r.stdout.split('\n');
        expect(r.status).toBe(0);
        j.batch.forEach((x, i) => {
          if (`${lines[i]}\n` !== x.expected) {
            mismatches.push(
              `seed ${x.seed} ${j.cc} ${j.flags.join(' ')}: got ${JSON.stringify(lines[i])}, ` +
                `expected ${JSON.stringify(x.expected)}`,
            );
          }
        });
      } finally {
        bin.cleanup();
      }
    });
    console.log(
      `differential: ${programs.length} programs × ${configs.length} configurations, ${skippedForUB} ` +
        `candidates skipped for UB`,
    );
    expect(mismatches).toEqual([]);
  }, 600_000);
});
