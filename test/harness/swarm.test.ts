// Swarm configurations (src/harness/swarm.ts): the pseudo-option, GCC's catalogue read from its
// own --help=optimizers, the exclusions, the batch probe, and the draw of one test.
import { describe, expect, it } from 'vitest';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { swarmInstance, testConfiguration } from '../../src/harness/execute.js';
import { buildMatrix } from '../../src/harness/matrix.js';
import { TempRoot } from '../../src/harness/tempdir.js';
import {
  acceptedFlags,
  drawSwarm,
  excludedFlag,
  flagFamily,
  gccCatalogue,
  splitSwarmToken,
  swarmCatalogue,
  withSwarmCatalogues,
} from '../../src/harness/swarm.js';
import { requireTool } from '../support/cc.js';

const HELP = `The following options control optimizations:
  -O<number>                  		
  -faggressive-loop-optimizations 	[enabled]
  -falign-functions=          		16
  -fassociative-math          		[disabled]
  -fdelete-null-pointer-checks 		
  -fexceptions                		[available in Modula-2]
  -ffast-math                 		
  -ffp-contract=[off|on|fast] 		fast
  -fhandle-exceptions         		-fexceptions
  -flifetime-dse=<0,2>        		2
  -fno-threadsafe-statics     		[available in C++, ObjC++]
  -fshort-enums               		[disabled]
  -fsplit-loops               		[disabled]
  -ftree-parallelize-loops=<number> 	1
  -fvect-cost-model=[unlimited|dynamic|cheap|very-cheap] 	very-cheap
  -fwrapv                     		[disabled]
`;

describe('the +swarm pseudo-option', () => {
  it('reads +swarm and +swarm=K, and refuses bad ones with a coded error', () => {
    expect(splitSwarmToken(['-O2', '+swarm'])).toEqual({ tokens: ['-O2'], swarm: 8 });
    expect(splitSwarmToken(['+swarm=3', '-O3'])).toEqual({ tokens: ['-O3'], swarm: 3 });
    expect(splitSwarmToken(['-O3'])).toEqual({ tokens: ['-O3'] });
    for (const bad of [['+swarm=0'], ['+swarm=x'], ['+swarm=65'], ['+swarm', '+swarm=2']])
      expect(() => splitSwarmToken(bad)).toThrow(expect.objectContaining({ code: 'KILN_BAD_OPTION' }));
  });

  it('makes a configuration of its own, shown with the pseudo-option', async () => {
    requireTool('gcc');
    const gcc = await resolveCompiler('gcc');
    const [plain, swarm, three] = buildMatrix([gcc], ['-O2', '-O2 +swarm', '-O2 +swarm=3']);
    expect(swarm!.optionsText).toBe('-O2 +swarm');
    expect(swarm!.options).toEqual(['-O2']);
    expect(swarm!.swarm).toEqual({ max: 8 });
    expect(three!.optionsText).toBe('-O2 +swarm=3');
    expect(new Set([plain!.key, swarm!.key, three!.key]).size).toBe(3);
    expect(new Set([plain!.slug, swarm!.slug, three!.slug]).size).toBe(3);
  });

  it('is refused for tcc, which has no catalogue', async () => {
    requireTool('tcc');
    const tcc = await resolveCompiler('tcc');
    await expect(withSwarmCatalogues(buildMatrix([tcc], ['-O2 +swarm']))).rejects.toMatchObject({
      code: 'KILN_BAD_OPTION',
    });
  });
});

describe("GCC's catalogue", () => {
  it('takes on/off flags in both polarities and listed values, and nothing else', () => {
    const cat = gccCatalogue(HELP);
    expect(cat).toEqual(
      [
        '-faggressive-loop-optimizations',
        '-fno-aggressive-loop-optimizations',
        '-fdelete-null-pointer-checks',
        '-fno-delete-null-pointer-checks',
        '-fsplit-loops',
        '-fno-split-loops',
        '-fvect-cost-model=unlimited',
        '-fvect-cost-model=dynamic',
        '-fvect-cost-model=cheap',
        '-fvect-cost-model=very-cheap',
        '-fwrapv',
        '-fno-wrapv',
      ].sort(),
    );
  });

  it('excludes what changes meaning or layout, with a reason each', () => {
    for (const f of [
      '-ffast-math',
      '-fassociative-math',
      '-fno-signed-zeros',
      '-fno-trapping-math',
      '-ffp-contract=fast',
      '-fshort-enums',
      '-fpack-struct',
      '-fsigned-char',
      '-funsigned-char',
      '-fmerge-all-constants',
      '-flive-patching=inline-clone',
    ])
      expect(excludedFlag(f), f).toBe(true);
    for (const f of ['-fwrapv', '-fno-strict-aliasing', '-floop-interchange', '--param=max-unroll-times=4'])
      expect(excludedFlag(f), f).toBe(false);
  });
});

