// Live-guided generation (generate, execute, extend): the profile steers what is added, so more
// of the program runs, more functions are entered, and loops in live code iterate; each
// mechanism is a policy switch.
import { beforeAll, describe, expect, it } from 'vitest';
import { IRBuilder } from '../../src/ir/build.js';
import { C } from '../../src/c/types.js';
import { parsePolicy, type PolicyInput } from '../../src/gen/policy.js';
import { interpret } from '../../src/interp/interpret.js';
import { liveStats, type LiveStats } from '../../src/interp/live.js';
import { generateProgram, type Generated } from '../../src/repair/generate.js';
import { emitC } from '../../src/emit/c.js';
import { walk } from '../../src/ir/visit.js';
import { generateRawContext } from '../../src/gen/program.js';
import type { Node } from '../../src/ir/nodes.js';

const SEEDS = [11, 12, 13, 14, 15, 16, 17, 18];

function sample(over: PolicyInput): { runs: Generated[]; stats: LiveStats[] } {
  const policy = parsePolicy(over);
  const runs = SEEDS.map((s) => generateProgram(s, policy)).filter((r): r is Generated => r.ok);
  return { runs, stats: runs.map((r) => liveStats(r.program, r.profile)) };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('liveStats', () => {
  it('counts statements of the test code and those that ran, and ifs whose sides both ran', () => {
    const b = new IRBuilder();
    const x = b.global('x', C.int32, b.lit(0));
    const i = b.local('i', C.int32);
    // for (i = 0; i < 4; i++) { if (i & 1) { x += 1; } else { x += 2; } }  and a dead if
    const loop = b.for(
      b.assign(b.v(i), b.lit(0)),
      b.bin('<', b.v(i), b.lit(4)),
      b.incdec('++', b.v(i), false),
      b.block([
        b.if(
          b.bin('&', b.v(i), b.lit(1)),
          b.block([b.stmt(b.assign(b.v(x), b.lit(1), '+='))]),
          b.block([b.stmt(b.assign(b.v(x), b.lit(2), '+='))]),
        ),
      ]),
    );
    const dead = b.if(b.lit(0), b.block([b.stmt(b.assign(b.v(x), b.lit(3)))]));
    const f = b.func('func_1', C.int32, [], b.block([loop, dead, b.ret(b.lit(0))], [i]));
    const main = b.func('main', C.int, [], b.block([b.stmt(b.call(f, []))]), undefined, false);
    const p = b.program({ globals: [x], funcs: [f, main], main });
    const r = interpret(p);
    expect(r.ok).toBe(true);
    const s = liveStats(p, r.profile);
    // for, if, two assignments, the dead if and its assignment, return (main's statements are not test code)
    expect(s.statements).toBe(7);
    expect(s.liveStatements).toBe(6);
    expect(s.functions).toBe(1);
    expect(s.liveFunctions).toBe(1);
    expect(s.repeatedIfs).toBe(1);
    expect(s.balancedIfs).toBe(1);
  });
});

/** Kinds of the statements that hold expressions. */
const STMT_KINDS: ReadonlySet<string> = new Set(['expr', 'if', 'for', 'switch', 'return', 'igoto']);

describe('live-guided generation', () => {
  let on: ReturnType<typeof sample>;
  let off: ReturnType<typeof sample>;
  beforeAll(() => {
    on = sample({});
    off = sample({ live: { extend: 0 } });
  }, 600_000);

  it('runs more of the program than plain generate-execute-repair', () => {
    expect(on.runs.length).toBeGreaterThanOrEqual(6);
    const share = (xs: readonly LiveStats[]) => median(xs.map((s) => s.liveStatements / s.statements));
    expect(share(on.stats)).toBeGreaterThan(2 * share(off.stats));
    expect(median(on.stats.map((s) => s.liveFunctions / s.functions))).toBeGreaterThan(
      median(off.stats.map((s) => s.liveFunctions / s.functions)),
    );
    expect(median(on.runs.map((r) => r.profile.steps))).toBeGreaterThan(median(off.runs.map((r) => r.profile.steps)));
  });

  it('keeps every program within the step budget, and extended rounds clean', () => {
    const policy = parsePolicy({});
    for (const r of on.runs) {
      expect(r.profile.steps).toBeLessThanOrEqual(policy.repair.maxSteps);
      expect(r.live).toBeDefined();
      // The kept program runs clean again from scratch, to the expected output.
      const again = interpret(r.program);
      expect(again.ok).toBe(true);
      if (again.ok) expect(again.output.trimEnd()).toBe(r.expected);
    }
  });

  it('gives some loops in live code long trip counts (8 to 256 iterations per entry)', () => {
    let long = 0;
    for (const r of on.runs) {
      for (const [id, iters] of r.profile.loopIters) {
        const entries = r.profile.stmtCounts.get(id) ?? 1;
        if (iters / entries >= 17) long++; // beyond the raw generator's trip counts (limits.maxLoopTrip 16)
      }
    }
    expect(long).toBeGreaterThan(0);
  });

  it('never declares register a local whose address is taken', () => {
    for (const r of on.runs) {
      const register = new Set<number>();
      const addressed = new Set<number>();
      for (const f of r.program.funcs)
        walk(f, (n) => {
          if (n.kind === 'var-decl' && n.isRegister) register.add(n.id);
          if (n.kind === 'addr') {
            let t = n.target;
            while (t.kind === 'field' || t.kind === 'index') t = t.base;
            if (t.kind === 'var') addressed.add(t.decl);
          }
        });
      for (const d of register) expect(addressed.has(d)).toBe(false);
    }
  });

  it('reads no union member in code added where the program runs (the member last stored there is not known)', () => {
    const policy = parsePolicy({});
    let rawReads = 0;
    let addedWrites = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const r = generateProgram(seed, policy);
      if (!r.ok) continue;
      // Ids only grow: nodes from the raw program's next id on were added by repairs and extension rounds.
      const first = generateRawContext(seed, policy).program.nextId;
      for (const f of r.program.funcs) {
        if (f.id === r.program.main) continue; // main's checksum statements may be switched to the active member
        const parents = new Map<Node, Node | undefined>();
        walk(f, (n, parent) => {
          parents.set(n, parent);
          if (n.kind !== 'field' || n.base.type.kind !== 'union') return;
          // A union punning a vector with the array of its lanes may be read through either member
          // (both cover every byte): src/gen/gnu-vector.ts's punUnion.
          if (n.base.type.fields.some((f) => f.type.kind === 'vector')) return;
          // The top of the access path (`u.f0.x`, `a[i].f1`): written when it is a plain assignment's target.
          let top: Node = n;
          while (parents.get(top)?.kind === 'field' || parents.get(top)?.kind === 'index') top = parents.get(top)!;
          const up = parents.get(top);
          const written = up?.kind === 'assign' && up.op === '=' && up.target === top;
          // A repair that rewrites a raw statement (`x op= e` to `x = safe(x, e)`) copies the reads it
          // had: new nodes, but no new read of a member (the interpreter checked the raw one).
          let stmt: Node | undefined = parents.get(n);
          while (stmt && !STMT_KINDS.has(stmt.kind)) stmt = parents.get(stmt);
          if (n.id < first || (stmt && stmt.id < first)) rawReads += written ? 0 : 1;
          else if (written) addedWrites++;
          else expect.fail(`seed ${seed}: added code reads union member ${n.field} (node ${n.id})`);
        });
      }
    }
    // Not vacuous: the raw programs read union members, and added code writes them.
    expect(rawReads).toBeGreaterThan(0);
    expect(addedWrites).toBeGreaterThan(0);
  });

  it('is switched off by live.extend: 0 (programs of plain generate-execute-repair)', () => {
    for (const r of off.runs) expect(r.live).toBeUndefined();
    // The same seed with extension on starts from the same raw generator but gives another program.
    expect(emitC(on.runs[0]!.program)).not.toBe(emitC(off.runs[0]!.program));
  });
});

describe('live-guided mechanisms as switches', () => {
  it('longLoops: 0 keeps loops in live code at the raw trip counts', () => {
    // Without the entry regions: their counted back edges enter loops in the middle again and again,
    // so a loop there runs more iterations than its header's entries count.
    // Without vectors too: the array of lanes a punning union holds (up to 64) is longer than
    // limits.maxArrayLen, and array loops span it.
    const policy = parsePolicy({
      live: { longLoops: 0 },
      choices: { entryRegion: 0, functionRegion: 0 },
      features: { vectors: false },
    });
    for (const s of SEEDS.slice(0, 4)) {
      const r = generateProgram(s, policy);
      if (!r.ok) continue;
      for (const [id, iters] of r.profile.loopIters) {
        const entries = r.profile.stmtCounts.get(id) ?? 1;
        // Array loops span at most limits.maxArrayLen (10); other loops limits.maxLoopTrip (16), plus the repair's
        // slack.
        expect(iters / entries).toBeLessThanOrEqual(17);
      }
    }
  }, 600_000);
});
