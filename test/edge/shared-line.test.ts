// kiln check on undefined behaviour that only Eva finds, on a line shared with another statement:
// an alarm is judged for the statements it can be about, so a statement beside it that never ran,
// or whose own alarm a probe dismissed, does not hide it. Each program's twin without the UB
// stays clean (the dismissals still apply beside a defined statement). Eva judges the alarms and
// runs alone, but beside the uninitialised read (which MSan and valgrind watch): there the whole
// chain runs, and valgrind before Eva on the twin (the initialisation probe needs its clean run).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkProgram, probeTools, type ToolAvailability } from '../../src/edge/check.js';
import { runKiln } from '../harness/support/cli.js';
import { EVA_ONLY_CASES } from './support/eva-only.js';

let dir: string;
let avail: ToolAvailability;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-shared-line-test-'));
  avail = await probeTools();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('kiln check on a line holding several statements', () => {
  for (const c of EVA_ONLY_CASES) {
    it(`finds unsequenced UB beside ${c.beside} (${c.name}), by Eva alone; its twin is clean`, async () => {
      // Every tool beside the uninitialised read: the sanitizers and valgrind are silent, so Eva's
      // verdict is the chain's. valgrind before Eva there: the initialisation probe needs its clean run.
      const chain = c.name === 'initialised';
      const r = await checkProgram([write(`${c.name}.c`, c.text)], avail, chain ? {} : { tools: ['eva'] });
      expect(r.verdict, JSON.stringify(r)).toBe('ub');
      if (r.verdict === 'ub') expect(r.report).toMatchObject({ tool: 'eva', kind: 'unsequenced', line: c.line });
      const others = r.runs.filter((x) => x.tool !== 'eva').map((x) => x.status);
      if (chain) expect(others).toEqual(['clean', 'clean', 'clean', 'clean']);
      const twin = await checkProgram([write(`${c.name}-twin.c`, c.twin)], avail, {
        tools: chain ? ['valgrind', 'eva'] : ['eva'],
      });
      expect(twin.verdict, JSON.stringify(twin)).toBe('clean');
    });
  }

  it('exits 1 for the else branch taken beside one never run, as for the same code one statement a line', async () => {
    const c = EVA_ONLY_CASES.find((x) => x.name === 'never-run')!;
    // One run for both programs, a line each: exit 1 is the worst of their verdicts, so neither is
    // incomplete or unchecked, and each line says which found UB.
    const both = await runKiln([
      'check',
      write('never-run-cli.c', c.text),
      write('never-run-apart.c', c.text.replace('x = 1; } else { i', 'x = 1;\n  } else {\n    i')),
      '--tools',
      'eva',
    ]);
    expect(both.status, both.stdout).toBe(1);
    const [shared, apart] = both.stdout.trim().split('\n');
    expect(shared).toMatch(/ub: eva unsequenced at never-run-cli\.c:6/);
    expect(apart).toMatch(/never-run-apart\.c: ub: eva unsequenced at never-run-apart\.c:8/);
  });
});
