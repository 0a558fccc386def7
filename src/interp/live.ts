import type { Program, Stmt } from '../ir/nodes.js';
import { isStmt, walk } from '../ir/visit.js';
import type { Profile } from './interpret.js';

/** How much of a program's test code ran: the live metrics of `kiln gen --json` and `kiln stats`. */
export interface LiveStats {
  /** Statements of the test code (every function but `main`, whose statements are the checksum harness). */
  readonly statements: number;
  /** Those executed at least once. */
  readonly liveStatements: number;
  /** Functions of the test code, and those entered at least once. */
  readonly functions: number;
  readonly liveFunctions: number;
  /** `if` statements executed at least twice, and those whose two sides both ran. */
  readonly repeatedIfs: number;
  readonly balancedIfs: number;
}

/**
 * Counts the statements of the test code and those the profile saw run. Blocks, labels and
 * `case` labels are not statements here: they print no code of their own, and counting them
 * would make a block of two statements weigh three.
 */
export function liveStats(p: Program, profile: Profile): LiveStats {
  let statements = 0;
  let liveStatements = 0;
  let functions = 0;
  let liveFunctions = 0;
  let repeatedIfs = 0;
  let balancedIfs = 0;
  const ran = (s: Stmt | undefined): number => (s ? (profile.stmtCounts.get(s.id) ?? 0) : 0);
  for (const f of p.funcs) {
    if (f.id === p.main) continue;
    functions++;
    if (ran(f.body) > 0) liveFunctions++;
    walk(f.body, (n) => {
      if (!isStmt(n)) return false;
      if (n.kind === 'if') {
        const runs = ran(n);
        if (runs >= 2) {
          repeatedIfs++;
          const then = ran(n.then);
          if (then > 0 && then < runs) balancedIfs++;
        }
      }
      if (n.kind === 'block' || n.kind === 'label' || n.kind === 'case') return;
      statements++;
      if (ran(n) > 0) liveStatements++;
    });
  }
  return { statements, liveStatements, functions, liveFunctions, repeatedIfs, balancedIfs };
}
