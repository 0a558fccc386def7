import type { IRBuilder } from '../ir/build.js';
import type { Block, Program, Stmt } from '../ir/nodes.js';
import type { Rng } from '../random/rng.js';
import type { BaseProfile } from './env.js';

/** What every mutation pass gets: one id space (the variant's builder), its random stream, and the base's profile. */
export interface PassContext {
  readonly b: IRBuilder;
  readonly rng: Rng;
  readonly base: BaseProfile;
}

/** A pass's result: the new program and how many mutations it applied. */
export interface PassResult {
  readonly program: Program;
  readonly applied: number;
}

/** `__builtin_unreachable();` */
export function unreachableStmt(b: IRBuilder): Stmt {
  return { kind: 'unreachable', id: b.id() };
}

/**
 * Whether a block never ran in the base: not entered and none of its statements ran (a goto can enter a block past its
 * start).
 */
export function isDeadBlock(base: BaseProfile, blk: Block): boolean {
  if (blk.id >= base.baseNextId) return false;
  const ran = (id: number): boolean => base.profile.stmtCounts.has(id);
  return !ran(blk.id) && !blk.stmts.some((s) => ran(s.id));
}
