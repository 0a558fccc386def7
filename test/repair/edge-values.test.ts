// Values at the edge (src/repair/edge-values.ts): constants rewritten after the last clean run so
// that executed additions and subtractions land exactly on their type's limits, without crossing
// them (the programs stay UB-free: UBSan with gcc agrees, and so do gcc's and clang's outputs).
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/gen/policy.js';
import { interpret } from '../../src/interp/interpret.js';
import type { Program } from '../../src/ir/nodes.js';
import { operationsAtLimits } from '../../src/repair/edge-values.js';
import { type Generated, generateProgram } from '../../src/repair/generate.js';
import { batchSource } from '../support/batch.js';
import { compileAndRun, policyForCompilers } from '../support/cc.js';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
// Built by gcc and clang: the default policy as both accept it (`__int128`; no `_BitInt` for gcc 12),
// without vectors: gcc 12-16's UBSan folds `a - (b + C)` on vectors into `(a - b) - C` and reports
// the overflow of that form (seed 7: `3842 - -32768` in a lane computed as 3842 - -28800), a false
// alarm gcc-snapshot no longer raises.
const noVectors = { features: { vectors: false } };
const ON = await policyForCompilers(parsePolicy(noVectors), 'gcc', 'clang');
const OFF = await policyForCompilers(parsePolicy({ ...noVectors, repair: { edgeValues: 0 } }), 'gcc', 'clang');

function atLimits(p: Program): number {
  const r = interpret(p, { profileNodes: true });
  expect(r.ok).toBe(true);
  return operationsAtLimits(p, r.profile.nodeValues!);
}

describe('values at the edge', () => {
  const on = SEEDS.map((s) => generateProgram(s, ON)).filter((r): r is Generated => r.ok);
  const off = SEEDS.map((s) => generateProgram(s, OFF)).filter((r): r is Generated => r.ok);

  it('rewrites constants so that more executed operations land on a limit, and the run stays clean', () => {
    expect(on.length).toBe(SEEDS.length);
    const rewritten = on.reduce((n, r) => n + (r.edgeValues ?? 0), 0);
    expect(rewritten).toBeGreaterThanOrEqual(SEEDS.length);
    const sum = (rs: readonly Generated[]) => rs.reduce((n, r) => n + atLimits(r.program), 0);
    expect(sum(on)).toBeGreaterThan(sum(off) + SEEDS.length / 2);
    for (const r of on) {
      // The expected output is the rewritten program's own, from a fresh exact run.
      const again = interpret(r.program);
      expect(again.ok).toBe(true);
      if (again.ok) expect(again.output.trimEnd()).toBe(r.expected);
    }
  });

  it('is the same program for the same seed', () => {
    const again = generateProgram(SEEDS[0]!, ON);
    expect(again.ok && again.expected).toBe(on[0]!.expected);
  });

  it.each([
    ['gcc', ['-O0', '-fsanitize=undefined', '-fno-sanitize-recover=all']],
    ['gcc', ['-O2']],
    ['clang', ['-O2']],
  ])('%s %s prints the expected lines (no overflow at the limits)', async (cc, flags) => {
    const run = await compileAndRun(batchSource(on.map((r) => r.program)), { cc, flags });
    expect(run.status, run.stderr.slice(0, 2000)).toBe(0);
    expect(run.stderr).not.toMatch(/runtime error/);
    expect(run.stdout.trimEnd().split('\n')).toEqual(on.map((r) => r.expected));
  });
});
