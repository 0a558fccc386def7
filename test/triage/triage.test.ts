// Fingerprint searches against fault-injecting fake compilers (real clang-14 and gcc underneath):
// each fake miscompiles under a known condition, and the search must name exactly that cause.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TempRoot } from '../../src/harness/tempdir.js';
import { triageFinding, TRIAGE_FILE } from '../../src/triage/triage.js';
import { requireTool } from '../support/cc.js';
import { writeFakeClang, writeFakeGcc, writeFinding } from './support.js';

let work: string;
let temp: TempRoot;

beforeAll(() => {
  requireTool('clang-14');
  requireTool('gcc');
  requireTool('tcc');
  work = mkdtempSync(join(tmpdir(), 'kiln-triage-'));
  temp = TempRoot.create();
});

afterAll(() => {
  temp?.dispose();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('clang: opt-bisect', () => {
  it('names the pass whose execution first shows the bug', async () => {
    const cc = writeFakeClang(join(work, 'bin'), 'clang-fake-13', 13);
    const dir = writeFinding(join(work, 'f'), {
      id: 'c13',
      compiler: 'clang-fake-13',
      compilerPath: cc,
      options: '-O2',
    });
    const probes: string[] = [];
    const r = await triageFinding(dir, { temp, versions: false, onProgress: (l) => probes.push(l) });
    expect(r.fingerprint).toBe('clang:Kiln Fault Injection');
    expect(r.method).toBe('opt-bisect');
    expect(r.reproduced).toBe(true);
    expect(r.culpritOptions).toEqual(['-mllvm', '-opt-bisect-limit=13']);
    expect(r.detail).toMatch(/pass \(13\) Kiln Fault Injection on function \(main\)/);
    // -1 and 0, then a binary search over 40 passes.
    expect(r.steps).toBeGreaterThanOrEqual(4);
    expect(r.steps).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(40)));
    expect(probes).toHaveLength(r.steps);
    const written = JSON.parse(readFileSync(join(dir, TRIAGE_FILE), 'utf8')) as Record<string, unknown>;
    expect(written).toMatchObject({
      findingId: 'c13',
      fingerprint: 'clang:Kiln Fault Injection',
      method: 'opt-bisect',
      steps: r.steps,
    });
  });

  it('finds the first and the last pass too', async () => {
    for (const k of [1, 40]) {
      const name = `clang-fake-${k}`;
      const cc = writeFakeClang(join(work, 'bin'), name, k);
      const dir = writeFinding(join(work, 'f'), { id: `c${k}`, compiler: name, compilerPath: cc, options: '-O3' });
      const r = await triageFinding(dir, { temp, versions: false, write: false });
      expect(r.detail).toContain(`pass (${k}) `);
      expect(r.fingerprint).toBe('clang:Kiln Fault Injection');
      expect(existsSync(join(dir, TRIAGE_FILE))).toBe(false);
    }
  });

  it('names no pass when the bug shows with every optional pass disabled', async () => {
    const cc = writeFakeClang(join(work, 'bin'), 'clang-fake-0', 0);
    const dir = writeFinding(join(work, 'f'), { id: 'c0', compiler: 'clang-fake-0', compilerPath: cc, options: '-O2' });
    const r = await triageFinding(dir, { temp, versions: false });
    expect(r.method).toBe('none');
    expect(r.fingerprint).toBe('wrong-code:clang-fake-0:-O2');
    expect(r.detail).toMatch(/opt-bisect-limit=0/);
    expect(r.steps).toBe(2);
  });

  it('does not search at -O0', async () => {
    const cc = writeFakeClang(join(work, 'bin'), 'clang-fake-5', 5);
    const dir = writeFinding(join(work, 'f'), {
      id: 'c-O0',
      compiler: 'clang-fake-5',
      compilerPath: cc,
      options: '-O0',
    });
    const r = await triageFinding(dir, { temp, versions: false });
    expect(r).toMatchObject({ method: 'none', steps: 0, fingerprint: 'wrong-code:clang-fake-5:-O0' });
    expect(r.detail).toMatch(/-O0/);
  });

  it('reports a finding that does not reproduce', async () => {
    // Real clang: the program prints the expected line, so the "finding" is gone.
    const dir = writeFinding(join(work, 'f'), {
      id: 'c-gone',
      compiler: 'clang-14',
      compilerPath: 'clang-14',
      options: '-O2',
    });
    const r = await triageFinding(dir, { temp, versions: false });
    expect(r).toMatchObject({ reproduced: false, method: 'none', fingerprint: 'wrong-code:clang-14:-O2', steps: 1 });
  });
});

