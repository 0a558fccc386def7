import type { Block, FuncDecl, Node, Program, Stmt } from './nodes.js';
import { children, isStmt, walk } from './visit.js';

/**
 * Structural rules of C that types do not capture, checked for programs built by rewrites
 * (reducers, mutators): every `goto` targets a label of its own function, and so does every
 * entry of an `igoto`'s table (which is not empty), `break` is inside a
 * loop or switch, `continue` inside a loop, `case` labels sit in a switch body (at any depth of it), and ids
 * are unique. Returns the first violation, or undefined.
 */
export function structuralError(p: Program): string | undefined {
  const seen = new Set<number>();
  let dup: number | undefined;
  const count = (n: Node): void =>
    walk(n, (x) => {
      if (seen.has(x.id)) dup ??= x.id;
      seen.add(x.id);
    });
  p.globals.forEach(count);
  p.funcs.forEach(count);
  if (dup !== undefined) return `duplicate node id ${dup}`;
  if (!p.funcs.some((f) => f.id === p.main)) return 'no main function';
  for (const f of p.funcs) {
    const e = functionError(f);
    if (e) return `${f.name}: ${e}`;
  }
  return undefined;
}

function functionError(f: FuncDecl): string | undefined {
  const labels = new Set<number>();
  walk(f.body, (n) => {
    if (n.kind === 'label') labels.add(n.id);
  });
  let error: string | undefined;
  // `caseOk`: inside a switch body, at any depth (a case label may sit in a nested block, if or
  // loop of its switch: Duff's device); `inSwitch`: where `break` leaves a switch.
  const visit = (s: Stmt, inLoop: boolean, inSwitch: boolean, caseOk: boolean): void => {
    if (error) return;
    switch (s.kind) {
      case 'goto':
        if (!labels.has(s.label)) error = `goto to a missing label ${s.label}`;
        return;
      case 'igoto': {
        if (s.labels.length === 0) error = 'indirect goto with an empty table';
        const missing = s.labels.find((l) => !labels.has(l));
        if (missing !== undefined) error = `indirect goto to a missing label ${missing}`;
        return;
      }
      case 'break':
        if (!inLoop && !inSwitch) error = 'break outside a loop or switch';
        return;
      case 'continue':
        if (!inLoop) error = 'continue outside a loop';
        return;
      case 'case':
        if (!caseOk) error = 'case label outside a switch body';
        return;
      case 'block':
        for (const c of s.stmts) visit(c, inLoop, inSwitch, caseOk);
        return;
      case 'if':
        visit(s.then, inLoop, inSwitch, caseOk);
        if (s.else) visit(s.else, inLoop, inSwitch, caseOk);
        return;
      case 'for':
        visit(s.body, true, false, caseOk);
        return;
      case 'switch':
        // Its locals would not be printed, and a jump to a case would skip their declaration.
        if (s.body.locals.length) error = 'a switch body declares locals';
        for (const c of (s.body as Block).stmts) visit(c, inLoop, true, true);
        return;
      default:
        for (const c of children(s)) if (isStmt(c)) visit(c, inLoop, inSwitch, caseOk);
    }
  };
  visit(f.body, false, false, false);
  return error;
}
