// A bit-field's initialiser is a value the field holds. Under 8 bits the constant used to be
// drawn from the 8-bit type's range (`unsigned f : 6` = 252), which gcc reports with -Woverflow,
// quoting the whole source line: on an array of structs initialised on one long line, a thousand
// such warnings made hundreds of megabytes of diagnostics and a compile a campaign took for a
// hang. (Assignments may still store wider values: the conversion is gcc's and clang's, and the
// interpreter's, modulo the width; gcc warns about a constant one, once per statement.)
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/gen/policy.js';
import { generateRaw } from '../../src/gen/program.js';
import type { Init, Program } from '../../src/ir/nodes.js';
import { namedFields, unqualified, type Type } from '../../src/ir/types.js';
import { walkProgram } from '../../src/ir/visit.js';

// Bit-fields in most structs that may have them (`_BitInt` ones are of their own type).
const POLICY = parsePolicy({
  features: { bitInt: false },
  choices: { bitfieldShare: 0.9 },
});

/** Each constant a narrow bit-field (under 8 bits) is initialised with, and whether it fits. */
function narrowInits(p: Program): { value: bigint; fits: boolean }[] {
  const out: { value: bigint; fits: boolean }[] = [];
  const visit = (t: Type, init: Init): void => {
    if (init.kind !== 'init-list') return;
    if (t.kind === 'array') for (const i of init.items) visit(t.of, i);
    else if (t.kind === 'union') visit(t.fields[0]!.type, init.items[0]!);
    else if (t.kind === 'struct')
      namedFields(t).forEach(({ field }, k) => {
        const item = init.items[k]!;
        if (field.bits === undefined) visit(field.type, item);
        if (field.bits === undefined || field.bits >= 8 || item.kind !== 'const') return;
        const v = BigInt(item.value);
        const signed = field.type.kind === 'int' && field.type.signed;
        out.push({ value: v, fits: v === (signed ? BigInt.asIntN(field.bits, v) : BigInt.asUintN(field.bits, v)) });
      });
  };
  walkProgram(p, (n) => {
    if (n.kind === 'var-decl' && n.init) visit(unqualified(n.type), n.init);
  });
  return out;
}

it('initialises narrow bit-fields with values of their width', () => {
  const inits = [1, 2, 3, 4, 5, 6, 7, 8].flatMap((seed) => narrowInits(generateRaw(seed, POLICY)));
  expect(inits.length).toBeGreaterThan(100);
  // Values that need the field's whole width are drawn (not only small ones).
  expect(inits.some((i) => i.value >= 32n || i.value < -8n)).toBe(true);
  expect(inits.filter((i) => !i.fits).slice(0, 5)).toEqual([]);
});
