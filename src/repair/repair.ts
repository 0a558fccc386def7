import type { Profile, UBReport } from '../interp/interpret.js';
import type { Editor } from './edit.js';
import { repairArithmetic } from './rules/arith.js';
import { isFloatSite, repairFloat } from './rules/float.js';
import {
  repairConstWrite,
  repairOutOfBounds,
  repairPointer,
  repairUninitialised,
  repairUnionRead,
} from './rules/memory.js';
import { repairOrder } from './rules/order.js';
import { repairTermination } from './rules/termination.js';
import type { Repaired, RepairState } from './state.js';

/**
 * Applies one repair for a UB report: the rule for that UB kind rewrites the one offending site
 * through the editor. Returns undefined when no rule applies or the site is gone. A run out of
 * steps changes only loops, gotos and calls with ids from `floor` on (see repairTermination).
 */
export function repairOnce(
  ed: Editor,
  ub: UBReport,
  profile: Profile,
  st: RepairState,
  floor = 0,
): Repaired | undefined {
  let r: Repaired | undefined;
  if (isFloatSite(ed, ub)) {
    r = repairFloat(ed, ub);
    if (r) st.record(ub.node, ub.kind, r.rule);
    return r;
  }
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
      r = repairTermination(ed, profile, st, floor);
      break;
    case 'float-to-int-overflow':
    case 'float-inexact':
      break; // handled by repairFloat above
  }
  if (r) st.record(ub.node, ub.kind, r.rule);
  return r;
}
