import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectCompilers, resolveCompiler, resolveCompilers } from '../../src/harness/compilers.js';
import { requireTool } from '../support/cc.js';

describe('compiler detection', () => {
  let bin: string;

  beforeAll(() => {
    for (const t of ['gcc', 'clang', 'tcc']) requireTool(t);
    bin = mkdtempSync(join(tmpdir(), 'kiln-bin-'));
  });

  afterAll(() => {
    if (bin) rmSync(bin, { recursive: true, force: true });
  });

  it('finds gcc, clang and tcc on PATH with their exact versions', async () => {
    const found = await detectCompilers();
    const byFamily = (f: string) => found.filter((c) => c.family === f);
    expect(byFamily('gcc').length, 'gcc not detected').toBeGreaterThan(0);
    expect(byFamily('clang').length, 'clang not detected').toBeGreaterThan(0);
    expect(byFamily('tcc').length, 'tcc not detected').toBeGreaterThan(0);
    expect(found.find((c) => c.name === 'gcc')!.version).toMatch(/^gcc .*\d+\.\d+/);
    expect(found.find((c) => c.name === 'clang')!.version).toMatch(/clang version \d+/);
    expect(found.find((c) => c.name === 'tcc')!.version).toMatch(/^tcc version \d/);
    // One entry per binary.
    expect(new Set(found.map((c) => c.realPath)).size).toBe(found.length);
  });

  it('keeps one name per binary: gcc over gcc-N, and cc only when it is another compiler', async () => {
    const gcc = (await resolveCompiler('gcc')).command;
    const clang = (await resolveCompiler('clang')).command;
    symlinkSync(gcc, join(bin, 'gcc'));
    symlinkSync(gcc, join(bin, 'gcc-99'));
    symlinkSync(gcc, join(bin, 'cc'));
    symlinkSync(clang, join(bin, 'clang-77'));
    symlinkSync('/usr/bin/tcc', join(bin, 'tcc'));
    writeFileSync(join(bin, 'gcc-ar'), '#!/bin/sh\n'); // not a compiler name
    chmodSync(join(bin, 'gcc-ar'), 0o755);
    const found = await detectCompilers({ PATH: bin });
    expect(found.map((c) => c.name)).toEqual(['gcc', 'clang-77', 'tcc']);
    expect(found.map((c) => c.family)).toEqual(['gcc', 'clang', 'tcc']);

    // A `cc` that is its own binary is kept.
    const other = mkdtempSync(join(tmpdir(), 'kiln-bin-'));
    try {
      copyFileSync('/usr/bin/tcc', join(other, 'cc'));
      chmodSync(join(other, 'cc'), 0o755);
      const withCc = await detectCompilers({ PATH: `${other}:${bin}` }); // this cc shadows the gcc one
      expect(withCc.map((c) => `${c.name}/${c.family}`)).toEqual(['gcc/gcc', 'clang-77/clang', 'tcc/tcc', 'cc/tcc']);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('resolves names and paths, and drops a repeated binary', async () => {
    const list = await resolveCompilers(['gcc', 'tcc', join(bin, 'gcc-99')]);
    expect(list.map((c) => c.name)).toEqual(['gcc', 'tcc']);
  });

  it('rejects compilers that cannot be used, with a coded error', async () => {
    const notExe = join(bin, 'plain-file');
    writeFileSync(notExe, 'int x;');
    const silent = join(bin, 'silent-cc');
    writeFileSync(silent, '#!/bin/sh\nexit 1\n');
    chmodSync(silent, 0o755);
    for (const [spec, why] of [
      ['no-such-compiler-xyz', /not found on PATH/],
      [notExe, /no executable file at that path/],
      [silent, /printed nothing/],
    ] as const) {
      await expect(resolveCompiler(spec)).rejects.toMatchObject({
        code: 'KILN_UNKNOWN_COMPILER',
        message: expect.stringMatching(why),
      });
    }
  });
});
