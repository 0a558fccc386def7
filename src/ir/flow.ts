// The control-flow measure of a program (issue #37, arbitrary control flow): each function's
// statement-level control-flow graph, its loops found as strongly connected regions, and how many
// of them have several entries (irreducible loops), with the gotos that make them.
//
// The graph is built from a neutral statement tree (`FlowStmt`) so that Kiln's IR (here) and the
// tree-sitter syntax tree of any C file (src/reduce/text/flow.ts, for Csmith's programs) are
// measured by the same code: only the translation into `FlowStmt` differs.
import type { FuncDecl, Program, Stmt } from './nodes.js';

/**
 * A statement as the control-flow graph sees it. Expressions make no edges (`&&`, `||` and `?:`
 * included): every statement is one node.
 */
export type FlowStmt =
  /** Any statement that continues with the next one (expression, declaration, hash, ...). */
  | { readonly kind: 'simple' }
  | { readonly kind: 'seq'; readonly stmts: readonly FlowStmt[] }
  | { readonly kind: 'if'; readonly then: FlowStmt; readonly else: FlowStmt | undefined }
  /**
   * `for`, `while` and `do` loops. `test`: the loop has a condition (a `for (;;)` has none, so
   * its only way out is a jump). A `do` loop enters its body before the first test.
   */
  | { readonly kind: 'loop'; readonly form: 'for' | 'while' | 'do'; readonly test: boolean; readonly body: FlowStmt }
  /** Its `case` and `default` labels may sit anywhere inside `body` (Duff's device). */
  | { readonly kind: 'switch'; readonly body: FlowStmt }
  | { readonly kind: 'case'; readonly isDefault: boolean }
  | { readonly kind: 'break' }
  | { readonly kind: 'continue' }
  | { readonly kind: 'return' }
  | { readonly kind: 'goto'; readonly label: string }
  /** GNU `goto *e`: a jump to any of `labels`. */
  | { readonly kind: 'igoto'; readonly labels: readonly string[] }
  /** A label, and the statement it labels if the source gives one (C's `L: stmt`). */
  | { readonly kind: 'label'; readonly name: string; readonly body: FlowStmt | undefined };

/** The static control-flow figures of one function, or summed over a program's functions. */
export interface FlowMeasure {
  /** Functions measured. */
  readonly functions: number;
  /**
   * Back edges of a depth-first search from the function's entry (successors in source order):
   * edges to a statement on the search's stack. A structured loop has one.
   */
  readonly backEdges: number;
  /** Loops (strongly connected regions, nested ones included) entered at one statement only. */
  readonly naturalLoops: number;
  /** Loops entered at two or more statements: irreducible control flow. */
  readonly irreducibleLoops: number;
  /** `for`, `while` and `do` loops whose body holds a label that a jump from outside the loop targets. */
  readonly gotoIntoLoops: number;
  /**
   * Depth of the loop-nesting forest (0: no loop; structured and goto-made loops alike); over a
   * program, the deepest function's.
   */
  readonly maxLoopNesting: number;
  /** `goto` statements (static count). */
  readonly gotos: number;
  /** Indirect `goto *e` statements (static count). */
  readonly indirectGotos: number;
}

/** No functions. */
export const NO_FLOW: FlowMeasure = {
  functions: 0,
  backEdges: 0,
  naturalLoops: 0,
  irreducibleLoops: 0,
  gotoIntoLoops: 0,
  maxLoopNesting: 0,
  gotos: 0,
  indirectGotos: 0,
};

/** Two measures together: counts summed, the nesting depth the larger of the two. */
export function addFlow(a: FlowMeasure, b: FlowMeasure): FlowMeasure {
  return {
    functions: a.functions + b.functions,
    backEdges: a.backEdges + b.backEdges,
    naturalLoops: a.naturalLoops + b.naturalLoops,
    irreducibleLoops: a.irreducibleLoops + b.irreducibleLoops,
    gotoIntoLoops: a.gotoIntoLoops + b.gotoIntoLoops,
    maxLoopNesting: Math.max(a.maxLoopNesting, b.maxLoopNesting),
    gotos: a.gotos + b.gotos,
    indirectGotos: a.indirectGotos + b.indirectGotos,
  };
}

