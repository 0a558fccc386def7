// The allocation-free visitors must agree with `children`, the one definition of child order:
// walks, transforms and the interpreter's and emitter's indexes all rely on that order.
import { describe, expect, it } from 'vitest';
import { MODES } from '../../src/gen/mode.js';
import { parsePolicy } from '../../src/gen/policy.js';
import type { Node } from '../../src/ir/nodes.js';
import { children, forEachChild, mapChildren, walkProgram } from '../../src/ir/visit.js';
import { generateProgram } from '../../src/repair/generate.js';

describe('visitors', () => {
  it('forEachChild visits exactly children(n), in order; mapChildren with the identity allocates nothing', () => {
    const policy = parsePolicy({ features: { floats: true } }, 'small');
    const kinds = new Set<string>();
    for (const mode of MODES) {
      for (let seed = 1; seed <= 8; seed++) {
        const r = generateProgram(seed, policy, mode);
        if (!r.ok) continue;
        walkProgram(r.program, (n) => {
          kinds.add(n.kind);
          const seen: Node[] = [];
          forEachChild(n, (c) => seen.push(c));
          expect(seen).toEqual(children(n));
          expect(mapChildren(n, (c) => c)).toBe(n);
        });
      }
    }
    // Every statement and expression kind the generators produce was seen.
    for (const k of [
      'binary',
      'unary',
      'cast',
      'cond',
      'call',
      'assign',
      'incdec',
      'comma',
      'index',
      'field',
      'deref',
      'addr',
      'init-list',
      'if',
      'for',
      'switch',
      'goto',
      'label',
      'hash',
      'check',
    ])
      expect(kinds).toContain(k);
  });
});
