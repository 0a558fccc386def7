// What each compiler accepts beyond C11 (`__int128`, `_BitInt(N)` up to a width, GNU labels as
// values, GNU vectors and their builtins), probed once per compiler and kept in Kiln's cache
// folder, and which configurations may test a program that needs them.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Policy } from '../gen/policy.js';
import type { ProgramRequires, VectorBuiltins } from '../ir/census.js';
import type { Compiler } from './compilers.js';
import { runProcess } from './process.js';
import { cacheDir } from './roots.js';
import { TempRoot } from './tempdir.js';

/** The integer types a compiler accepts, and whether it takes computed gotos. */
export interface CompilerCapabilities {
  readonly int128: boolean;
  /** The widest `_BitInt(N)` it accepts (`__BITINT_MAXWIDTH__`), 0 without `_BitInt`. */
  readonly bitIntMaxWidth: number;
  /**
   * GNU labels as values as Kiln prints them (`static void *const t[] = { &&a, &&b }; goto *t[i];`).
   * Measured: gcc, clang, tcc 0.9.27 and pcc 1.2.0.DEVEL accept it. pcc fails with an internal
   * "compiler error: label 0 outside boundaries" on `goto *&&a;` (a label's address as the
   * goto's operand), which is why the emitter never prints that form.
   */
  readonly labelValues: boolean;
  /**
   * GNU vector types (`vector_size`) with their operators and lane subscripts, and which vector
   * builtins it has; undefined without vectors (tcc, pcc). Measured: gcc 12 has all three,
   * clang has `__builtin_shufflevector` and `__builtin_convertvector` but not `__builtin_shuffle`.
   */
  readonly vectors: VectorBuiltins | undefined;
}

/** Nothing beyond C11 (a compiler whose preprocessor cannot even be asked for its macros). */
const NO_CAPABILITIES: CompilerCapabilities = {
  int128: false,
  bitIntMaxWidth: 0,
  labelValues: false,
  vectors: undefined,
};

// biome-ignore format: embedded text
const VECTOR_PROBES = {
  types: 'typedef signed char v16 __attribute__((vector_size(16)));\n' +
    'typedef short v8 __attribute__((vector_size(16)));\n' +
    'v16 f(v16 a, v16 b, signed char c) { a[3] = b[1]; return (v16)((v8)(a < b) >> 1) + (a * c) - ~b; }\n',
  shufflevector: 'typedef int v4 __attribute__((vector_size(16)));\n' +
    'v4 f(v4 a, v4 b) { return __builtin_shufflevector(a, b, 0, 5, 2, 7); }\n',
  convertvector: 'typedef int v4 __attribute__((vector_size(16)));\n' +
    'typedef short v4s __attribute__((vector_size(8)));\n' +
    'v4s f(v4 a) { return __builtin_convertvector(a, v4s); }\n',
  shuffle: 'typedef int v4 __attribute__((vector_size(16)));\n' +
    'v4 f(v4 a, v4 b, v4 m) { return __builtin_shuffle(a, b, m) + __builtin_shuffle(a, m); }\n',
};

// By real path and target: a campaign names each compiler once, and tests probe the same few.
const probed = new Map<string, Promise<CompilerCapabilities>>();

/**
 * The compiler's capabilities: its predefined macros (`cc -dM -E`: `__SIZEOF_INT128__`,
 * `__BITINT_MAXWIDTH__`), each confirmed by compiling a tiny program that uses it (a macro the
 * front end defines but a back end refuses counts as absent), and a tiny program with a computed
 * goto through a table of label addresses. Cached per process.
 */
export function compilerCapabilities(c: Compiler): Promise<CompilerCapabilities> {
  const key = `${c.realPath}\0${c.command}\0${c.target ?? ''}`;
  let p = probed.get(key);
  if (!p) probed.set(key, (p = cachedProbe(c)));
  return p;
}

/**
 * The probe's answer from the cache folder (`probes/`), or a new probe stored there. Each campaign
 * and each `kiln reduce` probed every compiler anew: seven compiles per compiler, about 0.3 s of
 * CPU, and a dozen compilers with the sid root's. The entry is keyed by what would change the
 * answer: the compiler's real path, size and modification time, its version line and target, and
 * the probe's own code (so a changed probe never reads an old answer). An answer with a compile
 * that timed out or was killed is not kept (a loaded machine is no evidence that a feature is
 * missing). The cache is best effort: an unreadable or unwritable folder only means probing.
 */
async function cachedProbe(c: Compiler): Promise<CompilerCapabilities> {
  let file: string | undefined;
  let key: string | undefined;
  try {
    const st = statSync(c.realPath);
    key = JSON.stringify({
      realPath: c.realPath,
      command: c.command,
      target: c.target ?? '',
      size: st.size,
      mtimeMs: st.mtimeMs,
      version: c.version,
      probe: createHash('sha256').update(probe.toString()).update(JSON.stringify(VECTOR_PROBES)).digest('hex'),
    });
    file = join(cacheDir(), 'probes', `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { key: string; capabilities: CompilerCapabilities };
    if (stored.key === key) return stored.capabilities;
  } catch {
    // No entry yet (or none possible): probe.
  }
  const { capabilities, definite } = await probe(c.command);
  if (file && key && definite) {
    try {
      mkdirSync(join(file, '..'), { recursive: true });
      // Written whole, then renamed: concurrent campaigns read an old entry or the new one.
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify({ key, capabilities })}\n`);
      renameSync(tmp, file);
    } catch {
      // A read-only cache folder: the next campaign probes again.
    }
  }
  return capabilities;
}