/** The measure of one function whose body is `body`. */
export function measureFlow(body: FlowStmt): FlowMeasure {
  const b = new GraphBuilder();
  const entry = b.nodeOf(body);
  b.build(body, b.exit);
  const loops = loopFigures(b.succ, entry);
  return {
    functions: 1,
    ...loops,
    gotoIntoLoops: b.gotoIntoLoops(),
    gotos: b.gotos,
    indirectGotos: b.indirectGotos,
  };
}

/**
 * Builds the graph: one node per statement, plus the exit, and per loop a test node (its
 * condition) and a latch (the step, where `continue` and the end of the body go).
 */
class GraphBuilder {
  readonly succ: number[][] = [];
  readonly exit = this.node();
  gotos = 0;
  indirectGotos = 0;
  private readonly nodes = new Map<FlowStmt, number>();
  private readonly labels = new Map<string, number>();
  private readonly breaks: number[] = [];
  private readonly continues: number[] = [];
  private readonly switches: { cases: number[]; hasDefault: boolean }[] = [];
  /** Ids of the loops around the statement being built, outermost first. */
  private readonly loopStack: number[] = [];
  private loopCount = 0;
  /** The loops around each label placed, and those around each jump with the labels it may reach. */
  private readonly labelLoops = new Map<string, readonly number[]>();
  private readonly jumps: { loops: readonly number[]; labels: readonly string[] }[] = [];

  node(): number {
    this.succ.push([]);
    return this.succ.length - 1;
  }

  /** The node of a statement (a label's node is its name's, so gotos met first can point at it). */
  nodeOf(s: FlowStmt): number {
    if (s.kind === 'label') return this.labelNode(s.name);
    let n = this.nodes.get(s);
    if (n === undefined) this.nodes.set(s, (n = this.node()));
    return n;
  }

  private labelNode(name: string): number {
    let n = this.labels.get(name);
    if (n === undefined) this.labels.set(name, (n = this.node()));
    return n;
  }

  private edge(from: number, to: number): void {
    const out = this.succ[from]!;
    if (!out.includes(to)) out.push(to);
  }

  /** Adds the edges of `s` and of everything inside it; `next` is where its normal completion goes. */
  build(s: FlowStmt, next: number): void {
    const n = this.nodeOf(s);
    switch (s.kind) {
      case 'simple':
        this.edge(n, next);
        return;
      case 'seq': {
        const first = s.stmts[0];
        this.edge(n, first ? this.nodeOf(first) : next);
        s.stmts.forEach((t, i) => {
          const after = s.stmts[i + 1];
          this.build(t, after ? this.nodeOf(after) : next);
        });
        return;
      }
      case 'if':
        this.edge(n, this.nodeOf(s.then));
        this.edge(n, s.else ? this.nodeOf(s.else) : next);
        this.build(s.then, next);
        if (s.else) this.build(s.else, next);
        return;
      case 'loop': {
        const test = this.node();
        const latch = this.node();
        const body = this.nodeOf(s.body);
        this.edge(n, s.form === 'do' ? body : test);
        this.edge(test, body);
        if (s.test) this.edge(test, next);
        this.edge(latch, test);
        this.breaks.push(next);
        this.continues.push(latch);
        this.loopStack.push(this.loopCount++);
        this.build(s.body, latch);
        this.loopStack.pop();
        this.continues.pop();
        this.breaks.pop();
        return;
      }
      case 'switch': {
        const sw = { cases: [] as number[], hasDefault: false };
        this.switches.push(sw);
        this.breaks.push(next);
        // The body's own node is reached only through a case (or a label inside it).
        this.build(s.body, next);
        this.breaks.pop();
        this.switches.pop();
        for (const c of sw.cases) this.edge(n, c);
        if (!sw.hasDefault) this.edge(n, next);
        return;
      }
      case 'case': {
        const sw = this.switches.at(-1);
        if (sw) {
          sw.cases.push(n);
          if (s.isDefault) sw.hasDefault = true;
        }
        this.edge(n, next);
        return;
      }
      case 'break':
        this.edge(n, this.breaks.at(-1) ?? this.exit);
        return;
      case 'continue':
        this.edge(n, this.continues.at(-1) ?? this.exit);
        return;
      case 'return':
        this.edge(n, this.exit);
        return;
      case 'goto':
        this.gotos++;
        this.edge(n, this.labelNode(s.label));
        this.jumps.push({ loops: [...this.loopStack], labels: [s.label] });
        return;
      case 'igoto':
        this.indirectGotos++;
        for (const l of s.labels) this.edge(n, this.labelNode(l));
        this.jumps.push({ loops: [...this.loopStack], labels: s.labels });
        return;
      case 'label':
        this.labelLoops.set(s.name, [...this.loopStack]);
        if (!s.body) {
          this.edge(n, next);
          return;
        }
        this.edge(n, this.nodeOf(s.body));
        this.build(s.body, next);
        return;
    }
  }

