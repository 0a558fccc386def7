// The acceptance check in small: EMI variants print their base's output when compiled by gcc
// and clang at -O0 and -O2 (4 small programs × 4 variants; bench/emi.ts runs the full size).
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/gen/policy.js';
import { emiFamily, type EmiFamily } from '../../src/mutate/index.js';
import { compileC, policyForCompilers, runExe } from '../support/cc.js';
import { mapPool } from '../support/pool.js';

describe('EMI variants compiled', () => {
  it('every proven variant prints the base output with gcc and clang at -O0 and -O2', async () => {
    const policy = await policyForCompilers(parsePolicy({}, 'small'), 'gcc', 'clang');
    const jobs: { seed: number; variant: number; source: string; expected: string }[] = [];
    let rejected = 0;
    for (let seed = 1; seed <= 4; seed++) {
      const fam = emiFamily(String(seed), policy, 'csmith', [1, 2, 3, 4]);
      if (!('members' in fam)) continue;
      const f = fam as EmiFamily;
      rejected += f.rejected.length;
      for (const m of f.members)
        jobs.push({ seed, variant: m.variant, source: m.files[0]!.content, expected: f.base.expected });
    }
    expect(jobs.length).toBeGreaterThanOrEqual(12); // 4 programs × 4 variants, less the seeds and variants not proven
    expect(rejected).toBeLessThanOrEqual(jobs.length / 10);
    const configs = [
      ['gcc', '-O0'],
      ['gcc', '-O2'],
      ['clang', '-O0'],
      ['clang', '-O2'],
    ] as const;
    const failures: string[] = [];
    await mapPool(
      jobs.flatMap((j) => configs.map((c) => ({ j, c }))),
      2,
      async ({ j, c }) => {
        const bin = await compileC(j.source, { cc: c[0], flags: [c[1]] });
        try {
          const r = await runExe(bin.exe, [], 20_000);
          if (r.stdout.trimEnd() !== j.expected)
            failures.push(
              `seed ${j.seed} variant ${j.variant} ${c.join(' ')}: ${r.stdout.trim()} (status ${r.status})`,
            );
        } finally {
          bin.cleanup();
        }
      },
    );
    expect(failures).toEqual([]);
  }, 900_000);
});
