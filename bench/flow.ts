// Control flow of Kiln's programs against Csmith's (issue #37): N programs of Kiln (csmith mode,
// generated in this process) and N of Debian's csmith, from the same seed range, both measured
// from their C text by the same code (src/reduce/text/flow.ts: each function's statement-level
// control-flow graph from tree-sitter's syntax tree). Per program, test code only (every
// function of the .c file but main and Kiln's kiln_* helpers; Csmith's helpers are in its
// headers):
//   - gotos and GNU `goto *e` statements (static counts);
//   - back edges of a depth-first search from each function's entry;
//   - loops (strongly connected regions, nested ones included) entered at one statement, and at
//     several (irreducible: gotos into a loop, or Duff's device);
//   - for/while/do loops whose body a goto from outside enters; the depth of the loop nest;
//   - executed gotos: each program built with `gcc -O0 --coverage`, run once (10 s limit), and the
//     executions gcov counts on the lines holding a goto summed.
// For Kiln the interpreter's own count of executed gotos is printed beside gcov's, and its IR
// measure (src/ir/flow.ts) is checked against the text's.
//
//   npm run bench:flow [-- --programs 100 --seed 1 --jobs 2 --size medium --policy p.yaml] [-- --smoke]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy } from '../src/cli/util.js';
import { emitC } from '../src/emit/c.js';
import { addFlow, executedJumps, type FlowMeasure, NO_FLOW, programFlow } from '../src/ir/flow.js';
import { textFlow } from '../src/reduce/text/flow.js';
import { CParser } from '../src/reduce/text/parser.js';
import { generateProgram } from '../src/repair/generate.js';
import { coverageRun, csmithPrograms, isOwnFile, pool } from './lib/coverage.js';
import { ROOT } from './lib/kiln.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const smoke = process.argv.includes('--smoke');
const count = smoke ? 2 : Number(arg('programs', '100'));
const first = Number(arg('seed', '1'));
const jobs = Math.max(1, Number(arg('jobs', '2')));
const size = arg('size', 'medium');
const policyFile = arg('policy', '');
const RUN_LIMIT_MS = 10_000;

const tools = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-tools.mjs'), '--profile', 'bench'], {
  stdio: 'inherit',
});
if (tools.status !== 0) throw new Error('could not install the benchmark tools (gcc, csmith)');

/** What was measured of one program. */
interface Measured {
  readonly lines: number;
  /** The static measure of its test code, from its text. */
  readonly flow: FlowMeasure;
  /** Executions of lines holding a goto, and a `goto *e` (gcov); undefined when the run did not finish. */
  readonly executedGotos: number | undefined;
  readonly executedIndirectGotos: number | undefined;
  /** Kiln only: gotos the interpreter executed, and whether the IR's measure equals the text's. */
  readonly interpGotos?: number;
  readonly agrees?: boolean;
}

/** Kiln's checksum harness and helpers, and `main`: not test code. */
const isHarness = (name: string): boolean => name === 'main' || name.startsWith('kiln_');

const parser = new CParser(1);

async function measure(src: string, work: string, kiln?: { interpGotos: number; ir: FlowMeasure }): Promise<Measured> {
  const text = readFileSync(src, 'utf8');
  const t = textFlow(text, parser);
  let flow = NO_FLOW;
  // The IR's functions are the file's but Kiln's helpers: main included.
  let program = NO_FLOW;
  for (const [name, m] of t.functions) {
    if (!isHarness(name)) flow = addFlow(flow, m);
    if (!name.startsWith('kiln_')) program = addFlow(program, m);
  }
  const json = await coverageRun(src, work, RUN_LIMIT_MS);
  let executedGotos: number | undefined;
  let executedIndirectGotos: number | undefined;
  if (json) {
    const gotoLines = new Set(t.gotoLines);
    const indirectLines = new Set(t.indirectGotoLines);
    executedGotos = 0;
    executedIndirectGotos = 0;
    for (const file of json.files) {
      if (!isOwnFile(file.file, src)) continue;
      for (const line of file.lines) {
        if (gotoLines.has(line.line_number)) executedGotos += line.count;
        if (indirectLines.has(line.line_number)) executedIndirectGotos += line.count;
      }
    }
  }
  return {
    lines: text.split('\n').length,
    flow,
    executedGotos,
    executedIndirectGotos,
    ...(kiln ? { interpGotos: kiln.interpGotos, agrees: sameFlow(kiln.ir, program) } : {}),
  };
}

