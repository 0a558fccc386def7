// UB on purpose: every kind is injected at an executed site, proven by the interpreter (its first
// report is the new site, of that kind), reproducible byte for byte, and found by `kiln check` at
// the line (and, for sanitizer reports, the column) that `kiln gen --ub` names, by the tool of
// kiln check's chain that covers the kind.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkProgram, probeTools, type ToolAvailability } from '../../src/edge/check.js';
import { generateUBProgram, INJECT_KINDS, type InjectKind } from '../../src/edge/inject.js';
import type { CheckTool } from '../../src/edge/reports.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { interpret } from '../../src/interp/interpret.js';
import { runKiln } from '../harness/support/cli.js';
import { plainC } from '../support/cc.js';

// Built by gcc and clang, and checked by Eva (unsequenced): C all three parse.
const policy = plainC(parsePolicy({}, 'small'));
let dir: string;
let avail: ToolAvailability;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-inject-'));
  avail = await probeTools();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The tool of kiln check's chain (ASan, MSan, UBSan, valgrind, Eva) that reports each kind: the
 * check runs it alone. ASan stops a division by zero (SIGFPE) and a null dereference (SEGV)
 * before UBSan runs; unsequenced accesses are Eva's alone.
 */
const TOOL: Record<InjectKind, CheckTool> = {
  'signed-overflow': 'ubsan',
  shift: 'ubsan',
  'division-by-zero': 'asan',
  'out-of-bounds': 'asan',
  'null-dereference': 'asan',
  dangling: 'asan',
  'uninitialised-read': 'msan',
  unsequenced: 'eva',
};

/**
 * Seeds checked per kind: two, which draw different variants (read or write, \`/\` or \`%\`, a local
 * or a global array…), but one where seeds 1 and 2 draw the same variant: \`-\` on \`int\` (and
 * \`int32_t\`), an \`int\` read in a condition, \`+\` on \`int64_t\`.
 */
const SEEDS: Record<InjectKind, number> = {
  'signed-overflow': 1,
  shift: 2,
  'division-by-zero': 2,
  'out-of-bounds': 2,
  'null-dereference': 2,
  dangling: 2,
  'uninitialised-read': 1,
  unsequenced: 1,
};

describe('kiln gen --ub', () => {
  for (const kind of INJECT_KINDS) {
    it(`injects ${kind}, proven by the interpreter and found by kiln check at the named line`, async () => {
      let done = 0;
      for (let seed = 1n; done < SEEDS[kind] && seed < 40n; seed++) {
        const r = generateUBProgram(seed, policy, kind);
        if (!r.ok) continue;
        const run = interpret(r.injection.program);
        expect(run.ok).toBe(false);
        if (run.ok) return;
        expect(run.ub.node).toBe(r.injection.site);
        expect(run.ub.kind).toBe(r.injection.interpKind);
        // Same seed and kind, same program (asked of the first seed).
        if (done === 0) {
          const again = generateUBProgram(seed, policy, kind);
          expect(again.ok && again.text === r.text).toBe(true);
        }
        const file = join(dir, `${kind}-${seed}.c`);
        writeFileSync(file, r.text);
        const c = await checkProgram([file], avail, { tools: [TOOL[kind]] });
        // Eva, the only tool for unsequenced accesses, stops a path at its false alarm on an
        // element and its sub-array (src/edge/reports.ts); kiln check says so, and such a seed
        // cannot show the injected site.
        if (
          c.verdict === 'clean' &&
          c.runs.some((x) => x.tool === 'eva' && /not checked after line/.test(x.detail ?? ''))
        )
          continue;
        expect(c.verdict, `seed ${seed}: ${JSON.stringify(c)}`).toBe('ub');
        if (c.verdict !== 'ub') return;
        expect(c.report.kind).toBe(kind);
        expect(c.report.tool).toBe(TOOL[kind]);
        expect(c.report.line).toBe(r.location.line);
        if (c.report.tool !== 'eva' && c.report.tool !== 'valgrind') expect(c.report.column).toBe(r.location.column);
        done++;
      }
      expect(done).toBe(SEEDS[kind]);
    });
  }

  it('writes the program with --json naming the site, and refuses unknown kinds with a one-line error', async () => {
    const out = join(dir, 'cli.c');
    const r = await runKiln(['gen', '--seed', '3', '--size', 'small', '--ub', 'division-by-zero', '--json', '-o', out]);
    expect(r.status).toBe(0);
    const row = JSON.parse(r.stdout) as { ub: { kind: string; file: string; line: number; column: number } };
    expect(row.ub).toMatchObject({ kind: 'division-by-zero', file: 'cli.c' });
    const text = readFileSync(out, 'utf8');
    expect(text.split('\n')[0]).toBe(
      `/* kiln: undefined behaviour "division-by-zero" at line ${row.ub.line}, column ${row.ub.column} */`,
    );
    expect(text.split('\n')[row.ub.line - 1]!.slice(row.ub.column - 1)).toMatch(/^[/%] /);
    const bad = await runKiln(['gen', '--ub', 'stack-smash']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^kiln: error\[KILN_BAD_OPTION\]: invalid value 'stack-smash' for --ub/);
  });
});
