// The interpreter's UB verdicts, checked against the sanitizers in both directions: programs it
// calls UB (with a kind UBSan covers) make UBSan report, of the same kind; programs it calls
// UB-free make ASan, MSan and UBSan silent. The programs come from the independent random
// generator of test/support (not from src/gen), so the interpreter is not judged on the
// generator's own habits. The interpreter's differential test drops its UB verdicts unchecked.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UBKind as InterpKind } from '../../src/c/ub.js';
import { checkProgram, probeTools, type ToolAvailability } from '../../src/edge/check.js';
import type { UBKind } from '../../src/edge/reports.js';
import { emitC } from '../../src/emit/c.js';
import { interpret } from '../../src/interp/interpret.js';
import type { Program } from '../../src/ir/nodes.js';
import { mapPool } from '../support/pool.js';
import { randomProgram } from '../support/randprog.js';

const UB_PROGRAMS = 14;
const CLEAN_PROGRAMS = 6;
/** UB programs of each interpreter kind at most, so the rarer kinds are among them. */
const PER_KIND = 3;
const BASE_SEED = Number(process.env.KILN_TEST_SEED ?? 20261127);

/** The interpreter's arithmetic kinds, as UBSan names them (the ones it covers at run time). */
const UBSAN_KIND: Partial<Record<InterpKind, UBKind>> = {
  'signed-overflow': 'signed-overflow',
  'division-overflow': 'signed-overflow',
  'remainder-overflow': 'signed-overflow',
  'division-by-zero': 'division-by-zero',
  'shift-count-negative': 'shift',
  'shift-count-too-large': 'shift',
  'shift-negative-value': 'shift',
  'shift-overflow': 'shift',
};

let dir: string;
let avail: ToolAvailability;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-verdicts-'));
  avail = await probeTools();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the interpreter's UB verdicts against the sanitizers", () => {
  it(`UBSan reports the kind the interpreter names on ${UB_PROGRAMS} programs, ` +
    `and ASan+MSan+UBSan are silent on ${CLEAN_PROGRAMS} it calls clean`, async () => {
    expect(avail.tools.get('ubsan'), 'UBSan unavailable').toBeNull();
    const seeds = fc.sample(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { seed: BASE_SEED, numRuns: 4000 });
    const ub: { seed: number; program: Program; kind: UBKind; interp: InterpKind }[] = [];
    const clean: { seed: number; program: Program }[] = [];
    // Distinct seeds: the sample repeats small ones.
    for (const seed of new Set(seeds)) {
      if (ub.length >= UB_PROGRAMS && clean.length >= CLEAN_PROGRAMS) break;
      const program = randomProgram(seed);
      const r = interpret(program);
      if (r.ok) {
        if (clean.length < CLEAN_PROGRAMS) clean.push({ seed, program });
      } else {
        const kind = UBSAN_KIND[r.ub.kind];
        const interp = r.ub.kind;
        if (kind !== undefined && ub.length < UB_PROGRAMS && ub.filter((x) => x.interp === interp).length < PER_KIND)
          ub.push({ seed, program, kind, interp });
      }
    }
    expect(ub).toHaveLength(UB_PROGRAMS);
    expect(clean).toHaveLength(CLEAN_PROGRAMS);

    const missed: string[] = [];
    const otherKind: string[] = [];
    await mapPool(ub, 2, async (x) => {
      const file = join(dir, `ub-${x.seed}.c`);
      writeFileSync(file, emitC(x.program));
      const c = await checkProgram([file], avail, { tools: ['ubsan'] });
      if (c.verdict !== 'ub')
        missed.push(`seed ${x.seed}: interpreter ${x.interp}, UBSan ${c.verdict === 'error' ? c.message : 'clean'}`);
      else if (c.report.kind !== x.kind)
        otherKind.push(`seed ${x.seed}: interpreter ${x.interp}, UBSan ${c.report.kind} (${c.report.message})`);
    });
    const alarms: string[] = [];
    await mapPool(clean, 2, async (x) => {
      const file = join(dir, `clean-${x.seed}.c`);
      writeFileSync(file, emitC(x.program));
      const c = await checkProgram([file], avail, { tools: ['asan', 'msan', 'ubsan'] });
      if (c.verdict !== 'clean')
        alarms.push(
          `seed ${x.seed}: ${c.verdict === 'ub' ? `${c.report.tool} ${c.report.kind} ${c.report.message}` : c.message}`,
        );
    });
    console.log(
      `verdicts: ${UB_PROGRAMS} UB programs (${missed.length} missed, ${otherKind.length} reported as ` +
        `another kind), ${CLEAN_PROGRAMS} clean (${alarms.length} alarms)`,
    );
    // Every UB verdict is confirmed, and clean ones stay clean: either way a disagreement is a bug
    // in the interpreter (or, rarely, in a sanitizer), to be looked at, never averaged away.
    expect(missed).toEqual([]);
    expect(alarms).toEqual([]);
    // Two UBs in one full expression may be evaluated in another order by the compiler, so the
    // first reported kind can differ; the interpreter's own kind must still be the usual case.
    expect(otherKind.length, otherKind.join('\n')).toBeLessThanOrEqual(UB_PROGRAMS / 10);
  }, 600_000);
});