async function probe(command: string): Promise<{ capabilities: CompilerCapabilities; definite: boolean }> {
  // Each invocation in a fresh folder of a private temporary root, as a campaign's compiles are.
  const temp = TempRoot.create();
  let definite = true;
  const run = async (name: string, text: string, args: readonly string[]) => {
    const dir = await temp.dir('cc');
    const file = join(dir, `${name}.c`);
    writeFileSync(file, text);
    const r = await runProcess(command, [...args, file], { cwd: dir, timeoutMs: 60_000 });
    if (r.timedOut || r.signal) definite = false;
    return r;
  };
  try {
    const macros = await run('empty', '', ['-dM', '-E']);
    if (macros.status !== 0) return { capabilities: NO_CAPABILITIES, definite };
    const int128 = /^#define __SIZEOF_INT128__ 16$/m.test(macros.stdout);
    const width = Number(/^#define __BITINT_MAXWIDTH__ (\d+)/m.exec(macros.stdout)?.[1] ?? 0);
    const accepts = async (name: string, text: string): Promise<boolean> =>
      (await run(name, text, ['-c', '-o', `${name}.o`])).status === 0;
    const has128 =
      int128 && (await accepts('int128', 'unsigned __int128 f(__int128 a) { return (unsigned __int128)a * 3; }\n'));
    // The confirmation uses a width the campaign will draw at most (wider ones only cost time).
    const w = Math.min(width, 256);
    const hasBitInt =
      w >= 2 &&
      (await accepts(
        'bitint',
        `_BitInt(${w}) f(_BitInt(${w}) a, unsigned _BitInt(7) b) { return a / 3 + (b >> 1); }\n` +
          'struct S { unsigned _BitInt(12) f : 5; };\n',
      ));
    // No macro says whether a compiler takes labels as values: the form the emitter prints decides.
    const labelValues = await accepts(
      'labels',
      'int f(int i) { static void *const t[] = { &&a, &&b }; goto *t[i]; a: return 1; b: return 2; }\n',
    );
    const vectors = (await accepts('vectors', VECTOR_PROBES.types))
      ? {
          shufflevector: await accepts('shufflevector', VECTOR_PROBES.shufflevector),
          convertvector: await accepts('convertvector', VECTOR_PROBES.convertvector),
          shuffle: await accepts('shuffle', VECTOR_PROBES.shuffle),
        }
      : undefined;
    return { capabilities: { int128: has128, bitIntMaxWidth: hasBitInt ? width : 0, labelValues, vectors }, definite };
  } finally {
    temp.dispose();
  }
}

/** Whether a compiler with these capabilities accepts a program with these requirements. */
export function accepts(caps: CompilerCapabilities, req: ProgramRequires | undefined): boolean {
  if (!req) return true;
  if (req.int128 && !caps.int128) return false;
  if (req.labelValues && !caps.labelValues) return false;
  const v = req.vectors;
  if (v) {
    const c = caps.vectors;
    if (
      !c ||
      (v.shufflevector && !c.shufflevector) ||
      (v.convertvector && !c.convertvector) ||
      (v.shuffle && !c.shuffle)
    )
      return false;
  }
  return req.bitIntWidth <= caps.bitIntMaxWidth;
}

/**
 * The policy lowered to what the compilers accept. `some`: what at least one of them accepts (a
 * campaign: each test goes only to the compilers that accept its program, and every program has
 * one); `every`: what all of them accept (a soundness run, where every program must run on each).
 */
export function policyFor(p: Policy, all: readonly CompilerCapabilities[], need: 'some' | 'every'): Policy {
  const has = (f: (c: CompilerCapabilities) => boolean): boolean => (need === 'some' ? all.some(f) : all.every(f));
  const widths = all.map((c) => c.bitIntMaxWidth);
  const width = all.length === 0 ? 0 : need === 'some' ? Math.max(...widths) : Math.min(...widths);
  return {
    ...p,
    features: {
      ...p.features,
      int128: p.features.int128 && has((c) => c.int128),
      bitInt: p.features.bitInt && width > 0,
      labelValues: p.features.labelValues && has((c) => c.labelValues),
      vectors: p.features.vectors && has((c) => c.vectors !== undefined),
    },
    // A builtin no compiler has (or, with `every`, one some compiler lacks) is not drawn.
    choices: {
      ...p.choices,
      vectorBuiltins: {
        shufflevector: has((c) => !!c.vectors?.shufflevector) ? p.choices.vectorBuiltins.shufflevector : 0,
        convertvector: has((c) => !!c.vectors?.convertvector) ? p.choices.vectorBuiltins.convertvector : 0,
        shuffle: has((c) => !!c.vectors?.shuffle) ? p.choices.vectorBuiltins.shuffle : 0,
      },
    },
    limits: { ...p.limits, maxBitIntWidth: Math.min(p.limits.maxBitIntWidth, width) },
  };
}
