import type { FuncAttr, Program } from '../ir/nodes.js';
import { walkProgram } from '../ir/visit.js';

/**
 * Printing of the facts and hints EMI variants carry (`__builtin_expect`, `__builtin_unreachable`,
 * `__builtin_assume`, function attributes). A variant must never fail to compile because of
 * Kiln, and compilers differ in what they accept (tcc and pcc know few of these; `noipa` and
 * `optimize` are gcc's, `__builtin_assume` clang's), so the file asks the compiler itself with
 * `__has_builtin` and `__has_attribute` and turns whatever it lacks into a no-op. Every one of
 * these is a hint or a fact that holds, so dropping it never changes the program's output.
 */

/** The macro a function attribute is printed as (`noinline` → `KILN_NOINLINE`). */
function attributeMacro(a: FuncAttr): string {
  const m = `KILN_${a.name.toUpperCase()}`;
  return a.name === 'optimize' ? `${m}("${a.arg}")` : m;
}

/** The attribute macros of a function's declaration, each followed by a space (or ''). */
export function attributePrefix(attrs: readonly FuncAttr[] | undefined): string {
  return attrs?.length ? attrs.map((a) => `${attributeMacro(a)} `).join('') : '';
}

/** The preprocessor lines a program's facts need (none when it has none), printed before any function. */
export function factsPrelude(p: Program): string[] {
  let builtins = false;
  const attrs = new Set<FuncAttr['name']>();
  walkProgram(p, (n) => {
    if (n.kind === 'unreachable' || n.kind === 'assume' || (n.kind === 'if' && n.expect !== undefined)) builtins = true;
    if (n.kind === 'func') for (const a of n.attributes ?? []) attrs.add(a.name);
    return n.kind !== 'var-decl';
  });
  if (!builtins && attrs.size === 0) return [];
  const out = ['/* Facts and hints: each one a compiler lacks becomes a no-op (they never change the output). */'];
  if (builtins) {
    const fallback: Array<[string, string]> = [
      ['__builtin_expect', '#define __builtin_expect(e, c) (e)'],
      ['__builtin_unreachable', '#define __builtin_unreachable() ((void)0)'],
      ['__builtin_assume', '#define __builtin_assume(e) ((void)0)'],
    ];
    out.push('#ifdef __has_builtin');
    for (const [b, d] of fallback) out.push(`#if !__has_builtin(${b})`, d, '#endif');
    out.push('#else', ...fallback.map(([, d]) => d), '#endif');
  }
  const sorted = [...attrs].sort();
  if (sorted.length) {
    out.push('#ifdef __has_attribute');
    for (const a of sorted) {
      const m = `KILN_${a.toUpperCase()}`;
      const def =
        a === 'optimize' ? `#define ${m}(x) __attribute__((optimize(x)))` : `#define ${m} __attribute__((${a}))`;
      out.push(`#if __has_attribute(${a})`, def, '#endif');
    }
    out.push('#endif');
    for (const a of sorted) {
      const m = `KILN_${a.toUpperCase()}`;
      out.push(`#ifndef ${m}`, a === 'optimize' ? `#define ${m}(x)` : `#define ${m}`, '#endif');
    }
  }
  out.push('');
  return out;
}