describe('families', () => {
  it('puts both polarities, values of one option and one --param together', () => {
    expect(flagFamily('-fno-tree-pre')).toBe(flagFamily('-ftree-pre'));
    expect(flagFamily('-fvect-cost-model=cheap')).toBe(flagFamily('-fvect-cost-model=dynamic'));
    expect(flagFamily('--param=max-unroll-times=2')).toBe(flagFamily('--param=max-unroll-times=16'));
    expect(flagFamily('--param=max-unroll-times=2')).not.toBe(flagFamily('--param=max-peel-times=2'));
    expect(flagFamily('-mllvm -force-vector-width=4')).toBe(flagFamily('-mllvm -force-vector-width=8'));
    expect(flagFamily('-mllvm -force-vector-width=4')).not.toBe(flagFamily('-mllvm -force-vector-interleave=4'));
  });
});

describe('the probe', () => {
  it('finds the flags a test rejects, in few batches', async () => {
    const flags = Array.from({ length: 40 }, (_, i) => `-fflag${i}`);
    const bad = new Set(['-fflag3', '-fflag17', '-fflag18', '-fflag39']);
    let tests = 0;
    const r = await acceptedFlags(flags, async (batch) => {
      tests++;
      const refused = batch.filter((f) => bad.has(f));
      // Only the first refused flag is named, as a compiler stopping at its first error would.
      return {
        ok: refused.length === 0,
        stderr: refused.length ? `error: unknown '${refused[0]}'` : '',
        definite: true,
      };
    });
    expect(r.accepted).toEqual(flags.filter((f) => !bad.has(f)));
    expect(tests).toBeLessThan(20);
  });

  it('splits a batch that fails without naming a flag', async () => {
    const flags = Array.from({ length: 16 }, (_, i) => `-fx${i}`);
    const r = await acceptedFlags(flags, async (batch) => ({
      ok: !batch.includes('-fx9'),
      stderr: 'this target machine does not have delayed branches',
      definite: true,
    }));
    expect(r.accepted).toEqual(flags.filter((f) => f !== '-fx9'));
  });

  it("keeps gcc's and clang's real flags and drops what they reject or ignore", async () => {
    requireTool('gcc');
    requireTool('clang-16');
    const gcc = await swarmCatalogue(await resolveCompiler('gcc'));
    expect(gcc.length).toBeGreaterThan(300);
    expect(gcc).toContain('-floop-interchange');
    expect(gcc).toContain('-fno-tree-pre');
    expect(gcc.some((f) => f.startsWith('--param=max-unroll-times='))).toBe(true);
    // x86-64 has no section anchors: gcc warns, the probe runs under -Werror.
    expect(gcc).not.toContain('-fsection-anchors');
    expect(gcc.some(excludedFlag)).toBe(false);
    const clang = await swarmCatalogue(await resolveCompiler('clang-16'));
    expect(clang).toContain('-mllvm -enable-loop-flatten');
    expect(clang).toContain('-mllvm -force-vector-width=8');
    expect(clang).toContain('-fno-slp-vectorize');
  });
});

describe('the draw', () => {
  const catalogue = Array.from({ length: 30 }, (_, i) => (i % 2 ? `-fno-f${i >> 1}` : `-ff${i >> 1}`));

  it('is the same for the same seed, up to K flags of distinct families', () => {
    const sizes = new Set<number>();
    for (let s = 0; s < 200; s++) {
      const a = drawSwarm(catalogue, 6, ['-O2'], `seed ${s}`);
      expect(drawSwarm(catalogue, 6, ['-O2'], `seed ${s}`)).toEqual(a);
      expect(a.length).toBeGreaterThanOrEqual(1);
      expect(a.length).toBeLessThanOrEqual(6);
      expect(new Set(a.map(flagFamily)).size).toBe(a.length);
      sizes.add(a.length);
    }
    expect([...sizes].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('never draws a family the option set already sets', () => {
    for (let s = 0; s < 100; s++)
      expect(drawSwarm(catalogue, 8, ['-O2', '-ff3'], `s${s}`).some((f) => flagFamily(f) === flagFamily('-ff3'))).toBe(
        false,
      );
  });

  it('gives each test its drawn flags, and compiles with them', async () => {
    requireTool('gcc');
    const [c] = await withSwarmCatalogues(buildMatrix([await resolveCompiler('gcc')], ['-O2 +swarm']));
    const program = [{ name: 'prog.c', content: '#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n' }];
    const one = swarmInstance(c!, program);
    expect(one.swarm!.drawn!.length).toBeGreaterThan(0);
    expect(one.options.slice(1)).toEqual(one.swarm!.drawn!.flatMap((f) => f.split(' ')));
    expect(one.optionsText).toBe('-O2 +swarm');
    expect(swarmInstance(c!, program).options).toEqual(one.options);
    const other = swarmInstance(c!, [{ ...program[0]!, content: `${program[0]!.content}\n` }]);
    expect(other.options).not.toEqual(one.options);
    const temp = TempRoot.create();
    try {
      const limits = {
        compile: { timeoutMs: 60_000, memoryMb: undefined },
        run: { timeoutMs: 10_000, memoryMb: undefined },
      };
      const r = await testConfiguration(program, 'ok', c!, limits, temp);
      expect(r.judgement.outcome).toBe('ok');
      expect(r.config.options).toEqual(one.options);
      expect(r.compile.command).toEqual(expect.arrayContaining(one.swarm!.drawn!.flatMap((f) => f.split(' '))));
    } finally {
      temp.dispose();
    }
  });
});