describe('gcc: disabling flags and passes', () => {
  it('names the flag whose -fno- form hides the bug', async () => {
    const cc = writeFakeGcc(join(work, 'bin'), 'gcc-fake-vrp', ['-fno-tree-vrp']);
    const dir = writeFinding(join(work, 'f'), {
      id: 'g-vrp',
      compiler: 'gcc-fake-vrp',
      compilerPath: cc,
      options: '-O2',
    });
    const r = await triageFinding(dir, { temp, versions: false });
    expect(r.fingerprint).toBe('gcc:-ftree-vrp');
    expect(r.method).toBe('gcc-disable');
    expect(r.culpritOptions).toEqual(['-fno-tree-vrp']);
    // Own options, all flags off, then log2(~130) halving steps and the confirmation.
    expect(r.steps).toBeLessThanOrEqual(12);
  });

  it('names the flag at -Os too', async () => {
    const cc = writeFakeGcc(join(work, 'bin'), 'gcc-fake-ccp', ['-fno-tree-ccp']);
    const dir = writeFinding(join(work, 'f'), {
      id: 'g-ccp-Os',
      compiler: 'gcc-fake-ccp',
      compilerPath: cc,
      options: '-Os',
    });
    expect((await triageFinding(dir, { temp, versions: false, write: false })).fingerprint).toBe('gcc:-ftree-ccp');
  });

  it('falls back to a pass when no flag controls it', async () => {
    const cc = writeFakeGcc(join(work, 'bin'), 'gcc-fake-combine', ['-fdisable-rtl-combine']);
    const dir = writeFinding(join(work, 'f'), {
      id: 'g-combine',
      compiler: 'gcc-fake-combine',
      compilerPath: cc,
      options: '-O2',
    });
    const r = await triageFinding(dir, { temp, versions: false });
    expect(r.fingerprint).toBe('gcc:rtl-combine');
    expect(r.culpritOptions).toEqual(['-fdisable-rtl-combine']);
    // Flags: own, all off (the bug stays); passes: all off, then log2(~150) halving steps.
    expect(r.steps).toBeLessThanOrEqual(13);
  });

  it('names the minimal set when only two flags together hide the bug', async () => {
    // Miscompiles unless both are off: each alone leaves the bug.
    const cc = writeFakeGcc(join(work, 'bin'), 'gcc-fake-pair', []);
    const pair = `${cc}-pair`;
    const { writeFileSync, chmodSync } = await import('node:fs');
    writeFileSync(
      pair,
      `#!/bin/sh\na=; b=\nfor x; do case $x in -fno-tree-pre) a=1;; -fno-gcse) b=1;; --version|-Q) a=1; ` +
        `b=1;; esac; done\nif [ -n "$a" ] && [ -n "$b" ]; then exec gcc "$@"; fi\nexec gcc -DKILN_BUG "$@"\n`,
    );
    chmodSync(pair, 0o755);
    const dir = writeFinding(join(work, 'f'), {
      id: 'g-pair',
      compiler: 'gcc-fake-pair',
      compilerPath: pair,
      options: '-O2',
    });
    const r = await triageFinding(dir, { temp, versions: false, gccLimits: { flagProbes: 40, passProbes: 10 } });
    expect(r.fingerprint).toBe('gcc:-fgcse+-ftree-pre');
    expect(r.detail).toMatch(/no single flag or pass hides the bug; disabling these 2 flags together does/);
    expect(r.culpritOptions).toEqual(['-fno-gcse', '-fno-tree-pre']);
  });
});

describe('findings without a pass search', () => {
  it('uses the bucket of compiler crashes', async () => {
    const dir = writeFinding(join(work, 'f'), {
      id: 'crash',
      compiler: 'gcc',
      compilerPath: 'gcc',
      options: '-O2',
      outcome: 'compiler-crash',
      bucket: 'compiler-crash:gcc:internal compiler error: in foo, at bar.cc',
    });
    const r = await triageFinding(dir, { temp, versions: false });
    expect(r).toMatchObject({
      fingerprint: 'compiler-crash:gcc:internal compiler error: in foo, at bar.cc',
      method: 'bucket',
      steps: 0,
    });
  });

  it('uses the bucket of compilers without passes to search (tcc)', async () => {
    const dir = writeFinding(join(work, 'f'), { id: 'tcc', compiler: 'tcc', compilerPath: 'tcc', options: '-O2' });
    const r = await triageFinding(dir, { temp, versions: false });
    expect(r).toMatchObject({ fingerprint: 'wrong-code:tcc:-O2', method: 'bucket', steps: 0 });
  });

  it('rejects a folder that is not a finding with a coded error', async () => {
    await expect(triageFinding(work)).rejects.toMatchObject({ code: 'KILN_NOT_A_FINDING' });
    const dir = writeFinding(join(work, 'f'), {
      id: 'nocc',
      compiler: 'nocc',
      compilerPath: join(work, 'no-such-cc'),
      options: '-O2',
    });
    await expect(triageFinding(dir, { temp, versions: false })).rejects.toMatchObject({
      code: 'KILN_UNKNOWN_COMPILER',
    });
  });
});
