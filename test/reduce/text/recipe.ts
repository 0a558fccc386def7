import type { Pass, PassContext } from '../../../src/reduce/text/pass.js';
import { CParser } from '../../../src/reduce/text/parser.js';

/** A fresh pass context. */
export function context(): PassContext {
  return { parser: new CParser() };
}

/**
 * The one recipe every pass test follows: walk the pass's state machine from `init` through
 * `advance` (as if every candidate were rejected) and collect every candidate text it proposes.
 */
export function allTransforms(pass: Pass, text: string, limit = 10_000): string[] {
  const ctx = context();
  const out: string[] = [];
  for (let s = pass.init(text, ctx); s !== null && out.length < limit; s = pass.advance(text, s, ctx)) {
    const r = pass.transform(text, s, ctx);
    if (r.kind === 'stop') break;
    if (r.kind === 'ok') out.push(r.text);
  }
  return out;
}

/** Collapses runs of blanks so expectations do not depend on layout details. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
