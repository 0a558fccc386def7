// Several Kiln programs in one translation unit: compiler start-up dominates the cost of
// compiling small programs, so tests batch them (each keeps its own globals and checksum).
import type { Program } from '../../src/ir/nodes.js';
import { emitC } from '../../src/emit/c.js';

/** One C file running each program in turn; each prints its own `checksum = …` line. */
export function batchSource(programs: readonly Program[]): string {
  const parts = programs.map((p, i) => emitC(p, { prefix: `p${i}_` }));
  const calls = programs.map((_, i) => `    p${i}_main();`).join('\n');
  return `${parts.join('\n')}\nint main(void)\n{\n${calls}\n    return 0;\n}\n`;
}
