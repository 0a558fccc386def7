// kiln check against Kiln's own UB-on-purpose programs: for each UB kind, N programs from
// `kiln gen --ub KIND` are checked (ASan → MSan → UBSan → valgrind → Frama-C Eva, first report
// wins), and M UB-free programs must be clean. Then the hand-written programs whose UB only Eva
// finds, on a line shared with another statement (test/edge/support/eva-only.ts), and (not with
// --smoke) their UB-free twins. Prints which tool caught which kind, how often the reported kind
// and line match the injected site, and the verdicts counted apart: UB, clean (on a UB program,
// a miss), incomplete (a tool did not finish its check), could not check.
//
//   npm run bench:check [-- --per-kind 50 --clean 200 --size small --jobs 2]
//   (--smoke: 1 per kind and 1 UB-free, and one of the Eva-only programs)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkProgram, probeTools, type CheckResult } from '../src/edge/check.js';
import { generateUBProgram, INJECT_KINDS, type InjectKind } from '../src/edge/inject.js';
import { CHECK_TOOLS } from '../src/edge/reports.js';
import { emitC } from '../src/emit/c.js';
import { parsePolicy, type SizePreset } from '../src/gen/policy.js';
import { generateProgram } from '../src/repair/generate.js';
import { EVA_ONLY_CASES } from '../test/edge/support/eva-only.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const smoke = process.argv.includes('--smoke');
const perKind = Number(arg('per-kind', smoke ? '1' : '50'));
const cleanCount = Number(arg('clean', smoke ? '1' : '200'));
const size = arg('size', 'small') as SizePreset;
const jobs = Number(arg('jobs', String(Math.max(1, availableParallelism()))));
const kinds = arg('kinds', smoke ? 'signed-overflow,out-of-bounds' : INJECT_KINDS.join(',')).split(',') as InjectKind[];

/** Runs `f` over `items`, `n` at a time. */
async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await f(items[next++]!);
    }),
  );
}

