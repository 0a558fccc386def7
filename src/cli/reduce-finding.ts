import { copyFileSync, existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { errFile } from '../diag/errors.js';
import { reduceFinding, type FindingReduceOptions, type FindingReduction } from '../reduce/finding.js';
import { writeBundle, type Bundle } from '../report/bundle.js';

/** A reduced finding and its bundle. */
export interface ReducedFinding {
  readonly reduction: FindingReduction;
  readonly bundle: Bundle;
}

/**
 * Reduces a finding folder and writes its bug bundle into it (`reduced.c`, `reduced/`), then copies
 * `reduced.c` to `output` when one is given. Used by `kiln reduce FINDING_DIR` and in the
 * background of `kiln fuzz --reduce`.
 */
export async function reduceAndBundle(dir: string, opts: FindingReduceOptions & { output?: string }): Promise<ReducedFinding> {
  const reduction = await reduceFinding(dir, opts);
  const bundle = await writeBundle(reduction);
  if (opts.output !== undefined) {
    try {
      copyFileSync(bundle.reducedFile, opts.output);
    } catch (e) {
      throw errFile(opts.output, `cannot write: ${(e as Error).message}`);
    }
  }
  return { reduction, bundle };
}

/** The output folder of `kiln fuzz` holding a finding folder (`OUT/findings/ID`), if it is one. */
export function outDirOf(findingDir: string): string | undefined {
  const abs = resolve(findingDir);
  const parent = dirname(abs);
  if (basename(parent) !== 'findings') return undefined;
  const out = dirname(parent);
  return existsSync(join(out, 'kiln.db')) ? out : undefined;
}
