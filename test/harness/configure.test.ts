// The default option sets of a campaign (src/harness/configure.ts): the plain levels, and on the
// newest gcc and clang also ISA levels, swarms and LTO; and trunk snapshot dates.
import { describe, expect, it } from 'vitest';
import { resolveCompiler, snapshotDate, type Compiler } from '../../src/harness/compilers.js';
import { defaultOptionSets, isNewest } from '../../src/harness/configure.js';
import { DEFAULT_OPTION_SETS } from '../../src/harness/matrix.js';
import { requireTool } from '../support/cc.js';

describe('the default option sets', () => {
  it('are the plain levels unless every compiler is one of the newest', async () => {
    requireTool('gcc');
    requireTool('tcc');
    const gcc = await resolveCompiler('gcc');
    const tcc = await resolveCompiler('tcc');
    expect(isNewest(gcc)).toBe(false); // Debian 12's gcc 12
    expect(await defaultOptionSets([gcc, tcc])).toEqual([...DEFAULT_OPTION_SETS]);
    // The same binary presented as a GCC 16 and a clang 23: the newest sets join the plain ones.
    const gcc16: Compiler = { ...gcc, name: 'gcc-16', version: 'gcc-16 (Debian 16.2.0-4) 16.2.0' };
    expect(isNewest(gcc16)).toBe(true);
    const sets = await defaultOptionSets([gcc16]);
    expect(sets.slice(0, 5)).toEqual([...DEFAULT_OPTION_SETS]);
    // This machine runs x86-64-v4 binaries (the tests' machines have AVX-512).
    expect(sets.slice(5)).toEqual([
      '-O2 -march=x86-64-v3',
      '-O3 -march=x86-64-v4 -mprefer-vector-width=512',
      '-O3 -march=native +swarm',
      '-O2 +swarm',
      '-O2 -flto',
    ]);
    expect(await defaultOptionSets([gcc16, tcc])).toEqual([...DEFAULT_OPTION_SETS]);
  });

  it('read the trunk snapshot date of LLVM and GCC snapshots, and none of a release', () => {
    const c = (family: 'gcc' | 'clang', version: string) => ({ family, version });
    expect(snapshotDate(c('clang', 'Debian clang version 24.0.0 (++20261025103442+7e3c57157096-1~exp1)'))).toBe(
      '2026-10-25',
    );
    expect(snapshotDate(c('gcc', 'gcc (Debian 20261020-1) 17.0.0 20261020 (experimental) [trunk r17-5409]'))).toBe(
      '2026-10-20',
    );
    expect(snapshotDate(c('clang', 'Debian clang version 23.1.4 (2)'))).toBeUndefined();
    expect(snapshotDate(c('gcc', 'gcc-16 (Debian 16.2.0-4) 16.2.0'))).toBeUndefined();
    expect(isNewest({ ...c('clang', 'Debian clang version 24.0.0 (++2026)'), name: 'clang-24' } as Compiler)).toBe(
      true,
    );
  });
});