const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-check-'));
try {
  const avail = await probeTools();
  const missing = CHECK_TOOLS.filter((t) => avail.tools.get(t) !== null);
  if (missing.length > 0)
    console.log(`tools unavailable here: ${missing.map((t) => `${t} (${avail.tools.get(t)})`).join('; ')}`);
  const policy = parsePolicy({}, size);
  const t0 = performance.now();

  // Programs first (generation is CPU-bound JavaScript), then the checks in parallel.
  const jobsList: { kind: InjectKind | 'clean' | 'eva-only' | 'eva-only-twin'; file: string; line?: number }[] = [];
  for (const kind of kinds) {
    let got = 0;
    for (let seed = 1n; got < perKind && seed < BigInt(perKind * 20 + 20); seed++) {
      const r = generateUBProgram(seed, policy, kind);
      if (!r.ok) continue;
      const file = join(dir, `${kind}-${seed}.c`);
      writeFileSync(file, r.text);
      jobsList.push({ kind, file, line: r.location.line });
      got++;
    }
  }
  let got = 0;
  for (let seed = 100_001n; got < cleanCount; seed++) {
    const g = generateProgram(seed, policy);
    if (!g.ok) continue;
    const file = join(dir, `clean-${seed}.c`);
    writeFileSync(file, emitC(g.program, { expected: g.expected }));
    jobsList.push({ kind: 'clean', file });
    got++;
  }
  // A smoke run takes one of them (never run), not the twins: test/edge/shared-line.test.ts checks
  // every case and its twin.
  for (const c of smoke ? EVA_ONLY_CASES.filter((x) => x.name === 'never-run') : EVA_ONLY_CASES) {
    const file = join(dir, `eva-only-${c.name}.c`);
    writeFileSync(file, c.text);
    jobsList.push({ kind: 'eva-only', file, line: c.line });
    if (smoke) continue;
    const twin = join(dir, `eva-only-${c.name}-twin.c`);
    writeFileSync(twin, c.twin);
    jobsList.push({ kind: 'eva-only-twin', file: twin });
  }
  const genSec = (performance.now() - t0) / 1000;

  /** Verdicts of one set of programs, counted apart. */
  interface Row {
    n: number;
    found: number;
    sameKind: number;
    sameLine: number;
    tools: Map<string, number>;
    clean: number;
    incomplete: number;
    errors: number;
    notes: string[];
  }
  const rows = new Map<string, Row>();
  const t1 = performance.now();
  let done = 0;
  await pool(jobsList, jobs, async (j) => {
    const r: CheckResult = await checkProgram([j.file], avail);
    // Progress on stderr (the tables go to stdout at the end): a long run can be followed, and
    // its running counts kept if it is stopped.
    const what =
      r.verdict === 'ub'
        ? `ub ${r.report.tool} ${r.report.kind} ` +
          `line ${r.report.line}${j.line !== undefined ? ` (UB at line ${j.line})` : ''}`
        : r.verdict === 'clean'
          ? 'clean'
          : `${r.verdict === 'incomplete' ? 'incomplete' : 'could not check'}: ${r.message}`;
    process.stderr.write(
      `[${++done}/${jobsList.length} ${((performance.now() - t1) / 1000).toFixed(0)} ` +
        `s] ${j.kind} ${j.file.replace(/.*\//, '')}: ${what}\n`,
    );
    const row: Row = rows.get(j.kind) ?? {
      n: 0,
      found: 0,
      sameKind: 0,
      sameLine: 0,
      tools: new Map(),
      clean: 0,
      incomplete: 0,
      errors: 0,
      notes: [],
    };
    rows.set(j.kind, row);
    row.n++;
    if (r.verdict === 'clean') row.clean++;
    else if (r.verdict === 'incomplete') row.incomplete++;
    else if (r.verdict === 'error') row.errors++;
    const free = j.kind === 'clean' || j.kind === 'eva-only-twin';
    // What to list under the counts: every verdict but clean on a UB-free program, every verdict but UB on a UB
    // program.
    if (free ? r.verdict !== 'clean' : r.verdict !== 'ub') row.notes.push(`${j.file.replace(/.*\//, '')}: ${what}`);
    if (r.verdict !== 'ub') return;
    row.found++;
    if (r.report.kind === j.kind || (j.kind === 'eva-only' && r.report.kind === 'unsequenced')) row.sameKind++;
    if (r.report.line === j.line) row.sameLine++;
    row.tools.set(r.report.tool, (row.tools.get(r.report.tool) ?? 0) + 1);
  });
  const checkSec = (performance.now() - t1) / 1000;

  const empty: Row = {
    n: 0,
    found: 0,
    sameKind: 0,
    sameLine: 0,
    tools: new Map(),
    clean: 0,
    incomplete: 0,
    errors: 0,
    notes: [],
  };
  console.log(
    `\nkiln check on UB-on-purpose programs (${size}, ${perKind} per kind), first report wins; tools ` +
      `run ${CHECK_TOOLS.join(' → ')}`,
  );
  console.log(`| kind | programs | found | same kind | same line | caught by | clean | incomplete | could not check |`);
  console.log(`|---|---|---|---|---|---|---|---|---|`);
  for (const kind of [...kinds, 'eva-only']) {
    const r = rows.get(kind);
    if (!r) continue;
    const tools = [...r.tools].map(([t, n]) => `${t} ${n}`).join(', ');
    console.log(
      `| ${kind} | ${r.n} | ${r.found} | ${r.sameKind} | ${r.sameLine} | ${tools || '-'} | ${r.clean} ` +
        `| ${r.incomplete} | ${r.errors} |`,
    );
  }
  const free = (r: Row): string =>
    `${r.clean} of ${r.n} clean; ${r.found} reports; ${r.incomplete} incomplete; ${r.errors} could not check`;
  const clean = rows.get('clean') ?? empty;
  console.log(`\nUB-free Kiln programs: ${free(clean)}`);
  for (const a of clean.notes.slice(0, 10)) console.log(`  ${a}`);
  const evaOnly = rows.get('eva-only') ?? empty;
  console.log(
    `\nEva-only UB on a shared line (hand-written, eva-only above): ${evaOnly.n} programs: ${evaOnly.found} ` +
      `UB, ${evaOnly.clean} clean (false), ${evaOnly.incomplete} incomplete, ${evaOnly.errors} could not check`,
  );
  for (const a of evaOnly.notes) console.log(`  ${a}`);
  const twins = rows.get('eva-only-twin');
  if (twins) {
    console.log(`their UB-free twins: ${free(twins)}`);
    for (const a of twins.notes) console.log(`  ${a}`);
  }
  console.log(
    `\ntime: generation ${genSec.toFixed(1)} s; checks ${checkSec.toFixed(1)} s for ${jobsList.length} ` +
      `programs with ${jobs} jobs (${((checkSec * jobs) / jobsList.length).toFixed(2)} s per program per job)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
