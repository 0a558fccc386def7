import type { Block, FuncDecl, Program, Stmt } from '../ir/nodes.js';
import { transform } from '../ir/visit.js';

/**
 * Rewrites the statement lists of every block of every function: `f` returns the statements
 * that replace `s` (an empty list deletes it), or undefined to keep it. Blocks are rewritten
 * bottom-up, so `f` sees statements whose inner blocks are already rewritten (ids unchanged).
 */
export function rewriteStmts(p: Program, f: (s: Stmt, func: FuncDecl) => readonly Stmt[] | undefined): Program {
  let changed = false;
  const funcs = p.funcs.map((fn) => {
    const body = transform(fn.body, (n) => {
      if (n.kind !== 'block') return n;
      let out: Stmt[] | undefined;
      n.stmts.forEach((s, i) => {
        const r = f(s, fn);
        if (r !== undefined && !out) out = n.stmts.slice(0, i);
        if (out) out.push(...(r ?? [s]));
      });
      return out ? ({ ...n, stmts: out } satisfies Block) : n;
    }) as Block;
    if (body === fn.body) return fn;
    changed = true;
    return { ...fn, body };
  });
  return changed ? { ...p, funcs } : p;
}

/** Rewrites whole blocks (any block, bottom-up): `f` returns a replacement or the block itself. */
export function rewriteBlocks(p: Program, f: (b: Block, func: FuncDecl) => Block): Program {
  let changed = false;
  const funcs = p.funcs.map((fn) => {
    const body = transform(fn.body, (n) => (n.kind === 'block' ? f(n, fn) : n)) as Block;
    if (body === fn.body) return fn;
    changed = true;
    return { ...fn, body };
  });
  return changed ? { ...p, funcs } : p;
}

/** Whether a statement contains a label or `case` (deleting or moving it could break a jump). */
export function holdsJumpTarget(s: Stmt): boolean {
  let found = false;
  const visit = (x: Stmt): void => {
    if (found) return;
    if (x.kind === 'label' || x.kind === 'case') found = true;
    else if (x.kind === 'block') x.stmts.forEach(visit);
    else if (x.kind === 'if') {
      visit(x.then);
      if (x.else) visit(x.else);
    } else if (x.kind === 'for' || x.kind === 'switch') visit(x.body);
  };
  visit(s);
  return found;
}
