// GNU labels as values (the IR's `igoto`) are a capability: a program with one needs it
// (`programRequires`), each compiler is probed once for it, and a campaign skips configurations
// without it. Measured here: gcc, clang, tcc 0.9.27 and pcc 1.2.0.DEVEL all compile the table form
// Kiln prints (pcc crashes on `goto *&&a;`, a form the emitter never prints).
import { describe, expect, it } from 'vitest';
import { accepts, compilerCapabilities } from '../../src/harness/capabilities.js';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { programRequires } from '../../src/ir/census.js';
import { replaceNode } from '../../src/ir/visit.js';
import { dispatchProgram } from '../support/igoto.js';

describe('labels as values', () => {
  it('gcc, clang, tcc and pcc are probed (once) and accept them', async () => {
    for (const name of ['gcc', 'clang', 'tcc', 'pcc']) {
      const c = await resolveCompiler(name);
      const caps = await compilerCapabilities(c);
      expect(caps.labelValues, name).toBe(true);
      // Probed once per process: the same answer object.
      expect(await compilerCapabilities(c)).toBe(caps);
    }
  }, 120_000);

  it('a program with an igoto requires them; a configuration without them skips it', () => {
    const d = dispatchProgram([1, 0], 3n);
    const req = programRequires(d.program);
    expect(req).toEqual({ int128: false, bitIntWidth: 0, labelValues: true });
    const without = { int128: true, bitIntMaxWidth: 0, labelValues: false, vectors: undefined };
    expect(accepts(without, req)).toBe(false);
    expect(accepts({ ...without, labelValues: true }, req)).toBe(true);
    // The same program with its igotos replaced by plain statements requires nothing.
    let plain = d.program;
    for (const s of d.igotos) plain = replaceNode(plain, s.id, (old) => ({ kind: 'break', id: old.id }));
    expect(programRequires(plain).labelValues).toBe(false);
    expect(accepts(without, programRequires(plain))).toBe(true);
  });
});
