import { describe, expect, it } from 'vitest';
import { CParser } from '../../../src/reduce/text/parser.js';

describe('CParser.errorCount', () => {
  it('accepts unnamed bit-fields (Kiln emits `unsigned : 0;` to end a storage unit)', () => {
    const p = new CParser();
    expect(p.errorCount('struct S { signed a : 3; unsigned : 0; int b : 2; unsigned int : 5; };\n')).toBe(0);
    expect(p.errorCount('struct T { const unsigned : 0; };\n')).toBe(0);
  });

  it('still counts a missing name that is not a bit-field, and real errors', () => {
    const p = new CParser();
    expect(p.errorCount('struct S { int ; };\nint x = ;\n')).toBeGreaterThan(0);
    expect(p.errorCount('int f(void) { return 1 + ; }\n')).toBeGreaterThan(0);
    expect(p.errorCount('struct S { int : ; };\n')).toBeGreaterThan(0);
  });
});
