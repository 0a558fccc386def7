// End to end: reduce a C file Kiln did not write (hand-made ring.c) against a fault-injected
// compiler that "crashes" when the source has both a `^=` and a do-while loop.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../../../src/harness/process.js';
import { CParser } from '../../../src/reduce/text/parser.js';
import { reduceFile } from '../../../src/reduce/text/reduce-file.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-e2e-test-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('kiln reduce FILE.c --crash (end to end)', () => {
  it('shrinks a hand-written program to the two constructs that crash the compiler', async () => {
    const original = readFileSync(join(fixtures, 'ring.c'), 'utf8');
    const input = join(dir, 'ring.c');
    writeFileSync(input, original);
    const { result, output, script } = await reduceFile({
      input,
      crash: `${join(fixtures, 'fake-ice-cc.sh')} -O2`,
      jobs: 2,
      timeoutMs: 30_000,
    });
    const reduced = readFileSync(output, 'utf8');

    expect(output).toBe(join(dir, 'ring.reduced.c'));
    expect(readFileSync(input, 'utf8')).toBe(original);
    expect(reduced).toBe(result.text);
    // Much smaller: the original is 1175 bytes; what must stay is a `^=` and a do-while.
    expect(result.bytes).toBeLessThan(original.length / 8);
    expect(reduced).toMatch(/\^=/);
    expect(reduced).toMatch(/\bdo\b/);
    expect(new CParser().errorCount(reduced)).toBe(0);
    // Still interesting, by the script saved next to the output for creduce/cvise.
    expect(script).toBe(`${output}.test.sh`);
    const check = mkdtempSync(join(dir, 'check-'));
    writeFileSync(join(check, 'ring.c'), reduced);
    expect((await runProcess(script, [], { cwd: check, timeoutMs: 30_000 })).status).toBe(0);
  });
});
