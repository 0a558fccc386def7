// Sanitizer reports Kiln attributes to the sanitizer without blaming the program. A UBSan
// arithmetic report is refuted when the operands it prints make a defined operation (the refuted
// forms are GCC's own messages: its `_BitInt` shift-count check, GCC 14 to trunk); a true report,
// from a real gcc UBSan run of real undefined behaviour, must never be refuted. And MSan is not
// run where it is known to be blind (`_BitInt(65-127)` across a function boundary).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refutedByOperands } from '../../src/edge/refute.js';
import { parseUbsan } from '../../src/edge/reports.js';
import { msanBlindSpot, type SanitizedRun } from '../../src/edge/sanitize.js';
import { bitInt, C } from '../../src/c/types.js';
import { IRBuilder } from '../../src/ir/build.js';
import { judgeUBFree } from '../../src/edge/sanjudge.js';
import type { Configuration } from '../../src/harness/matrix.js';
import { requireTool } from '../support/cc.js';

describe('refutedByOperands', () => {
  it('refutes reports whose operands make a defined operation', () => {
    // GCC 14 to trunk, a `_BitInt(2)` shift count (docs/bugs-found.md).
    expect(refutedByOperands("left shift of 8 by 0 places cannot be represented in type 'int'")).toBe(
      '8 << 0 is 8, which int holds',
    );
    expect(refutedByOperands("UBSan: left shift of 11 by 2 places cannot be represented in type 'int'")).toMatch(
      /is 44/,
    );
    expect(refutedByOperands("signed integer overflow: 3 + 4 cannot be represented in type 'int'")).toMatch(/is 7/);
    expect(refutedByOperands("signed integer overflow: -5 * 7 cannot be represented in type 'long int'")).toMatch(
      /is -35/,
    );
    expect(refutedByOperands("shift exponent 3 is too large for 32-bit type 'int'")).toMatch(/less than the 32/);
    expect(refutedByOperands("negation of -7 cannot be represented in type '_BitInt(5)'")).toMatch(/is 7/);
    expect(refutedByOperands("division of 9 by -1 cannot be represented in type 'long long int'")).toMatch(/is -9/);
    expect(refutedByOperands("left shift of 1 by 100 places cannot be represented in type '__int128'")).toMatch(
      /2\^100|1267650600228229401496703205376/,
    );
  });

  it('keeps every report whose operands do overflow, and every form it cannot redo', () => {
    for (const m of [
      "signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'",
      "signed integer overflow: -9223372036854775808 - 1 cannot be represented in type 'long int'",
      "left shift of 1 by 31 places cannot be represented in type 'int'",
      "left shift of 3 by 1 places cannot be represented in type '_BitInt(3)'",
      "shift exponent 32 is too large for 32-bit type 'int'",
      "negation of -2147483648 cannot be represented in type 'int'; cast to an unsigned type to negate this value",
      "negation of -16 cannot be represented in type '_BitInt(5)'",
      "division of -128 by -1 cannot be represented in type '_BitInt(8)'",
      'left shift of negative value -1',
      'division by zero',
      "load of value 7, which is not a valid value for type '_Bool'",
      // Types Kiln does not parse, and operands outside the reported type, prove nothing.
      "signed integer overflow: 1 + 1 cannot be represented in type 'vector(4) int'",
      "signed integer overflow: 4294967296 + 1 cannot be represented in type 'int'",
    ])
      expect(refutedByOperands(m), m).toBeUndefined();
  });
});

describe('real UBSan reports of real undefined behaviour (gcc -fsanitize=undefined)', () => {
  const work = mkdtempSync(join(tmpdir(), 'kiln-refute-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const cases = {
    add: 'volatile int a = 2147483647, b = 1; int main(void) { return (a + b) & 1; }',
    shl: 'volatile int a = 3, n = 31; int main(void) { return (a << n) & 1; }',
    exponent: 'volatile int a = 3, n = 40; int main(void) { return (a << n) & 1; }',
    neg: 'volatile long a = -9223372036854775807L - 1; int main(void) { return (-a) & 1; }',
  };
  for (const [name, text] of Object.entries(cases))
    it(`does not refute ${name}`, () => {
      requireTool('gcc');
      const src = join(work, `${name}.c`);
      writeFileSync(src, `${text}\n`);
      const exe = join(work, name);
      const cc = spawnSync('gcc', ['-O0', '-fsanitize=undefined', src, '-o', exe], { encoding: 'utf8' });
      expect(cc.status, cc.stderr).toBe(0);
      const run = spawnSync(exe, [], { encoding: 'utf8' });
      const report = parseUbsan(run.stderr, [src]);
      expect(report, run.stderr).toBeDefined();
      expect(refutedByOperands(report!.message), report!.message).toBeUndefined();
    });
});

describe('a sanitizer campaign names the refutation in a false alarm', () => {
  const base = { compiler: { name: 'gcc-16' }, optionsText: '-O1' } as unknown as Configuration;
  const run = (message: string): SanitizedRun =>
    ({
      sanitizer: 'ubsan',
      config: base,
      compile: { status: 0, stdout: '', stderr: '', timedOut: false, durationMs: 1 },
      run: { status: 1, stdout: '', stderr: '', timedOut: false, durationMs: 1 },
      report: { tool: 'ubsan', kind: 'shift', line: 7, message: `UBSan: ${message}` },
    }) as unknown as SanitizedRun;
  it('adds the operands’ refutation to a false report, and nothing to a report they do not refute', () => {
    const refuted = judgeUBFree(run("left shift of 8 by 0 places cannot be represented in type 'int'"), base, 'x');
    expect(refuted.outcome).toBe('sanitizer-false-alarm');
    expect(refuted.detail).toContain("the report's own operands refute it: 8 << 0 is 8, which int holds");
    const kept = judgeUBFree(run("left shift of 1 by 31 places cannot be represented in type 'int'"), base, 'x');
    expect(kept.outcome).toBe('sanitizer-false-alarm');
    expect(kept.detail).not.toContain('refute');
  });
});

describe("MSan's blind spot: _BitInt(65-127) across a function boundary (LLVM issue 204217)", () => {
  const program = (width: number, where: 'ret' | 'param' | 'field' | 'local') => {
    const b = new IRBuilder();
    const t = bitInt(width, false);
    const rec = b.struct('S', [{ name: 'f0', type: t }]);
    const paramType = where === 'param' ? t : where === 'field' ? rec : C.int;
    const p = b.param('p', paramType);
    const local = b.local('l', t, b.lit(1n, t));
    const f = b.func(
      'f',
      where === 'ret' ? t : C.int,
      [p],
      b.block([b.ret(b.lit(0n, where === 'ret' ? t : C.int))], where === 'local' ? [local] : []),
    );
    const main = b.func('main', C.int, [], b.block([b.ret(b.lit(0))]), undefined, false);
    return b.program({ records: [rec], globals: [], funcs: [f, main], main });
  };
  it('names a function that takes or returns such a value, or a record holding one', () => {
    expect(msanBlindSpot(program(97, 'ret'))).toMatch(/f takes or returns unsigned _BitInt\(97\).*204217/);
    expect(msanBlindSpot(program(65, 'param'))).toMatch(/_BitInt\(65\)/);
    expect(msanBlindSpot(program(100, 'field'))).toMatch(/_BitInt\(100\)/);
  });
  it('leaves other widths, and such values that stay inside a function, to MSan', () => {
    for (const w of [7, 24, 64, 128, 129, 256]) expect(msanBlindSpot(program(w, 'ret')), String(w)).toBeUndefined();
    expect(msanBlindSpot(program(97, 'local'))).toBeUndefined();
  });
});
