import type { Program } from './nodes.js';
import { walkProgram } from './visit.js';

/** Operations that could hit arithmetic UB, and how many of them are wrapped in safe-math calls. */
export interface WrappedShare {
  /** Safe-math wrappers. */
  readonly wrapped: number;
  /** Arithmetic operations of the kinds a wrapper can guard (+ − * / % << >>, unary −, their compound forms, ++/--), wrapped or raw. */
  readonly operations: number;
}

/**
 * Counts the operations Csmith would wrap and how many Kiln wrapped. Csmith wraps every one of
 * them; Kiln wraps only the sites that kept hitting UB at run time.
 */
export function wrappedShare(p: Program): WrappedShare {
  let wrapped = 0;
  let operations = 0;
  walkProgram(p, (n) => {
    switch (n.kind) {
      case 'safe':
        wrapped++;
        operations++;
        break;
      case 'binary':
        if (n.op === '+' || n.op === '-' || n.op === '*' || n.op === '/' || n.op === '%' || n.op === '<<' || n.op === '>>') operations++;
        break;
      case 'unary':
        if (n.op === '-') operations++;
        break;
      case 'assign':
        if (n.op !== '=' && n.op !== '&=' && n.op !== '|=' && n.op !== '^=') operations++;
        break;
      case 'incdec':
        operations++;
        break;
    }
  });
  return { wrapped, operations };
}
