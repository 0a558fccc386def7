// `kiln reduce` on the command line: dispatch between findings and C files, one-line coded errors.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kilnArgs } from '../../harness/support/cli.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-cli-reduce-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function kiln(...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [...kilnArgs(), ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr };
}

function expectCodedError(r: { status: number | null; stderr: string }, code: string): void {
  expect(r.status).toBe(2);
  expect(r.stderr).toContain(`kiln: error[${code}]`);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('kiln reduce (CLI)', () => {
  it('a directory without finding.json is not a finding', () => {
    mkdirSync(join(dir, 'empty'));
    expectCodedError(kiln('reduce', 'empty'), 'KILN_NOT_A_FINDING');
  });

  it('a finding directory goes to the IR reducer, which names what is wrong with a damaged manifest', () => {
    mkdirSync(join(dir, 'finding'));
    writeFileSync(join(dir, 'finding', 'finding.json'), '{}\n');
    const r = kiln('reduce', 'finding');
    expectCodedError(r, 'KILN_FILE');
    expect(r.stderr).toContain("finding.json: not a valid finding manifest: field 'outcome'");
  });

  it('refuses a suspected run hang that the campaign cleared: it finished within the configured limit', () => {
    mkdirSync(join(dir, 'cleared'));
    writeFileSync(join(dir, 'cleared', 'prog.c'), 'int main(void) { return 0; }\n');
    const manifest = {
      id: '1-2-pcc-O1',
      outcome: 'binary-hang',
      bucket: 'binary-hang:pcc:-O1',
      compiler: 'pcc',
      options: '-O1',
      expected: 'checksum = 0',
      seed: '2',
      mode: 'arith',
      files: ['prog.c'],
      hangStatus: 'cleared',
    };
    writeFileSync(join(dir, 'cleared', 'finding.json'), JSON.stringify(manifest));
    const r = kiln('reduce', 'cleared');
    expectCodedError(r, 'KILN_STATE');
    expect(r.stderr).toContain('not a hang: checked with the configured run limit, it finished');
    // A cleared compile hang, and a run hang still suspected, go on to the reducer (which then
    // needs the program: a slow compile is reduced as one, see test/reduce/slow-compile.test.ts).
    for (const m of [
      { ...manifest, hangStatus: 'suspected' },
      { ...manifest, outcome: 'compiler-hang', bucket: 'compiler-hang:pcc' },
    ]) {
      writeFileSync(join(dir, 'cleared', 'finding.json'), JSON.stringify(m));
      expect(kiln('reduce', 'cleared').stderr).not.toContain('not a hang');
    }
  });

  it('a C file needs a test (or --crash / --wrong-code)', () => {
    writeFileSync(join(dir, 'a.c'), 'int main(void) { return 0; }\n');
    expectCodedError(kiln('reduce', 'a.c'), 'KILN_BAD_OPTION');
  });

  it('refuses a test that rejects the original and writes nothing', () => {
    writeFileSync(join(dir, 'no.sh'), '#!/bin/sh\nexit 1\n');
    chmodSync(join(dir, 'no.sh'), 0o755);
    expectCodedError(kiln('reduce', 'a.c', '--test', './no.sh'), 'KILN_NOT_INTERESTING');
    expect(existsSync(join(dir, 'a.reduced.c'))).toBe(false);
  });

  it('reduces a C file with a test script into -o', () => {
    writeFileSync(join(dir, 'b.c'), 'int unused_global = 42;\nint main(void) {\n  int x = 1;\n  return x + 2;\n}\n');
    writeFileSync(join(dir, 'keep.sh'), '#!/bin/sh\ngrep -q main b.c && gcc -fsyntax-only b.c\n');
    chmodSync(join(dir, 'keep.sh'), 0o755);
    const r = kiln('reduce', 'b.c', '--test', './keep.sh', '-o', 'out.c', '-j', '2', '--timeout', '20');
    expect(r.status).toBe(0);
    const out = readFileSync(join(dir, 'out.c'), 'utf8');
    expect(out).toContain('main');
    expect(out).not.toContain('unused_global');
    expect(r.stderr).toMatch(/kiln reduce: \d+ → \d+ bytes/);
  });
});
