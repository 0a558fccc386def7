import { removeListElement, type Edit } from '../edits.js';
import { editListPass, type Pass } from '../pass.js';
import type { SyntaxNode } from '../parser.js';
import { functionDeclarator, functionName, namedNodes } from './syntax.js';

/** Parameters of a parameter list, or null when it cannot lose one (`(void)`, `()`, variadic). */
function parameters(list: SyntaxNode): SyntaxNode[] | null {
  const ps = list.namedChildren.filter((c) => c.type !== 'comment');
  if (ps.some((p) => p.type !== 'parameter_declaration')) return null;
  if (ps.length === 0 || (ps.length === 1 && ps[0]!.text.trim() === 'void')) return null;
  return ps;
}

/** The identifier a parameter declares, if any (`int *p` → `p`). */
function parameterName(p: SyntaxNode): string | null {
  let d = p.childForFieldName('declarator');
  while (d && d.type !== 'identifier') d = d.childForFieldName('declarator');
  return d ? d.text : null;
}

/**
 * Removes the i-th parameter of a function together with the i-th argument of every call of it
 * (and of its prototypes), so arity stays consistent. A function qualifies when every call and
 * prototype agrees on its arity; functions only called here (macros, library functions) lose
 * arguments at every call. When the body still uses the parameter, it becomes a local
 * initialised to 0 at the top of the body.
 */
export function callArgsPass(): Pass<number> {
  return editListPass('call-args', (_text, tree) => {
    const nodes = namedNodes(tree.rootNode);
    const defs = new Map<string, SyntaxNode>();
    const protos = new Map<string, SyntaxNode[]>();
    for (const n of nodes) {
      if (n.type !== 'function_definition' && n.type !== 'declaration') continue;
      const fd = functionDeclarator(n);
      const name = fd && functionName(fd);
      if (!fd || !name) continue;
      const list = fd.childForFieldName('parameters');
      if (!list) continue;
      if (n.type === 'function_definition') defs.set(name, n);
      else protos.set(name, [...(protos.get(name) ?? []), list]);
    }
    const calls = new Map<string, SyntaxNode[]>();
    for (const n of nodes) {
      if (n.type !== 'call_expression') continue;
      const f = n.childForFieldName('function');
      const args = n.childForFieldName('arguments');
      if (f?.type === 'identifier' && args) calls.set(f.text, [...(calls.get(f.text) ?? []), args]);
    }
    const out: Edit[][] = [];
    // Functions defined here, then functions only called here (macros, library functions).
    const names = [...defs.keys(), ...[...calls.keys()].filter((n) => !defs.has(n))];
    for (const name of names) {
      const def = defs.get(name);
      const list = def ? functionDeclarator(def)!.childForFieldName('parameters')! : null;
      const params = list ? parameters(list) : null;
      if (list && !params) continue;
      const argLists = calls.get(name) ?? [];
      const args = argLists.map((l) => l.namedChildren.filter((c) => c.type !== 'comment'));
      const arity = params ? params.length : (args[0]?.length ?? 0);
      const protoLists = protos.get(name) ?? [];
      const protoParams = protoLists.map(parameters);
      if (protoParams.some((ps) => ps === null || ps.length !== arity)) continue;
      if (args.some((a) => a.length !== arity)) continue;
      const body = def?.childForFieldName('body');
      for (let i = 0; i < arity; i++) {
        const edits: Edit[] = list && params ? [removeListElement(list, params, i, 'void')] : [];
        for (const [k, l] of protoLists.entries()) edits.push(removeListElement(l, protoParams[k]!, i, 'void'));
        for (const [k, l] of argLists.entries()) edits.push(removeListElement(l, args[k]!, i, ''));
        const pname = params ? parameterName(params[i]!) : null;
        if (params && body && pname && new RegExp(`\\b${pname}\\b`).test(body.text)) {
          edits.push({ start: body.startIndex + 1, end: body.startIndex + 1, replacement: ` ${params[i]!.text} = 0;` });
        }
        out.push(edits);
      }
    }
    return out;
  });
}
