// Arbitrary control flow (src/gen/cfg.ts): goto regions, switch mazes and induction-variable loops
// appear, are legal C that gcc and clang accept without jump or label warnings under -Wall, keep
// every executed path finite without the termination repairs, and print their expected output.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitC } from '../../src/emit/c.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { generateRaw } from '../../src/gen/program.js';
import { executedJumps, functionFlow, programFlow } from '../../src/ir/flow.js';
import type { Program } from '../../src/ir/nodes.js';
import { switchCases, walk, walkProgram } from '../../src/ir/visit.js';
import { unqualified } from '../../src/ir/types.js';
import { intMax, intMin } from '../../src/c/types.js';
import { structuralError } from '../../src/ir/validate.js';
import { generateProgram } from '../../src/repair/generate.js';
import { batchSource } from '../support/batch.js';
import { compileAndRun, requireTool, policyForCompilers } from '../support/cc.js';

// The new shapes at a high weight, so a few programs hold many of each.
// Built by gcc and clang: what both accept (no `_BitInt` for gcc 12).
const HEAVY = await policyForCompilers(
  parsePolicy({ statements: { region: 30, switchMaze: 15, ivLoop: 20 } }),
  'gcc',
  'clang',
);
const OFF = await policyForCompilers(parsePolicy({ features: { cfg: false } }), 'gcc', 'clang');

/** Case labels that are not direct statements of their switch's body (in nested blocks, ifs, loops). */
function nestedCases(p: Program): number {
  let n = 0;
  for (const f of p.funcs)
    walk(f, (x) => {
      if (x.kind === 'switch') {
        const direct = new Set(x.body.stmts.map((s) => s.id));
        n += switchCases(x.body).filter((c) => !direct.has(c.id)).length;
      }
    });
  return n;
}

/** Six repaired programs heavy with the shapes (generated once, for the four compile tests). */
let heavy: { programs: Program[]; expected: string[] } | undefined;
function heavyPrograms(): { programs: Program[]; expected: string[] } {
  if (heavy) return heavy;
  const programs: Program[] = [];
  const expected: string[] = [];
  for (let seed = 20; programs.length < 6 && seed < 40; seed++) {
    const r = generateProgram(seed, HEAVY);
    if (!r.ok) continue;
    programs.push(r.program);
    expected.push(r.expected.trimEnd());
  }
  heavy = { programs, expected };
  return heavy;
}

