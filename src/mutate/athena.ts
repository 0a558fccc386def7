import type { Block, Program, VarDecl } from '../ir/nodes.js';

import { observablesOf, type Observable } from './env.js';
import { isDeadBlock, type PassContext, type PassResult } from './pass.js';
import { deadCode } from './synth.js';

/** Most observables offered to the code drawn for one dead block. */
const MAX_ENV = 32;

/**
 * Athena: inserts new code into blocks the base never ran (each with `probability`), drawn over
 * the variables in scope there (globals, parameters, enclosing locals). It never runs, so it
 * may be undefined if it did. Switch bodies are left alone: they are entered through their
 * labels, so "never entered" says nothing about their statements.
 */
export function athena(p: Program, cx: PassContext, probability: number): PassResult {
  const { b, rng, base } = cx;
  let applied = 0;
  const globals = p.globals;
  const funcs = p.funcs.map((fn) => {
    if (fn.id === p.main) return fn;
    const rewrite = (blk: Block, scope: readonly VarDecl[], switchBody: boolean): Block => {
      const inner = [...scope, ...blk.locals];
      const stmts = blk.stmts.map((s) => rewriteNested(s, inner));
      let out: Block = stmts.some((s, i) => s !== blk.stmts[i]) ? { ...blk, stmts } : blk;
      if (!switchBody && isDeadBlock(base, blk) && rng.chance(probability)) {
        const env: Observable[] = inner.flatMap((d) => observablesOf(d, undefined));
        const code = deadCode(b, rng, env.length > MAX_ENV ? rng.shuffle(env).slice(0, MAX_ENV) : env, 4);
        if (code.length) {
          const at = rng.int(0, out.stmts.length);
          out = { ...out, stmts: [...out.stmts.slice(0, at), ...code, ...out.stmts.slice(at)] };
          applied++;
        }
      }
      return out;
    };
    const rewriteNested = (s: Block['stmts'][number], scope: readonly VarDecl[]): Block['stmts'][number] => {
      switch (s.kind) {
        case 'block':
          return rewrite(s, scope, false);
        case 'if': {
          const then = rewrite(s.then, scope, false);
          const els = s.else ? rewrite(s.else, scope, false) : undefined;
          return then === s.then && els === s.else ? s : { ...s, then, else: els };
        }
        case 'for': {
          const body = rewrite(s.body, scope, false);
          return body === s.body ? s : { ...s, body };
        }
        case 'switch': {
          const body = rewrite(s.body, scope, true);
          return body === s.body ? s : { ...s, body };
        }
        default:
          return s;
      }
    };
    const body = rewrite(fn.body, [...globals, ...fn.params], false);
    return body === fn.body ? fn : { ...fn, body };
  });
  return { program: applied ? { ...p, funcs } : p, applied };
}
