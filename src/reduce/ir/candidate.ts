import { emitC } from '../../emit/c.js';
import { CompiledProgram, type Profile } from '../../interp/interpret.js';
import type { Program } from '../../ir/nodes.js';
import { retypeProgram, typeError } from '../../ir/retype.js';
import { structuralError } from '../../ir/validate.js';

/** A reduction candidate that the reference interpreter ran cleanly: UB-free, with its exact output. */
export interface Candidate {
  readonly program: Program;
  /** The exact line the program prints (recomputed for every candidate). */
  readonly expected: string;
  /** The program printed in the compact layout, first line stating the expected output. */
  readonly source: string;
  /** What the run executed, with each arithmetic expression's value (for value-replacement passes). */
  readonly profile: Profile;
}

/** Limits of the re-execution of one candidate. */
export interface CheckLimits {
  readonly maxSteps: number;
}

/**
 * Runs a candidate program in the reference interpreter: undefined when it hits UB, does not
 * terminate within the budget, or is not a well-formed program (a rewrite broke it); else the
 * candidate with its expected output. This is what keeps a reduction from drifting into UB.
 *
 * It also keeps the program well typed. Expression types are recomputed from the declarations
 * first (an edit that put an `int8_t` operand where an `int` expression was, or changed a
 * variable's type, leaves its parents' types stale), so the interpreter computes what a C
 * compiler would; then every context those types flow into is checked (`typeError`): a candidate
 * that stores `&g` (now an `int *`) in a `uint64_t *` field is refused, not printed.
 */
export function checkCandidate(program: Program, limits: CheckLimits): Candidate | undefined {
  if (structuralError(program)) return undefined;
  try {
    program = retypeProgram(program);
  } catch {
    return undefined; // an operand of the wrong kind (IRTypeError)
  }
  if (typeError(program)) return undefined;
  let run;
  try {
    run = CompiledProgram.compile(program, { limits: { maxSteps: limits.maxSteps }, profileNodes: true }).run();
  } catch {
    return undefined; // an ill-formed candidate (e.g. a goto to a removed label)
  }
  if (!run.ok) return undefined;
  const expected = run.output.trimEnd();
  let source: string;
  try {
    source = emitC(program, { expected, compact: true });
  } catch {
    return undefined;
  }
  return { program, expected, source, profile: run.profile };
}

/**
 * One reducer pass: its candidate edits of the current program, in preference order; each is a
 * thunk giving the edited program (or undefined when the edit does not apply). The passes are in
 * passes.ts (their order) and the modules it imports.
 */
export interface IRPass {
  readonly name: string;
  /** Candidate edits of the current program, best first. */
  candidates(current: Candidate): (() => Program | undefined)[];
  /**
   * After a success, enumerate this pass's candidates from the start (delta debugging) rather than from where it
   * stopped.
   */
  readonly restart?: boolean;
}
