// LLVM pass pipelines as trees, and the search for the smallest one that still crashes, against
// a model of opt: the "crash" needs some passes in order, inside the adaptors they need.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  keepPasses,
  minimalPipeline,
  parsePipeline,
  passCount,
  passes,
  PipelineSyntaxError,
  printPipeline,
} from '../../../src/reduce/llvm/pipeline.js';

// The shape `opt -passes='default<O1>' -print-pipeline-passes` prints (abridged).
const O1 =
  'annotation2metadata,forceattrs,function<eager-inv>(lower-expect,simplifycfg<bonus-inst-threshold=1;' +
  'keep-loops>,sroa<modify-cfg>,early-cse<>),ipsccp,require<globals-aa>,function(invalidate<aa>),' +
  'cgscc(devirt<4>(inline,function-attrs<skip-non-recursive-function-attrs>,function<eager-inv;no-rerun>(' +
  'sroa<modify-cfg>,early-cse<memssa>,instcombine<max-iterations=1;no-verify-fixpoint>,loop-mssa(' +
  'loop-instsimplify,licm<no-allowspeculation>,loop-rotate<header-duplication;no-prepare-for-lto>),' +
  'simplifycfg<bonus-inst-threshold=1;keep-loops>,loop(loop-idiom,indvars,loop-deletion,loop-unroll-full),' +
  'adce))),globaldce,function(loop-distribute,loop-vectorize<no-interleave-forced-only;>)';

describe('textual pipelines', () => {
  it('parses and prints a real pipeline unchanged, brackets and parameters included', () => {
    const tree = parsePipeline(O1);
    expect(printPipeline(tree)).toBe(O1);
    expect(passCount(tree)).toBe(26);
    expect(passes(tree)).toContain('loop-vectorize<no-interleave-forced-only;>');
  });

  it('refuses text that is not a pipeline', () => {
    for (const bad of ['function(sroa', 'a<b', 'a>', 'a,,b', 'f(a))'])
      expect(() => parsePipeline(bad), bad).toThrow(PipelineSyntaxError);
  });

  it('keeps the chosen passes and drops adaptors left empty', () => {
    const tree = parsePipeline(O1);
    const at = passes(tree).indexOf('loop-deletion');
    expect(printPipeline(keepPasses(tree, new Set([at])))).toBe(
      'cgscc(devirt<4>(function<eager-inv;no-rerun>(loop(loop-deletion))))',
    );
  });

  it('round-trips any pipeline built from names, parameters and nesting', () => {
    const name = fc.stringMatching(/^[a-z][a-z-]{0,8}(<[a-z0-9=;-]{0,6}>)?$/);
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        name.map((n) => ({ name: n })),
        fc.record({ name, children: fc.array(tie('node'), { maxLength: 3 }) }),
      ),
    })).node;
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 4 }), (nodes) => {
        const text = printPipeline(nodes as never);
        expect(printPipeline(parsePipeline(text))).toBe(text);
      }),
    );
  });
});

describe('the smallest crashing pipeline', () => {
  /** A model opt: crashes iff licm runs (in loop-mssa) and loop-deletion after it, with or without parameters. */
  const crashes = async (p: string): Promise<boolean> => {
    const licm = p.search(/loop-mssa\(licm(<[^>]*>)?\)|loop-mssa\([^)]*licm/);
    const deletion = p.search(/(^|[,(])loop-deletion(?=[,)]|$)/);
    return licm >= 0 && deletion > licm;
  };

  it('finds the passes the crash needs, then drops adaptors and parameters it does not', async () => {
    const r = await minimalPipeline(O1, crashes);
    expect(r.passes).toBe(2);
    expect(r.minimal).toBe(true);
    expect(await crashes(r.pipeline)).toBe(true);
    // The model needs licm inside loop-mssa; everything else goes.
    expect(r.pipeline).toBe('loop-mssa(licm),loop-deletion');
    expect(r.tests).toBeLessThan(80);
  });

  it('ends with the bare pass name when one pass alone crashes', async () => {
    const r = await minimalPipeline(O1, async (p) => /(^|[,(])loop-deletion(?=[,)]|$)/.test(p));
    expect(r).toMatchObject({ pipeline: 'loop-deletion', passes: 1 });
  });

  it('stops at its test budget with the smallest pipeline found so far, which still crashes', async () => {
    const r = await minimalPipeline(O1, crashes, 5);
    expect(r.minimal).toBe(false);
    expect(r.tests).toBeLessThanOrEqual(5);
    expect(await crashes(r.pipeline)).toBe(true);
  });
});
