// Several Kiln programs in one translation unit: compiler start-up dominates the cost of
// compiling small programs, so tests batch them (each keeps its own globals and checksum).
import { expect } from 'vitest';
import type { Policy } from '../../src/gen/policy.js';
import type { Program } from '../../src/ir/nodes.js';
import { emitC } from '../../src/emit/c.js';
import { generateProgram } from '../../src/repair/generate.js';
import { compileC, runExe } from './cc.js';

/** One C file running each program in turn; each prints its own `checksum = …` line. */
export function batchSource(programs: readonly Program[]): string {
  const parts = programs.map((p, i) => emitC(p, { prefix: `p${i}_` }));
  const calls = programs.map((_, i) => `    p${i}_main();`).join('\n');
  return `${parts.join('\n')}\nint main(void)\n{\n${calls}\n    return 0;\n}\n`;
}

/** A repaired program of a seed, with its expected output. */
export interface Case {
  readonly seed: number;
  readonly program: Program;
  readonly expected: string;
}

/** The csmith-mode programs of these seeds that generation did not discard. */
export function generate(policy: Policy, seeds: readonly number[]): Case[] {
  return seeds.flatMap((seed) => {
    const r = generateProgram(seed, policy, 'csmith');
    return r.ok ? [{ seed, program: r.program, expected: r.expected }] : [];
  });
}

/** The output lines of the cases compiled as one batch with `cc flags` and run. */
export async function runs(cc: string, flags: readonly string[], cases: readonly Case[]): Promise<string[]> {
  const bin = await compileC(batchSource(cases.map((c) => c.program)), { cc, flags, timeoutMs: 600_000 });
  try {
    const r = await runExe(bin.exe, [], 60_000);
    expect(r.status).toBe(0);
    return r.stdout.trimEnd().split('\n');
  } finally {
    bin.cleanup();
  }
}
