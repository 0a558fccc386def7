import type { Program } from '../ir/nodes.js';
import type { Profile, UBReport } from '../interp/interpret.js';
import { Editor } from './edit.js';
import { repairArithmetic } from './rules/arith.js';
import { repairConstWrite, repairOutOfBounds, repairPointer, repairUninitialised, repairUnionRead } from './rules/memory.js';
import { repairOrder } from './rules/order.js';
import { repairTermination } from './rules/termination.js';
import type { Repaired, RepairState } from './state.js';

/**
 * Applies one repair for the UB a run reported: the rule for that UB kind rewrites the one
 * offending site. Returns undefined when no rule applies (the program is then discarded).
 */
export function repairOnce(p: Program, ub: UBReport, profile: Profile, st: RepairState): Repaired | undefined {
  const ed = new Editor(p);
  let r: Repaired | undefined;
  switch (ub.kind) {
    case 'signed-overflow':
    case 'division-by-zero':
    case 'division-overflow':
    case 'remainder-overflow':
    case 'shift-count-negative':
    case 'shift-count-too-large':
    case 'shift-negative-value':
    case 'shift-overflow':
      r = repairArithmetic(ed, ub, st);
      break;
    case 'out-of-bounds':
      r = repairOutOfBounds(ed, ub);
      break;
    case 'null-dereference':
    case 'dangling-dereference':
    case 'dangling-pointer-use':
      r = repairPointer(ed, ub, st);
      break;
    case 'uninitialised-read':
      r = repairUninitialised(ed, ub);
      break;
    case 'inactive-union-read':
      r = repairUnionRead(ed, ub, st);
      break;
    case 'const-write':
      r = repairConstWrite(ed, ub);
      break;
    case 'unsequenced-access':
    case 'order-dependence':
    case 'multiple-volatile-access':
      r = repairOrder(ed, ub);
      break;
    case 'step-budget-exceeded':
      r = repairTermination(ed, profile, st);
      break;
    case 'float-to-int-overflow':
    case 'float-inexact':
      r = undefined;
      break;
  }
  if (r) st.record(ub.node, ub.kind, r.rule);
  return r;
}
