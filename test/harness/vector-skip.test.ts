// A campaign gives each compiler only the vector programs it accepts: gcc-12 has vectors and all
// three builtins, clang-16 has no `__builtin_shuffle`, tcc and pcc have no vectors at all. So a
// program with `__builtin_shuffle` goes to gcc-12 alone, one with vectors to both, and the
// campaign's policy draws no builtin that none of its compilers has.
import { describe, expect, it } from 'vitest';
import { withCapabilities, type FuzzSettings } from '../../src/campaign/settings.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { accepts, compilerCapabilities } from '../../src/harness/capabilities.js';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { gccClangCampaign } from './support/skip.js';

const policy = parsePolicy(
  {
    // No `_BitInt`, which gcc-12 lacks: only the vector builtins decide where a program goes.
    features: { vectors: true, bitInt: false },
    choices: { vectorPrograms: 1, vectorBuiltins: { shufflevector: 1, convertvector: 1, shuffle: 1 } },
  },
  'small',
);
const NONE = { int128: false, bitIntWidth: 0, labelValues: false };

describe('compilers and vector programs', () => {
  it('are probed once: gcc-12 has every builtin, clang-16 no __builtin_shuffle, tcc and pcc no vectors', async () => {
    const gcc = await compilerCapabilities(await resolveCompiler('gcc-12'));
    const clang = await compilerCapabilities(await resolveCompiler('clang-16'));
    expect(gcc.vectors).toEqual({ shufflevector: true, convertvector: true, shuffle: true });
    expect(clang.vectors).toEqual({ shufflevector: true, convertvector: true, shuffle: false });
    for (const name of ['tcc', 'pcc'])
      expect((await compilerCapabilities(await resolveCompiler(name))).vectors, name).toBeUndefined();
    const shuffle = { ...NONE, vectors: { shufflevector: false, convertvector: false, shuffle: true } };
    const plain = { ...NONE, vectors: { shufflevector: false, convertvector: false, shuffle: false } };
    expect(accepts(gcc, shuffle)).toBe(true);
    expect(accepts(clang, shuffle)).toBe(false);
    expect(accepts(clang, plain)).toBe(true);
    expect(accepts({ ...clang, vectors: undefined }, plain)).toBe(false);
    // A campaign of clang-16 alone draws no __builtin_shuffle; tcc alone draws no vectors.
    const settings = (compilers: FuzzSettings['compilers']) =>
      ({ compilers, policy, resume: undefined }) as unknown as FuzzSettings;
    const alone = await withCapabilities(settings([await resolveCompiler('clang-16')]));
    expect(alone.policy.features.vectors).toBe(true);
    expect(alone.policy.choices.vectorBuiltins).toEqual({ shufflevector: 1, convertvector: 1, shuffle: 0 });
    const tcc = await withCapabilities(settings([await resolveCompiler('tcc')]));
    expect(tcc.policy.features.vectors).toBe(false);
  }, 120_000);

  it('__builtin_shuffle programs go to gcc-12 only; other vector programs to both', async () => {
    const { reports, gcc: g, clang: c } = await gccClangCampaign(policy, 8);
    const tested = reports.filter((r) => r.status === 'tested');
    expect(tested.length).toBeGreaterThanOrEqual(6);
    let skipped = 0;
    for (const r of tested) {
      const shuffle = r.files!.some((f) => f.content.includes('__builtin_shuffle('));
      const outcome = (cfg: typeof g) => r.results.find((x) => x.config === cfg)?.outcome;
      expect(outcome(g), `seed ${r.seed}`).toBe('ok');
      expect(outcome(c), `seed ${r.seed}`).toBe(shuffle ? 'skipped' : 'ok');
      if (shuffle) skipped++;
    }
    expect(skipped).toBeGreaterThan(0);
    expect(tested.filter((r) => r.files!.some((f) => f.content.includes('vector_size'))).length).toBe(tested.length);
  }, 900_000);
});
