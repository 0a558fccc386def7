import type { FuncDecl, Program } from '../ir/nodes.js';
import { walk } from '../ir/visit.js';
import { YARPGEN_INIT } from '../gen/yarpgen.js';
import { HASH_PRIME, HASH_SEED } from '../interp/runtime.js';
import { emitC, nameTable, printBlock, printInit, safeUses, type EmitOptions } from './c.js';
import { attributePrefix, factsPrelude } from './facts.js';
import { declare } from './names.js';
import { safeDefinition } from './safe-math.js';
import { vectorTypedefs } from './vector.js';

/** One C file of an emitted program. */
export interface EmittedFile {
  readonly name: string;
  readonly content: string;
}

/** The file name of a single-translation-unit program. */
export const MAIN_SOURCE = 'prog.c';

/**
 * The files of a separately compiled program, in command-line order (the header first; it is not
 * compiled by itself). `init.c` defines the globals and `init()`, `func.c` holds the test
 * functions, `driver.c` holds `main` and the checksum: a compiler working on `func.c` sees only
 * `extern` declarations, never the values `init` gives (YARPGen's one optimisation barrier).
 */
export const SPLIT_FILES = { header: 'init.h', init: 'init.c', func: 'func.c', driver: 'driver.c' } as const;

/** Whether a file is a translation unit (given to the compiler) rather than a header. */
export function isTranslationUnit(name: string): boolean {
  return name.endsWith('.c');
}

/**
 * A program as the C files a compiler is given, in command-line order. Most modes emit one file,
 * `prog.c` (exactly `emitC`'s text); the `yarpgen` mode emits a header and three translation
 * units (see {@link SPLIT_FILES}) so that values set in one cannot be constant-folded into the
 * code of another. `compact` gives one file in any mode. With `prefix`, every file-scope name of
 * a split program is prefixed and `main` becomes `int <prefix>main(void)`, so several programs
 * can be concatenated file by file (tests batch programs this way).
 */
export function emitFiles(p: Program, opts: EmitOptions = {}): EmittedFile[] {
  if (p.meta.mode !== 'yarpgen' || opts.compact) return [{ name: MAIN_SOURCE, content: emitC(p, opts) }];
  return emitSplit(p, opts);
}

const INDENT = '    ';
type Names = ReturnType<typeof nameTable>;

/** The split layout of {@link SPLIT_FILES}. */
function emitSplit(p: Program, opts: EmitOptions): EmittedFile[] {
  const px = opts.prefix ?? '';
  const names = nameTable(p, px);
  const crc = `${px}kiln_crc`;
  const main = p.funcs.find((f) => f.id === p.main);
  if (!main) throw new Error('program has no main function');
  const others = p.funcs.filter((f) => f !== main);
  checkSubset(p.funcs);
  for (const f of others)
    if (f.isStatic) throw new Error(`function ${f.name} is static: it cannot be called from another translation unit`);
  const inInit = others.filter((f) => f.name === YARPGEN_INIT);
  const inFunc = others.filter((f) => f.name !== YARPGEN_INIT);
  const banner = (role: string): string[] => {
    const out: string[] = [];
    if (opts.expected !== undefined) out.push(`/* kiln: expected "${opts.expected}" */`);
    const lines = [...(opts.header ?? []), ...(p.meta.notes ?? []), role];
    out.push(`/*\n${lines.map((h) => ` * ${h}`).join('\n')}\n */`);
    return out;
  };
  const include = `#include "${SPLIT_FILES.header}"`;
  const guard = `KILN_${px.toUpperCase()}INIT_H`;

  const header = [
    ...banner(`Declarations shared by ${SPLIT_FILES.init}, ${SPLIT_FILES.func} and ${SPLIT_FILES.driver}; no values.`),
    `#ifndef ${guard}`,
    `#define ${guard}`,
    '#include <stdint.h>',
    '',
    ...factsPrelude(p),
    ...vectorTypedefs(p, px),
    ...p.globals.map((g) => `extern ${declare(g.type, px + g.name, px)};`),
    '',
    ...others.map((f) => `${signature(f, px)};`),
    '',
    `#endif`,
    '',
  ];

  const init = [
    ...banner('The globals and the values init() gives them (invisible to the test functions).'),
    include,
    '',
    ...p.globals.map((g) => `${declare(g.type, px + g.name, px)}${g.init ? ` = ${printInit(g.init, names)}` : ''};`),
    '',
    ...functions(p, inInit, names),
  ];

  const func = [...banner('The test functions.'), include, '', ...functions(p, inFunc, names)];

  const body = printBlock(main.body, names, 0).split('\n');
  body.splice(
    body.length - 1,
    0,
    `${INDENT}printf("checksum = %016llX\\n", (unsigned long long)${crc});`,
    `${INDENT}return 0;`,
  );
  const driver = [
    ...banner('The driver: runs init() and the tests, then hashes every output and mixed global.'),
    '#include <stdio.h>',
    include,
    '',
    `static uint64_t ${crc} = 0x${HASH_SEED.toString(16).toUpperCase()}ULL;`,
    `static void ${px}kiln_hash(uint64_t v)`,
    '{',
    `${INDENT}${crc} = (${crc} ^ v) * 0x${HASH_PRIME.toString(16).toUpperCase()}ULL;`,
    `${INDENT}${crc} ^= ${crc} >> 29;`,
    '}',
    '',
    ...safeDefinitions(p, [main], px),
    `int ${px}main(void)`,
    body.join('\n'),
    '',
  ];
  return [
    { name: SPLIT_FILES.header, content: header.join('\n') },
    { name: SPLIT_FILES.init, content: init.join('\n') },
    { name: SPLIT_FILES.func, content: func.join('\n') },
    { name: SPLIT_FILES.driver, content: driver.join('\n') },
  ];
}

/** The safe-math wrappers some functions use (static, so each translation unit has its own copy). */
function safeDefinitions(p: Program, fs: readonly FuncDecl[], px: string): string[] {
  const uses = safeUses({ ...p, globals: [], funcs: fs });
  return uses.length ? [...uses.map((u) => safeDefinition(u, p.meta.safeMath ?? 'function', px)), ''] : [];
}

/** Function definitions, after the wrappers they use. */
function functions(p: Program, fs: readonly FuncDecl[], names: Names): string[] {
  const out = safeDefinitions(p, fs, names.prefix);
  for (const f of fs) out.push(signature(f, names.prefix), printBlock(f.body, names, 0), '');
  return out;
}

function signature(f: FuncDecl, px: string): string {
  const params = f.params.length ? f.params.map((x) => declare(x.type, x.name)).join(', ') : 'void';
  return `${attributePrefix(f.attributes)}${f.isStatic ? 'static ' : ''}${declare(f.ret, `${px}${f.name}(${params})`)}`;
}

/** Refuses statements outside the loop-free subset the split layout is meant for. */
function checkSubset(fs: readonly FuncDecl[]): void {
  for (const f of fs)
    walk(f.body, (n) => {
      if (
        'kind' in n &&
        (n.kind === 'for' ||
          n.kind === 'switch' ||
          n.kind === 'goto' ||
          n.kind === 'igoto' ||
          n.kind === 'label' ||
          n.kind === 'break' ||
          n.kind === 'continue' ||
          n.kind === 'check')
      )
        throw new Error(`statement kind ${n.kind} is not printed in the split layout (loop-free programs only)`);
      if (n.kind === 'hash' && n.value.type.kind !== 'int') throw new Error('the split layout hashes integers only');
    });
}