function sameFlow(a: FlowMeasure, b: FlowMeasure): boolean {
  return (Object.keys(a) as (keyof FlowMeasure)[]).every((k) => a[k] === b[k]);
}

const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-flow-'));
try {
  const kilnDir = join(dir, 'kiln');
  const csmithDir = join(dir, 'csmith');
  mkdirSync(kilnDir);
  mkdirSync(csmithDir);
  console.log(
    `bench:flow: ${count} programs each, seeds ${first}..${first + count - 1} (kiln: csmith mode, size ${size}` +
      `${policyFile ? `, policy ${policyFile}` : ''}; csmith: its defaults)`,
  );
  const policy = loadPolicy(policyFile || undefined, size);
  const kilnIR = new Map<string, { interpGotos: number; ir: FlowMeasure }>();
  let discarded = 0;
  for (let s = first; s < first + count; s++) {
    const r = generateProgram(s, policy, 'csmith');
    if (!r.ok) {
      discarded++;
      continue;
    }
    const file = join(kilnDir, `kiln-${s}.c`);
    writeFileSync(file, emitC(r.program, { expected: r.expected }));
    kilnIR.set(file, {
      interpGotos: executedJumps(r.program, r.profile.stmtCounts).executedGotos,
      ir: programFlow(r.program),
    });
  }
  csmithPrograms(csmithDir, first, count);
  const files = (d: string): string[] =>
    readdirSync(d)
      .filter((f) => f.endsWith('.c'))
      .map((f) => join(d, f));
  const kiln = await pool(files(kilnDir), jobs, (f) =>
    measure(f, join(dir, 'work', `k-${f.split('/').pop()}`), kilnIR.get(f)),
  );
  const csmith = await pool(files(csmithDir), jobs, (f) => measure(f, join(dir, 'work', `c-${f.split('/').pop()}`)));

  const median = (s: readonly number[]): number =>
    s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  const stats = (xs: readonly number[]): number[] => {
    if (!xs.length) return [NaN, NaN, NaN];
    const s = [...xs].sort((a, b) => a - b);
    return [median(s), s.reduce((a, b) => a + b, 0) / s.length, s[Math.ceil(0.9 * s.length) - 1]!];
  };
  // Two decimals below 10 (but a median's halves one), so that a mean of 0.01, one program in a
  // hundred, does not print as 0.
  const fmt = (x: number): string =>
    Number.isNaN(x)
      ? '-'
      : Number.isInteger(x)
        ? String(x)
        : x.toFixed(x >= 1000 ? 0 : x >= 10 || Number.isInteger(2 * x) ? 1 : 2);
  const cells = (xs: readonly number[] | undefined): string =>
    (xs ? stats(xs) : [NaN, NaN, NaN]).map((x) => fmt(x).padStart(9)).join('');
  const row = (what: string, k: readonly number[], c: readonly number[] | undefined): void =>
    console.log(`${what.padEnd(36)}${cells(k)}   ${cells(c)}`);
  const of = (xs: readonly Measured[], f: (m: FlowMeasure) => number): number[] => xs.map((m) => f(m.flow));
  const ran = (xs: readonly Measured[], f: (m: Measured) => number | undefined): number[] =>
    xs.map(f).filter((x): x is number => x !== undefined);

  console.log(`
What each figure counts, per program, in its test code (every function but main and Kiln's kiln_* helpers):
  gotos, goto *e         goto and GNU computed-goto statements in the text (static)
  back edges             edges of a depth-first search from each function's entry to a statement on its stack
  natural loops          loops (strongly connected regions, nested ones counted) entered at one statement
  irreducible loops      loops entered at two or more statements (gotos into a loop, Duff's device)
  goto-into loops        for/while/do loops whose body holds a label a goto from outside jumps to
  loop nesting           depth of the loop nest (0: no loop), structured and goto-made loops alike
  executed gotos (gcov)  executions of the lines holding a goto, one gcc -O0 --coverage run (10 s limit)
`);
  console.log(
    `${'per program'.padEnd(36)}${'kiln:'.padStart(9)}${''.padStart(18)}   ${'csmith:'.padStart(9)}\n` +
      `${''.padEnd(36)}${['median', 'mean', 'p90'].map((h) => h.padStart(9)).join('')}   ` +
      `${['median', 'mean', 'p90'].map((h) => h.padStart(9)).join('')}`,
  );
  row(
    'lines',
    kiln.map((m) => m.lines),
    csmith.map((m) => m.lines),
  );
  row(
    'functions',
    of(kiln, (f) => f.functions),
    of(csmith, (f) => f.functions),
  );
  row(
    'gotos',
    of(kiln, (f) => f.gotos),
    of(csmith, (f) => f.gotos),
  );
  row(
    'goto *e',
    of(kiln, (f) => f.indirectGotos),
    of(csmith, (f) => f.indirectGotos),
  );
  row(
    'back edges',
    of(kiln, (f) => f.backEdges),
    of(csmith, (f) => f.backEdges),
  );
  row(
    'natural loops',
    of(kiln, (f) => f.naturalLoops),
    of(csmith, (f) => f.naturalLoops),
  );
  row(
    'irreducible loops',
    of(kiln, (f) => f.irreducibleLoops),
    of(csmith, (f) => f.irreducibleLoops),
  );
  row(
    'goto-into loops',
    of(kiln, (f) => f.gotoIntoLoops),
    of(csmith, (f) => f.gotoIntoLoops),
  );
  row(
    'loop nesting',
    of(kiln, (f) => f.maxLoopNesting),
    of(csmith, (f) => f.maxLoopNesting),
  );
  row(
    'executed gotos (gcov)',
    ran(kiln, (m) => m.executedGotos),
    ran(csmith, (m) => m.executedGotos),
  );
  row(
    'executed goto *e (gcov)',
    ran(kiln, (m) => m.executedIndirectGotos),
    ran(csmith, (m) => m.executedIndirectGotos),
  );
  row(
    'executed gotos (Kiln interpreter)',
    ran(kiln, (m) => m.interpGotos),
    undefined,
  );
  const some = (xs: readonly Measured[], f: (m: FlowMeasure) => number): number =>
    xs.filter((m) => f(m.flow) > 0).length;
  console.log(
    `\nprograms with an irreducible loop: kiln ${some(kiln, (f) => f.irreducibleLoops)} of ${kiln.length}, ` +
      `csmith ${some(csmith, (f) => f.irreducibleLoops)} of ${csmith.length}`,
  );
  console.log(
    `programs with a goto into a loop: kiln ${some(kiln, (f) => f.gotoIntoLoops)} of ${kiln.length}, ` +
      `csmith ${some(csmith, (f) => f.gotoIntoLoops)} of ${csmith.length}`,
  );
  console.log(
    `programs with a goto *e: kiln ${some(kiln, (f) => f.indirectGotos)} of ${kiln.length}, ` +
      `csmith ${some(csmith, (f) => f.indirectGotos)} of ${csmith.length}`,
  );
  const late = (xs: readonly Measured[]): number => xs.filter((m) => m.executedGotos === undefined).length;
  console.log(
    `runs not finished within ${RUN_LIMIT_MS / 1000} s: kiln ${late(kiln)} of ${kiln.length}, ` +
      `csmith ${late(csmith)} of ${csmith.length} (left out of the executed figures)`,
  );
  console.log(
    `kiln's IR measure equals its text's (main included): ${kiln.filter((m) => m.agrees).length} of ` +
      `${kiln.length} programs`,
  );
  if (discarded) console.log(`kiln discarded ${discarded} of ${count} seeds`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
