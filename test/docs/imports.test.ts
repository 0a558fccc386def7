// The layering ARCHITECTURE.md states, checked on the sources: a folder of src/ imports only from
// itself and the folders above it in the table, and the only import cycles are the generator's
// and the repair loop's recursion (inside src/gen/ and inside src/repair/). Type-only imports
// count: a cycle through types still ties two modules' designs together.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');

/** The folders of src/ in ARCHITECTURE.md's order: each may import the ones before it. */
const LAYERS = [
  'diag',
  'c',
  'ir',
  'random',
  'gen',
  'interp',
  'repair',
  'emit',
  'mutate',
  'harness',
  'edge',
  'triage',
  'reduce',
  'store',
  'report',
  'queue',
  'campaign',
  'cli',
];
/** Folders whose modules may import each other in a cycle (mutual recursion of the generators). */
const CYCLES_ALLOWED = new Set(['gen', 'repair']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Relative imports of a module (static, dynamic, re-exports), resolved to source files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re =
    /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = (m[1] ?? m[2])!;
    out.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
  }
  return out;
}

const files = sources(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => t.startsWith(SRC))]));
const folderOf = (f: string): string => relative(SRC, f).split('/')[0]!.replace(/\.ts$/, '');

describe('imports of src/', () => {
  it('finds the sources and their imports', () => {
    expect(files.length).toBeGreaterThan(100);
    const edges = [...graph.values()].reduce((a, xs) => a + xs.length, 0);
    expect(edges).toBeGreaterThan(500);
    for (const [f, ts] of graph)
      for (const t of ts) expect(files, `${relative(ROOT, f)} imports a missing ${relative(ROOT, t)}`).toContain(t);
  });

  it('every folder of src/ has its place in the table', () => {
    const folders = new Set(files.map(folderOf).filter((f) => f !== 'index'));
    expect([...folders].sort()).toEqual([...LAYERS].sort());
  });

  it('each file of src/cli/ is flags and printing: under 150 lines', () => {
    const long = files
      .filter((f) => folderOf(f) === 'cli')
      .map((f) => [relative(ROOT, f), readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n >= 150);
    expect(long).toEqual([]);
  });

  it('a folder imports only from itself and the folders above it', () => {
    const bad: string[] = [];
    for (const [f, ts] of graph) {
      const from = folderOf(f);
      if (from === 'index') continue; // the package's public API re-exports every layer
      for (const t of ts) {
        const to = folderOf(t);
        if (LAYERS.indexOf(to) > LAYERS.indexOf(from)) bad.push(`${relative(ROOT, f)} imports ${relative(ROOT, t)}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the only import cycles are inside src/gen/ and inside src/repair/', () => {
    // Tarjan's strongly connected components over the module graph.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const onStack = new Set<string>();
    const stack: string[] = [];
    const components: string[][] = [];
    let next = 0;
    const visit = (v: string): void => {
      index.set(v, next);
      low.set(v, next);
      next++;
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const c: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          c.push(w);
        } while (w !== v);
        if (c.length > 1) components.push(c);
      }
    };
    for (const f of files) if (!index.has(f)) visit(f);
    const bad = components
      .filter((c) => {
        const folders = new Set(c.map(folderOf));
        return folders.size > 1 || !CYCLES_ALLOWED.has([...folders][0]!);
      })
      .map((c) =>
        c
          .map((f) => relative(ROOT, f))
          .sort()
          .join(' ↔ '),
      );
    expect(bad).toEqual([]);
  });
});
