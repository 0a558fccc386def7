// LTO configurations: gcc -flto, and clang -flto linked by lld (added by Kiln), on a one-file
// program and on yarpgen mode's separate translation units, which one command compiles and links.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/gen/policy.js';
import { compilerCapabilities, policyFor } from '../../src/harness/capabilities.js';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { testConfiguration } from '../../src/harness/execute.js';
import { buildMatrix } from '../../src/harness/matrix.js';
import { campaignFiles } from '../../src/harness/program.js';
import { TempRoot } from '../../src/harness/tempdir.js';
import { generateProgram } from '../../src/repair/generate.js';
import { requireTool } from '../support/cc.js';

const LIMITS = {
  compile: { timeoutMs: 120_000, memoryMb: undefined },
  run: { timeoutMs: 20_000, memoryMb: undefined },
};
let temp: TempRoot;

beforeAll(() => {
  requireTool('gcc');
  requireTool('clang');
  requireTool('ld.lld-14'); // clang (14) finds it as its own ld.lld
  temp = TempRoot.create();
});

afterAll(() => temp?.dispose());

describe('LTO configurations', () => {
  it('compile and link one-file and split programs that print their expected output', async () => {
    const gcc = await resolveCompiler('gcc');
    const clang = await resolveCompiler('clang');
    const policy = policyFor(
      parsePolicy({}, 'small'),
      [await compilerCapabilities(gcc), await compilerCapabilities(clang)],
      'every',
    );
    const configs = buildMatrix([gcc, clang], ['-O2 -flto']);
    expect(configs.map((c) => c.optionsText)).toEqual(['-O2 -flto', '-O2 -flto -fuse-ld=lld']);
    let split = 0;
    let single = 0;
    for (let seed = 1; (split < 2 || single < 2) && seed < 60; seed++) {
      const mode = seed % 2 ? 'yarpgen' : 'csmith';
      const g = generateProgram(String(seed), policy, mode);
      if (!g.ok) continue;
      const files = campaignFiles(g, policy);
      if (files.length > 1) split++;
      else single++;
      for (const c of configs) {
        const r = await testConfiguration(files, g.expected, c, LIMITS, temp);
        expect(r.judgement.outcome, `${c.compiler.name} seed ${seed} ${mode}: ${r.judgement.detail ?? ''}`).toBe('ok');
        expect(r.compile.command).toContain('-flto');
      }
    }
    expect(split).toBeGreaterThanOrEqual(2);
    expect(single).toBeGreaterThanOrEqual(2);
  });
});
