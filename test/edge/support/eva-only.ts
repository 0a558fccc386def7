// Programs whose undefined behaviour only Frama-C's Eva finds (unsequenced accesses: no sanitizer
// nor valgrind sees them), each placed on a line it shares with another statement: one the run
// never reaches, one it runs, or one whose alarm a probe build or a sequence point dismisses
// (short-circuit operands, a pointer moved between objects, a sub-array access, a variable
// initialised on the path taken, a write a call orders, an assertion Eva proves later). Each
// alarm must be judged for its own statement, never for the whole line. `kiln check` must call
// each one `ub`, at the marked line; its `twin` (the same program without the UB) must be clean.
// Shared by test/edge/check.test.ts and bench:check.

/** One hand-written program with unsequenced UB on a shared line. */
export interface EvaOnlyCase {
  readonly name: string;
  /** What shares the line with the UB. */
  readonly beside: string;
  readonly text: string;
  /** The same program with the UB statement made defined. */
  readonly twin: string;
  /** The 1-based line of the UB (marked `UB`). */
  readonly line: number;
}

const UB = 'i = i++ + 1;';
const DEFINED = 'i = i + 1;';

function program(name: string, beside: string, body: string): EvaOnlyCase {
  const text = `#include <stdio.h>\nvolatile int c = 0;\nint i = 1, x, s;\n${body}`;
  return {
    name,
    beside,
    text,
    twin: text.replace(UB, DEFINED),
    line: text.split('\n').findIndex((l) => l.includes('/* UB */')) + 1,
  };
}

/** Every case; the UB is `i = i++ + 1;`, executed once. */
export const EVA_ONLY_CASES: readonly EvaOnlyCase[] = [
  program(
    'never-run',
    'a statement the run never reaches (an if branch not taken)',
    `int main(void) {\n  if (c) {\n    x = 1; } else { ${UB} } /* UB */\n  printf("%d %d\\n", x, i);\n  return 0;\n}\n`,
  ),
  program(
    'runs',
    'a statement the run reaches',
    `int main(void) {\n  x = 1; ${UB} /* UB */\n  printf("%d %d\\n", x, i);\n  return 0;\n}\n`,
  ),
  program(
    'short-circuit',
    'a write in a && operand the run never evaluates',
    `int main(void) {\n  int l = 5;\n  l = (c && (l = 1)); ${UB} /* UB */\n  printf("%d %d\\n", l, i);\n  ` +
      `return 0;\n}\n`,
  ),
  program(
    'sequence-point',
    "a write a call's argument orders",
    `int g;\nint f(int v) { return v + 1; }\nint main(void) {\n  g = f(g = 1); ${UB} /* UB */\n  printf("%d ` +
      `%d\\n", g, i);\n  return 0;\n}\n`,
  ),
  program(
    'pointer',
    'a read through a pointer Eva may see null, moved to another object',
    `int g6 = 7, g7[2] = {8, 9};\nint *p = &g6;\nint main(void) {\n  if (c) p = 0; else p = &g7[1];\n  x = ` +
      `*p; ${UB} /* UB */\n  printf("%d %d\\n", x, i);\n  return 0;\n}\n`,
  ),
  program(
    'sub-array',
    'a write to an element beside its row (a sub-array Eva counts as accessed)',
    `int a[2][3];\nint main(void) {\n  a[1][2] = (a[1][0] = 5); ${UB} /* UB */\n  printf("%d %d\\n", ` +
      `a[1][2], i);\n  return 0;\n}\n`,
  ),
  program(
    'initialised',
    'a read of a local Eva may see uninitialised, set on the path taken',
    `int main(void) {\n  int t;\n  if (!c) t = 3;\n  s = t; ${UB} /* UB */\n  printf("%d %d\\n", s, i);\n  ` +
      `return 0;\n}\n`,
  ),
  program(
    'proven',
    'an alarm Eva proves later (two fields of one struct)',
    `struct S { volatile short f0; long f1[5]; };\nstruct S g = {1, {1, 2, 3, 4, 5}};\nint main(void) {\n  ` +
      `x = (int)(g.f1[3] & (++g.f0)); ${UB} /* UB */\n  printf("%d %d\\n", x, i);\n  return 0;\n}\n`,
  ),
];
