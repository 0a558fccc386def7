import { describe, expect, it } from 'vitest';
import { parsePolicy, type SizePreset } from '../../src/gen/policy.js';
import { generateRaw } from '../../src/gen/program.js';
import type { Type } from '../../src/ir/types.js';
import { walkProgram } from '../../src/ir/visit.js';

function declaredIntWidths(t: Type, out: number[]): void {
  // A `_BitInt(N)` declaration may have any width N (it is a real type), but never a bit-field's
  // restricted one (declBits set): such a type is pushed as its negated width, which fails.
  if (t.kind === 'int' && t.bitPrecise) out.push(t.declBits === undefined ? 8 : -t.bits);
  else if (t.kind === 'int') out.push(t.bits);
  else if (t.kind === 'array') declaredIntWidths(t.of, out);
  else if (t.kind === 'ptr') declaredIntWidths(t.to, out);
}

describe('generator output shape', () => {
  for (const size of ['small', 'medium', 'large'] as SizePreset[]) {
    it(`${size}: declarations only use real integer types (never a bit-field's width-restricted type)`, () => {
      const policy = parsePolicy({}, size);
      // Fewer large programs: each takes as long to draw as several medium ones.
      for (let seed = 1; seed <= (size === 'large' ? 20 : 60); seed++) {
        const p = generateRaw(seed, policy);
        walkProgram(p, (n) => {
          if (n.kind === 'var-decl' || n.kind === 'func') {
            const widths: number[] = [];
            declaredIntWidths(n.kind === 'func' ? n.ret : n.type, widths);
            for (const w of widths) expect([8, 16, 32, 64, 128]).toContain(w);
          }
        });
      }
    });
  }
});
