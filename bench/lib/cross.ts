// The cross compilers the cross benchmarks test: one gcc per modelled target.
import { TARGETS } from '../../src/c/target.js';
import { missingEmulator, type Compiler } from '../../src/harness/compilers.js';

/**
 * One cross gcc per modelled target (the highest version found), in model order, limited to the
 * comma-separated target names in `wanted` when given; with `runnable`, only those whose qemu is on PATH.
 */
export function pickCrossCompilers(all: readonly Compiler[], wanted: string, runnable = false): Compiler[] {
  const out: Compiler[] = [];
  for (const model of TARGETS) {
    if (wanted && !wanted.split(',').includes(model.name)) continue;
    const cands = all.filter((c) => c.target === model.name && c.family === 'gcc' && !(runnable && missingEmulator(c)));
    cands.sort((a, b) => b.name.localeCompare(a.name, 'en', { numeric: true }));
    if (cands[0]) out.push(cands[0]);
  }
  return out;
}