describe('arbitrary control flow', () => {
  it('draws irreducible loops, gotos into loops and nested case labels, all structurally valid', () => {
    let irreducible = 0;
    let intoLoops = 0;
    let nested = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const p = generateRaw(seed, HEAVY);
      expect(structuralError(p), `seed ${seed}`).toBeUndefined();
      const flow = programFlow(p);
      irreducible += flow.irreducibleLoops;
      intoLoops += flow.gotoIntoLoops;
      nested += nestedCases(p);
    }
    expect(irreducible).toBeGreaterThan(10);
    expect(intoLoops).toBeGreaterThan(10);
    expect(nested).toBeGreaterThan(10);
  });

  // The entry region (src/gen/cfg.ts): its fixed edges and layout, whatever its blocks draw.
  it('opens func_1 with a region whose loops nest six deep, one of them entered in the middle', () => {
    // Swarm testing off: it switches gotos or the shapes off in some programs.
    const policy = parsePolicy({ choices: { entryRegion: 1, functionRegion: 0 }, policies: { swarm: 0 } });
    for (let seed = 1; seed <= 8; seed++) {
      const p = generateRaw(seed, policy);
      expect(structuralError(p), `seed ${seed}`).toBeUndefined();
      const func1 = p.funcs.find((f) => f.name === 'func_1')!;
      const flow = functionFlow(func1);
      expect(flow.irreducibleLoops, `seed ${seed}`).toBeGreaterThanOrEqual(1);
      expect(flow.gotoIntoLoops, `seed ${seed}`).toBeGreaterThanOrEqual(1);
      expect(flow.maxLoopNesting, `seed ${seed}`).toBeGreaterThanOrEqual(6);
      expect(flow.indirectGotos, `seed ${seed}`).toBeGreaterThanOrEqual(1);
    }
  });

  it("runs the entry regions' computed gotos, and ends them without termination repairs", () => {
    const policy = parsePolicy({
      choices: { entryRegion: 1, functionRegion: 1 },
      policies: { swarm: 0 },
      statements: { for: 0, arrayLoop: 0, goto: 0 },
      live: { extend: 0 },
      repair: { maxSteps: 2_000_000 },
    });
    let indirect = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const r = generateProgram(seed, policy);
      if (!r.ok) continue;
      for (const rule of ['remove-hot-goto', 'remove-hot-loop', 'shrink-loop-trip-count'])
        expect(r.stats.byRule[rule] ?? 0, `seed ${seed}: ${rule}`).toBe(0);
      indirect += executedJumps(r.program, r.profile.stmtCounts).executedIndirectGotos;
    }
    expect(indirect).toBeGreaterThan(3);
  });

  it('feature off: none of the new shapes', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const p = generateRaw(seed, OFF);
      expect(programFlow(p).irreducibleLoops, `seed ${seed}`).toBe(0);
      expect(nestedCases(p), `seed ${seed}`).toBe(0);
    }
  });

  // A label is converted to the controlling type: 9 and 1 are one label for a `_BitInt(2)` (seed
  // 688 at the defaults drew such a control and was a program no compiler accepts).
  it('gives every switch a controlling type that holds each of its case labels', () => {
    const policy = parsePolicy({
      statements: { region: 30, switchMaze: 15 },
      choices: { bitIntPrograms: 1, bitIntShare: 0.6 },
    });
    let labels = 0;
    for (let seed = 1; seed <= 16; seed++) {
      walkProgram(generateRaw(seed, policy), (n) => {
        if (n.kind !== 'switch') return;
        const t = unqualified(n.cond.type);
        // Other types are promoted to int, which holds every label (Csmith's switches draw labels
        // over int's range: those beyond a char's never match, and gcc's -Wswitch-outside-range says so).
        if (t.kind !== 'int' || !t.bitPrecise) return;
        walk(n.body, (c) => {
          if (c.kind === 'case' && c.value !== undefined && ++labels)
            expect(c.value >= intMin(t) && c.value <= intMax(t), `seed ${seed}: case ${c.value} for ${t.name}`).toBe(
              true,
            );
          return c.kind !== 'switch';
        });
      });
    }
    expect(labels).toBeGreaterThan(10);
  });

  it('is the same program for the same seed', () => {
    expect(emitC(generateRaw(7, HEAVY))).toBe(emitC(generateRaw(7, HEAVY)));
  });

  // Termination by construction: the counted back edges and the induction-variable bounds end
  // every path, so the repairs of runs that never end (which remove loops and gotos) are not
  // needed for the new shapes. Extension is off: it adds loops of its own.
  it('ends every executed path without termination repairs, and runs gotos and loops', () => {
    // Csmith's loops and gotos off: their bodies may write the counter, and their backward gotos
    // are not counted, so they do need those repairs.
    // The step budget is raised far above what the bounded nests take, so a run over it would be
    // a path that never ends.
    // Without `_BitInt`, for the draws: with it, seed 11 calls functions holding loop nests from
    // loop bodies four calls deep (trips of 4, 25, 19 and 19 per entry), and the product of the
    // bounded trips is over any budget (at 100M steps the innermost loop had run 1.3M times):
    // every loop ends, but the program is too long to run, and the repair shrinks it as it
    // shrinks Csmith's loops.
    const policy = parsePolicy({
      statements: { region: 30, switchMaze: 15, ivLoop: 20, for: 0, arrayLoop: 0, goto: 0 },
      live: { extend: 0 },
      repair: { maxSteps: 2_000_000 },
      features: { bitInt: false },
    });
    let executedGotos = 0;
    let clean = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const r = generateProgram(seed, policy);
      if (!r.ok) continue;
      clean++;
      const rules = r.stats.byRule;
      for (const rule of ['remove-hot-goto', 'remove-hot-loop', 'shrink-loop-trip-count', 'fresh-induction-variable'])
        expect(rules[rule] ?? 0, `seed ${seed}: ${rule}`).toBe(0);
      executedGotos += executedJumps(r.program, r.profile.stmtCounts).executedGotos;
    }
    expect(clean).toBeGreaterThanOrEqual(10);
    expect(executedGotos).toBeGreaterThan(50);
  });

  it.each(['gcc', 'clang'])('%s accepts them without jump, label or switch warnings (-Wall)', (cc) => {
    requireTool(cc);
    const dir = mkdtempSync(join(tmpdir(), 'kiln-cfg-'));
    try {
      const file = join(dir, 'p.c');
      writeFileSync(file, batchSource([1, 2, 3, 4, 5, 6].map((s) => generateRaw(s, HEAVY))));
      const r = spawnSync(cc, ['-std=c11', '-Wall', '-fsyntax-only', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
      expect(r.status, r.stderr.slice(0, 2000)).toBe(0);
      const jumps = r.stderr
        .split('\n')
        // The warnings a jump or a label can draw. (Kiln's older switch statements draw case values
        // from the controlling type's whole range, which gcc's -Wswitch-outside-range reports.)
        .filter((l) => /\[-W(unused-label|switch-unreachable|jump-misses-init|implicit-fallthrough)\]/.test(l));
      expect(jumps.slice(0, 10)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['gcc', '-O0'],
    ['gcc', '-O2'],
    ['clang', '-O1'],
    ['clang', '-O3'],
  ])('%s %s prints the expected output of programs with the new shapes', async (cc, level) => {
    const { programs, expected } = heavyPrograms();
    expect(programs.length).toBe(6);
    const run = await compileAndRun(batchSource(programs), { cc, flags: [level] });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toEqual(expected);
  });
});
