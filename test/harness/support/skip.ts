// A small campaign of gcc-12 and clang-16 at -O0 with each compiler's probed capabilities: the
// tests that check a program goes only to the compilers that accept what it uses.
import type { Policy } from '../../../src/gen/policy.js';
import { compilerCapabilities } from '../../../src/harness/capabilities.js';
import { resolveCompiler } from '../../../src/harness/compilers.js';
import { buildMatrix, type Configuration, type Limits } from '../../../src/harness/matrix.js';
import type { ProgramReport } from '../../../src/harness/runner.js';
import { runCampaign } from '../../../src/harness/scheduler.js';

const LIMITS: Limits = { compile: { timeoutMs: 120_000, memoryMb: 4096 }, run: { timeoutMs: 10_000, memoryMb: 2048 } };

/** Runs `programs` programs (seeds from 1) through gcc-12 and clang-16; their reports and configurations. */
export async function gccClangCampaign(
  policy: Policy,
  programs: number,
): Promise<{ reports: ProgramReport[]; gcc: Configuration; clang: Configuration }> {
  const gcc = await resolveCompiler('gcc-12');
  const clang = await resolveCompiler('clang-16');
  const [g, c] = buildMatrix([gcc, clang], ['-O0']);
  const capabilities = new Map([
    [gcc.name, await compilerCapabilities(gcc)],
    [clang.name, await compilerCapabilities(clang)],
  ]);
  const reports: ProgramReport[] = [];
  const seeds = (function* () {
    for (let s = 1n; ; s++) yield s;
  })();
  await runCampaign(
    {
      configurations: [g!, c!],
      limits: LIMITS,
      policy,
      mode: 'csmith',
      jobs: 2,
      seeds,
      maxPrograms: programs,
      capabilities,
    },
    { onProgram: (r) => void reports.push(r) },
  );
  return { reports, gcc: g!, clang: c! };
}
