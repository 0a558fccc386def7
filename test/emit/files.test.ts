// emitFiles: one prog.c (exactly emitC's text) for one-file programs; for yarpgen programs a
// header and three translation units whose contents are pinned on a small hand-built program.
import { describe, expect, it } from 'vitest';
import { C } from '../../src/c/types.js';
import { emitC } from '../../src/emit/c.js';
import { emitFiles, isTranslationUnit, MAIN_SOURCE, SPLIT_FILES } from '../../src/emit/files.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { IRBuilder } from '../../src/ir/build.js';
import { arrayOf, qualify, VOID } from '../../src/ir/types.js';
import { interpret } from '../../src/interp/interpret.js';
import { generateProgram } from '../../src/repair/generate.js';

/** A tiny program of the yarpgen shape: one const input, one input array, one mixed, one output. */
function tiny() {
  const b = new IRBuilder();
  const k = b.global('in_1', qualify(C.int32, { const: true }), b.lit(7), false);
  const a = b.global('in_2', arrayOf(C.uint8, 2), undefined, false);
  const m = b.global('var_1', C.int64, undefined, false);
  const o = b.global('out_1', C.uint16, undefined, false);
  const init = b.func(
    'init',
    VOID,
    [],
    b.block([
      b.stmt(b.assign(b.idx(b.v(a), b.lit(0)), b.lit(200, C.uint8))),
      b.stmt(b.assign(b.idx(b.v(a), b.lit(1)), b.lit(3, C.uint8))),
      b.stmt(b.assign(b.v(m), b.lit(-5n, C.int64))),
      b.stmt(b.assign(b.v(o), b.lit(0, C.uint16))),
    ]),
    undefined,
    false,
  );
  const local = b.local('l_1', C.int32, b.bin('+', b.v(k), b.idx(b.v(a), b.lit(1))));
  const test = b.func(
    'test_1',
    VOID,
    [],
    b.block(
      [
        b.if(
          b.bin('<', b.v(local), b.v(m)),
          b.block([b.stmt(b.assign(b.v(o), b.lit(1, C.uint16)))]),
          b.block([b.stmt(b.assign(b.v(m), b.safe('*', b.v(m), b.v(local))))]),
        ),
      ],
      [local],
    ),
    undefined,
    false,
  );
  const main = b.func(
    'main',
    C.int,
    [],
    b.block([b.stmt(b.call(init, [])), b.stmt(b.call(test, [])), b.hash(b.v(m)), b.hash(b.v(o))]),
    undefined,
    false,
  );
  return b.program({
    globals: [k, a, m, o],
    funcs: [init, test, main],
    main,
    meta: { mode: 'yarpgen', safeMath: 'function' },
  });
}

describe('emitFiles', () => {
  it('gives one-file programs exactly emitC’s text, as prog.c', () => {
    const g = generateProgram(3, parsePolicy({}, 'small'));
    if (!g.ok) expect.unreachable(g.reason);
    const opts = { expected: g.expected, header: ['seed 3'] };
    expect(emitFiles(g.program, opts)).toEqual([{ name: MAIN_SOURCE, content: emitC(g.program, opts) }]);
  });

  it('prints a yarpgen program as init.h, init.c, func.c and driver.c', () => {
    const p = tiny();
    const r = interpret(p);
    if (!r.ok) expect.unreachable(r.ub.kind);
    const files = emitFiles(p, { expected: r.output.trimEnd(), header: ['seed 0'] });
    expect(files.map((f) => f.name)).toEqual(['init.h', 'init.c', 'func.c', 'driver.c']);
    expect(files.filter((f) => isTranslationUnit(f.name)).map((f) => f.name)).toEqual([
      SPLIT_FILES.init,
      SPLIT_FILES.func,
      SPLIT_FILES.driver,
    ]);
    const [header, init, func, driver] = files.map((f) => f.content.replace(/^\/\*[\s\S]*?\*\/\n/gm, ''));
    for (const f of files)
      expect(f.content.startsWith(`/* kiln: expected "${r.output.trimEnd()}" */\n/*\n * seed 0\n`)).toBe(true);
    expect(header).toBe(
      [
        '#ifndef KILN_INIT_H',
        '#define KILN_INIT_H',
        '#include <stdint.h>',
        '',
        'extern const int32_t in_1;',
        'extern uint8_t in_2[2];',
        'extern int64_t var_1;',
        'extern uint16_t out_1;',
        '',
        'void init(void);',
        'void test_1(void);',
        '',
        '#endif',
        '',
      ].join('\n'),
    );
    expect(init).toBe(
      [
        '#include "init.h"',
        '',
        'const int32_t in_1 = 7;',
        'uint8_t in_2[2];',
        'int64_t var_1;',
        'uint16_t out_1;',
        '',
        'void init(void)',
        '{',
        '    in_2[0] = 200;',
        '    in_2[1] = 3;',
        '    var_1 = (-5L);',
        '    out_1 = 0;',
        '}',
        '',
      ].join('\n'),
    );
    // The test unit: its safe-math wrapper, the function, and no value of any global.
    expect(func).toContain('#include "init.h"\n\nstatic int64_t kiln_mul_i64(int64_t a, int64_t b)\n');
    expect(func).toContain(
      [
        'void test_1(void)',
        '{',
        '    int32_t l_1 = in_1 + in_2[1];',
        '    if (l_1 < var_1)',
        '    {',
        '        out_1 = 1;',
        '    }',
        '    else',
        '    {',
        '        var_1 = kiln_mul_i64(var_1, l_1);',
        '    }',
        '}',
        '',
      ].join('\n'),
    );
    expect(func).not.toMatch(/= 7|200|\(-5L\)/);
    expect(driver).toContain(
      '#include <stdio.h>\n#include "init.h"\n\nstatic uint64_t kiln_crc = 0xCBF29CE484222325ULL;',
    );
    expect(driver).toContain(
      [
        'int main(void)',
        '{',
        '    init();',
        '    test_1();',
        '    kiln_hash((uint64_t)(var_1));',
        '    kiln_hash((uint64_t)(out_1));',
        '    printf("checksum = %016llX\\n", (unsigned long long)kiln_crc);',
        '    return 0;',
        '}',
      ].join('\n'),
    );
  });

  it('prefixes every file-scope name of a split program when asked (batching); compact prints one file', () => {
    const files = emitFiles(tiny(), { prefix: 'q_' });
    const text = files.map((f) => f.content).join('\n');
    expect(text).toContain('extern const int32_t q_in_1;');
    expect(text).toContain('int q_main(void)');
    expect(text).toContain('q_kiln_hash((uint64_t)(q_var_1));');
    expect(text).toContain('static int64_t q_kiln_mul_i64(');
    expect(text).toContain('#ifndef KILN_Q_INIT_H');
    expect(text).not.toMatch(/[^_]\b(in_1|var_1|out_1|kiln_crc)\b/);
    expect(emitFiles(tiny(), { compact: true }).map((f) => f.name)).toEqual([MAIN_SOURCE]);
  });

  it('refuses statements outside the loop-free subset rather than printing them wrongly', () => {
    const p = tiny();
    const b = IRBuilder.continuing(p);
    const test = p.funcs[1]!;
    const looped = { ...test, body: b.block([b.for(undefined, b.lit(0), undefined, b.block([]))]) };
    expect(() => emitFiles({ ...p, funcs: [p.funcs[0]!, looped, p.funcs[2]!] })).toThrow(
      /for is not printed in the split layout/,
    );
  });
});
