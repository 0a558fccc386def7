// LLVM's textual pass pipelines (`opt -passes=…`, as `-print-pipeline-passes` prints them), as
// trees, and the search for the smallest one that still crashes: delta debugging over the leaves
// (the passes), the adaptors that hold them kept while one of their passes is. A compiler engineer
// wants one pass (`opt -passes=loop-deletion`) or the few a crash needs, not 300.
//
//   pipeline := element (',' element)*
//   element  := name ('<' params '>')? ('(' pipeline? ')')?

/** One element of a pipeline: a pass (no children) or an adaptor / pass manager with its children. */
export interface PipelineNode {
  /** `loop-deletion`, `function<eager-inv>`, `simplifycfg<bonus-inst-threshold=1;keep-loops>`. */
  readonly name: string;
  /** Undefined for a pass; the elements inside `(…)` for an adaptor (possibly empty). */
  readonly children?: readonly PipelineNode[];
}

/** Thrown for text that is not a pipeline (unbalanced brackets, an empty element). */
export class PipelineSyntaxError extends Error {}

/** Parses a textual pipeline. Linear in its length. */
export function parsePipeline(text: string): PipelineNode[] {
  let i = 0;
  const list = (): PipelineNode[] => {
    const out: PipelineNode[] = [];
    if (text[i] === ')' || i >= text.length) return out;
    for (;;) {
      out.push(element());
      if (text[i] !== ',') return out;
      i++;
    }
  };
  const element = (): PipelineNode => {
    const start = i;
    let angle = 0;
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '<') angle++;
      else if (ch === '>') {
        if (angle === 0) throw new PipelineSyntaxError(`unbalanced '>' at ${i}`);
        angle--;
      } else if (angle === 0 && (ch === ',' || ch === '(' || ch === ')')) break;
      i++;
    }
    if (angle !== 0) throw new PipelineSyntaxError(`unbalanced '<' in ${text.slice(start, i)}`);
    const name = text.slice(start, i).trim();
    if (name === '') throw new PipelineSyntaxError(`empty pass name at ${start}`);
    if (text[i] !== '(') return { name };
    i++;
    const children = list();
    if (text[i] !== ')') throw new PipelineSyntaxError(`missing ')' after ${name}`);
    i++;
    return { name, children };
  };
  const out = list();
  if (i !== text.length) throw new PipelineSyntaxError(`unexpected '${text[i]}' at ${i}`);
  return out;
}

/** The text of a pipeline. */
export function printPipeline(nodes: readonly PipelineNode[]): string {
  return nodes.map((n) => (n.children ? `${n.name}(${printPipeline(n.children)})` : n.name)).join(',');
}

/** How many passes (leaves) a pipeline holds. */
export function passCount(nodes: readonly PipelineNode[]): number {
  return nodes.reduce((n, x) => n + (x.children ? passCount(x.children) : 1), 0);
}

/**
 * The pipeline with only the passes whose index (in order, from 0) `keep` holds; adaptors left
 * with no pass are dropped.
 */
export function keepPasses(nodes: readonly PipelineNode[], keep: ReadonlySet<number>): PipelineNode[] {
  let index = 0;
  const walk = (list: readonly PipelineNode[]): PipelineNode[] => {
    const out: PipelineNode[] = [];
    for (const n of list) {
      if (!n.children) {
        if (keep.has(index++)) out.push(n);
        continue;
      }
      const children = walk(n.children);
      if (children.length > 0) out.push({ name: n.name, children });
    }
    return out;
  };
  return walk(nodes);
}

/** The passes of a pipeline, in order, without their adaptors. */
export function passes(nodes: readonly PipelineNode[]): string[] {
  return nodes.flatMap((n) => (n.children ? passes(n.children) : [n.name]));
}

/** What {@link minimalPipeline} found. */
export interface MinimalPipeline {
  /** The smallest pipeline found that still shows the bug. */
  readonly pipeline: string;
  readonly passes: number;
  /** Tests run. */
  readonly tests: number;
  /** False when the test budget ran out first. */
  readonly minimal: boolean;
}

/**
 * The smallest pipeline in which `test` still holds, from a full one in which it does: delta
 * debugging (ddmin) over the passes, then, for one pass left, the bare pass name (opt adds the
 * adaptors a pass needs) when that still holds. Results are cached by text, so no pipeline runs twice.
 */
export async function minimalPipeline(
  full: string,
  test: (pipeline: string) => Promise<boolean>,
  maxTests = 600,
): Promise<MinimalPipeline> {
  const tree = parsePipeline(full);
  const seen = new Map<string, boolean>();
  let tests = 0;
  // Each distinct pipeline text is tested once, and at most maxTests in all.
  const tryText = async (text: string): Promise<boolean> => {
    let v = seen.get(text);
    if (v === undefined) {
      if (tests >= maxTests) return false;
      tests++;
      v = await test(text);
      seen.set(text, v);
    }
    return v;
  };
  const holds = (keep: readonly number[]): Promise<boolean> => tryText(printPipeline(keepPasses(tree, new Set(keep))));
  let current = Array.from({ length: passCount(tree) }, (_, i) => i);
  let n = 2;
  while (current.length >= 2 && tests < maxTests) {
    const size = Math.ceil(current.length / n);
    let reduced = false;
    for (let start = 0; start < current.length; start += size) {
      const complement = [...current.slice(0, start), ...current.slice(start + size)];
      if (complement.length > 0 && (await holds(complement))) {
        current = complement;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (reduced) continue;
    if (n >= current.length) break;
    n = Math.min(current.length, n * 2);
  }
  let kept = keepPasses(tree, new Set(current));
  // Then fewer words: an adaptor spliced out (its passes in its place), a pass or adaptor without
  // its parameters (`simplifycfg<bonus-inst-threshold=1;…>` → `simplifycfg`), each kept when the
  // bug still shows.
  for (let changed = true; changed && tests < maxTests; ) {
    changed = false;
    for (const candidate of simpler(kept)) {
      if (await tryText(printPipeline(candidate))) {
        kept = candidate;
        changed = true;
        break;
      }
    }
  }
  let pipeline = printPipeline(kept);
  if (current.length === 1) {
    const bare = passes(kept)[0]!;
    if (bare !== pipeline && (await tryText(bare))) pipeline = bare;
  }
  return { pipeline, passes: current.length, tests, minimal: tests < maxTests };
}

/** Every pipeline one simplification away: an adaptor spliced out, or one element's parameters dropped. */
function simpler(nodes: readonly PipelineNode[]): PipelineNode[][] {
  const out: PipelineNode[][] = [];
  nodes.forEach((n, i) => {
    const put = (replacement: readonly PipelineNode[]): PipelineNode[] => [
      ...nodes.slice(0, i),
      ...replacement,
      ...nodes.slice(i + 1),
    ];
    if (n.children) out.push(put(n.children));
    const bare = n.name.replace(/<.*>$/, '');
    if (bare !== n.name) out.push(put([{ ...n, name: bare }]));
    if (n.children) for (const inner of simpler(n.children)) out.push(put([{ name: n.name, children: inner }]));
  });
  return out;
}
