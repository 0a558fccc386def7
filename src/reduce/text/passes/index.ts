import type { Pass } from '../pass.js';
import { blankPass } from './blank.js';
import { blocksPass } from './blocks.js';
import { callArgsPass } from './call-args.js';
import { cleanupPass } from './cleanup.js';
import { controlFlowPass } from './control-flow.js';
import { expressionsPass, expressionsZeroPass } from './expressions.js';
import { coarseLinesPass, linesPass } from './lines.js';
import { renamePass } from './rename.js';
import { statementsPass } from './statements.js';
import { topLevelPass } from './top-level.js';

/** Every text-reduction pass, by name. A factory makes a fresh instance (passes memoise per run). */
export const PASSES = {
  'top-level': topLevelPass,
  statements: statementsPass,
  'control-flow': controlFlowPass,
  blocks: blocksPass,
  'call-args': callArgsPass,
  'expressions-zero': expressionsZeroPass,
  expressions: expressionsPass,
  'lines-coarse': coarseLinesPass,
  lines: linesPass,
  rename: renamePass,
  cleanup: cleanupPass,
  blank: blankPass,
} as const satisfies Record<string, () => Pass<unknown>>;

/** A pass's name. */
export type PassName = keyof typeof PASSES;

/**
 * Which passes run when: `first` once (cheap, big cuts), `main` repeatedly until a whole round
 * commits nothing (the fixpoint), `last` once at the end (cosmetic shortening).
 */
export interface PassGroups {
  readonly first: readonly PassName[];
  readonly main: readonly PassName[];
  readonly last: readonly PassName[];
}

/** The default schedule. */
export const DEFAULT_PASS_GROUPS: PassGroups = {
  first: ['top-level', 'lines-coarse'],
  main: [
    'top-level',
    'statements',
    'control-flow',
    'blocks',
    'call-args',
    'expressions-zero',
    'expressions',
    'lines',
    'cleanup',
  ],
  last: ['rename', 'cleanup', 'blank'],
};

/** Instantiates the passes named in a group. */
export function instantiate(names: readonly PassName[]): Pass[] {
  return names.map((n): Pass => PASSES[n]());
}
