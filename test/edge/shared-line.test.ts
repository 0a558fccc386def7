// kiln check on undefined behaviour that only Eva finds, on a line shared with another statement:
// an alarm is judged for the statements it can be about, so a statement beside it that never ran,
// or whose own alarm a probe dismissed, does not hide it. Each program's twin without the UB
// stays clean (the dismissals still apply beside a defined statement).
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
      // Every tool: the sanitizers and valgrind are silent, so Eva's verdict is the chain's.
      const r = await checkProgram([write(`${c.name}.c`, c.text)], avail);
      expect(r.verdict, JSON.stringify(r)).toBe('ub');
      if (r.verdict === 'ub') expect(r.report).toMatchObject({ tool: 'eva', kind: 'unsequenced', line: c.line });
      expect(r.runs.filter((x) => x.tool !== 'eva').map((x) => x.status)).toEqual(['clean', 'clean', 'clean', 'clean']);
      // valgrind first: the initialisation probe needs its clean run.
      const twin = await checkProgram([write(`${c.name}-twin.c`, c.twin)], avail, { tools: ['valgrind', 'eva'] });
      expect(twin.verdict, JSON.stringify(twin)).toBe('clean');
    });
  }

  it('exits 1 for the else branch taken beside one never run, as for the same code one statement a line', async () => {
    const c = EVA_ONLY_CASES.find((x) => x.name === 'never-run')!;
    const shared = await runKiln(['check', write('never-run-cli.c', c.text), '--tools', 'eva']);
    expect(shared.status, shared.stdout).toBe(1);
    expect(shared.stdout).toMatch(/ub: eva unsequenced at never-run-cli\.c:6/);
    const apart = await runKiln([
      'check',
      write('never-run-apart.c', c.text.replace('x = 1; } else { i', 'x = 1;\n  } else {\n    i')),
      '--tools',
      'eva',
    ]);
    expect(apart.status, apart.stdout).toBe(1);
  });
});
