import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errNotAFinding, errUnsupported } from '../diag/errors.js';

/** Options of `kiln reduce FINDING_DIR`, shared with the text reducer's command-line options. */
export interface FindingReduceOptions {
  /** Output file (default: chosen by the IR reducer, e.g. `FINDING_DIR/reduced.c`). */
  readonly output?: string;
  /** Candidates tested in parallel. */
  readonly jobs?: number;
  /** Limit of one interestingness check, in milliseconds. */
  readonly timeoutMs?: number;
  /** Stop after this long (ms), keeping the best result so far. */
  readonly maxTimeMs?: number;
  /** Progress lines (the CLI passes a writer to stderr). */
  readonly onProgress?: (line: string) => void;
}

/**
 * Reduces a Kiln finding (a directory with `finding.json`, written by `kiln fuzz`) with the IR
 * reducer, which re-executes every candidate in the reference interpreter so that a wrong-code
 * reduction cannot drift into undefined behaviour.
 *
 * `kiln reduce <path>` calls this when <path> is a directory; a `.c` file goes to the text reducer
 * instead (src/reduce/text/). PLACEHOLDER: the IR reducer is built separately and will replace
 * this body; until then it validates the directory and throws KILN_UNSUPPORTED.
 *
 * @throws KilnError `KILN_NOT_A_FINDING` when `dir` has no `finding.json`;
 *         KilnError `KILN_UNSUPPORTED` otherwise (IR reduction is not available yet).
 */
export async function reduceFinding(dir: string, opts: FindingReduceOptions = {}): Promise<void> {
  void opts;
  const manifest = join(dir, 'finding.json');
  if (!existsSync(manifest) || !statSync(manifest).isFile()) throw errNotAFinding(dir);
  throw errUnsupported('IR reduction is not available yet', `reduce the finding's C file with a test script instead: kiln reduce ${join(dir, '<file>.c')} --test SCRIPT`);
}