  /** Syntactic loops that a jump enters from outside: loops around a target label but not around the jump. */
  gotoIntoLoops(): number {
    const entered = new Set<number>();
    for (const j of this.jumps) {
      const outside = new Set(j.loops);
      for (const l of j.labels)
        for (const loop of this.labelLoops.get(l) ?? []) if (!outside.has(loop)) entered.add(loop);
    }
    return entered.size;
  }
}

/** The loop figures of a graph (`succ[v]`: the successors of node `v`), over the nodes `entry` reaches. */
function loopFigures(
  succ: readonly (readonly number[])[],
  entry: number,
): Pick<FlowMeasure, 'backEdges' | 'naturalLoops' | 'irreducibleLoops' | 'maxLoopNesting'> {
  const n = succ.length;
  // Depth-first search from the entry: an edge to a node still on the stack is a back edge.
  const state = new Uint8Array(n); // 0 unseen, 1 on the stack, 2 finished
  const reached: number[] = [];
  let backEdges = 0;
  const stack: { v: number; i: number }[] = [{ v: entry, i: 0 }];
  state[entry] = 1;
  reached.push(entry);
  while (stack.length) {
    const top = stack.at(-1)!;
    const out = succ[top.v]!;
    if (top.i === out.length) {
      state[top.v] = 2;
      stack.pop();
      continue;
    }
    const w = out[top.i++]!;
    if (state[w] === 1) backEdges++;
    else if (state[w] === 0) {
      state[w] = 1;
      reached.push(w);
      stack.push({ v: w, i: 0 });
    }
  }
  const pred: number[][] = Array.from({ length: n }, () => []);
  for (const v of reached) for (const w of succ[v]!) pred[w]!.push(v);

  // The loop-nesting forest: each strongly connected region of two or more nodes (or a node with
  // an edge to itself) is a loop; its entries are its nodes with a predecessor outside it. Loops
  // nested in it are the regions left once its entries are removed (for a loop of one entry,
  // that is its header), one level deeper.
  let naturalLoops = 0;
  let irreducibleLoops = 0;
  let maxLoopNesting = 0;
  const inRegion = new Int32Array(n).fill(-1);
  const work: { nodes: readonly number[]; depth: number }[] = [{ nodes: reached, depth: 1 }];
  let mark = 0;
  while (work.length) {
    const { nodes, depth } = work.pop()!;
    for (const region of components(succ, nodes)) {
      if (region.length === 1 && !succ[region[0]!]!.includes(region[0]!)) continue;
      const id = mark++;
      for (const v of region) inRegion[v] = id;
      const entries = region.filter((v) => v === entry || pred[v]!.some((u) => inRegion[u] !== id));
      if (entries.length > 1) irreducibleLoops++;
      else naturalLoops++;
      maxLoopNesting = Math.max(maxLoopNesting, depth);
      const cut = new Set(entries.length ? entries : [region[0]!]);
      const inner = region.filter((v) => !cut.has(v));
      if (inner.length) work.push({ nodes: inner, depth: depth + 1 });
    }
  }
  return { backEdges, naturalLoops, irreducibleLoops, maxLoopNesting };
}

/** Strongly connected components of the subgraph on `nodes` (Tarjan's algorithm, without recursion). */
function components(succ: readonly (readonly number[])[], nodes: readonly number[]): number[][] {
  const member = new Set(nodes);
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const out: number[][] = [];
  let next = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const frames: { v: number; i: number }[] = [{ v: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (frames.length) {
      const f = frames.at(-1)!;
      const out1 = succ[f.v]!;
      if (f.i < out1.length) {
        const w = out1[f.i++]!;
        if (!member.has(w)) continue;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          frames.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(f.v, Math.min(low.get(f.v)!, index.get(w)!));
        continue;
      }
      frames.pop();
      const parent = frames.at(-1);
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(f.v)!));
      if (low.get(f.v) === index.get(f.v)) {
        const comp: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== f.v);
        out.push(comp);
      }
    }
  }
  return out;
}

/** The flow statement of an IR statement (labels are named by their node ids). */
function fromIR(s: Stmt): FlowStmt {
  switch (s.kind) {
    case 'block':
      return { kind: 'seq', stmts: s.stmts.map(fromIR) };
    case 'if':
      return { kind: 'if', then: fromIR(s.then), else: s.else ? fromIR(s.else) : undefined };
    case 'for':
      return { kind: 'loop', form: s.form ?? 'for', test: s.cond !== undefined, body: fromIR(s.body) };
    case 'switch':
      return { kind: 'switch', body: fromIR(s.body) };
    case 'case':
      return { kind: 'case', isDefault: s.value === undefined };
    case 'break':
    case 'continue':
    case 'return':
      return { kind: s.kind };
    case 'goto':
      return { kind: 'goto', label: String(s.label) };
    case 'igoto':
      return { kind: 'igoto', labels: s.labels.map(String) };
    case 'label':
      return { kind: 'label', name: String(s.id), body: undefined };
    case 'expr':
    case 'hash':
    case 'check':
    case 'unreachable':
    case 'assume':
      return { kind: 'simple' };
  }
}

/** The measure of one IR function. */
export function functionFlow(f: FuncDecl): FlowMeasure {
  return measureFlow(fromIR(f.body));
}

/** The measure of a whole program: its functions' measures added up (`main` included). */
export function programFlow(p: Program): FlowMeasure {
  return p.funcs.map(functionFlow).reduce(addFlow, NO_FLOW);
}

/** Jumps a run executed, from its statement counts (the interpreter's profile `stmtCounts`). */
export interface ExecutedJumps {
  /** Executions of `goto` statements. */
  readonly executedGotos: number;
  /** Executions of `goto *e` statements. */
  readonly executedIndirectGotos: number;
}

/** Counts the executions of a program's jump statements in a run's statement counts. */
export function executedJumps(p: Program, stmtCounts: ReadonlyMap<number, number>): ExecutedJumps {
  let executedGotos = 0;
  let executedIndirectGotos = 0;
  const visit = (s: Stmt): void => {
    switch (s.kind) {
      case 'block':
        s.stmts.forEach(visit);
        return;
      case 'if':
        visit(s.then);
        if (s.else) visit(s.else);
        return;
      case 'for':
      case 'switch':
        visit(s.body);
        return;
      case 'goto':
        executedGotos += stmtCounts.get(s.id) ?? 0;
        return;
      case 'igoto':
        executedIndirectGotos += stmtCounts.get(s.id) ?? 0;
        return;
      default:
        return;
    }
  };
  for (const f of p.funcs) visit(f.body);
  return { executedGotos, executedIndirectGotos };
}
