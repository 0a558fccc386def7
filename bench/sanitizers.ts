// Sanitizer testing's detection table: for each UB kind, N programs with that UB on purpose
// (`kiln gen --ub KIND`) are built with the sanitizer that claims the kind, by every compiler at
// every option level, and run; a cell is the share whose run reported the injected kind at the
// injected line. Runs that did not are candidate misses, listed with the survival check's verdict
// (src/edge/sanjudge.ts): confirmed ones are what `kiln fuzz --sanitizers` reports as
// sanitizer-miss findings. M UB-free programs are built with ASan+UBSan (and MSan on clang): every
// report there is a false alarm.
//
//   npm run bench:sanitizers [-- --per-cell 30 --clean 30 --compilers gcc-12,clang-14
//                               --opts -O0,-O1,-O2,-Os,-O3 --kinds K1,K2 --jobs 2]
//   (--smoke: 1 program per cell, two kinds, gcc and clang at -O2, 1 UB-free program)
import { availableParallelism } from 'node:os';
import { Slots, testSanitizerProgram, type UnconfirmedMiss } from '../src/edge/sancampaign.js';
import { SANITIZED_KINDS, SANITIZER_OF, sanitizerProgram, type SanitizedKind } from '../src/edge/sanitize.js';
import { parsePolicy, type SizePreset } from '../src/gen/policy.js';
import { compilerCapabilities, policyFor } from '../src/harness/capabilities.js';
import { resolveCompilers } from '../src/harness/compilers.js';
import { buildMatrix, DEFAULT_LIMITS, type Configuration } from '../src/harness/matrix.js';
import { TempRoot } from '../src/harness/tempdir.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const smoke = process.argv.includes('--smoke');
const perCell = Number(arg('per-cell', smoke ? '1' : '30'));
const cleanCount = Number(arg('clean', smoke ? '1' : '30'));
const size = arg('size', 'small') as SizePreset;
const jobs = Number(arg('jobs', String(Math.max(1, availableParallelism()))));
const kinds = arg('kinds', smoke ? 'signed-overflow,out-of-bounds' : SANITIZED_KINDS.join(',')).split(
  ',',
) as SanitizedKind[];
const compilerNames = arg('compilers', smoke ? 'gcc,clang' : 'gcc-12,clang-14').split(',');
const levels = arg('opts', smoke ? '-O2' : '-O0,-O1,-O2,-Os,-O3').split(',');
const seedBase = BigInt(arg('seed', '1'));

const compilers = await resolveCompilers(compilerNames);
// What every compiler accepts: each program is built by each.
const policy = policyFor(
  parsePolicy({}, size),
  await Promise.all(compilers.map((c) => compilerCapabilities(c))),
  'every',
);
const configs = buildMatrix(compilers, levels);
const temp = TempRoot.create();
const slots = new Slots(jobs);
const t0 = performance.now();

interface Cell {
  runs: number;
  detected: number;
  confirmed: number;
  unconfirmed: number;
}
const cells = new Map<string, Cell>();
const cellKey = (kind: string, c: Configuration): string => `${kind}\0${c.compiler.name}\0${c.optionsText}`;
const misses: { seed: bigint; kind: SanitizedKind; config: string; confirmed: boolean; note: string }[] = [];
let falseAlarms = 0;
let cleanRuns = 0;
const alarms: string[] = [];

/** The configuration of the matrix a sanitized configuration was made from. */
const baseOf = (slug: string): Configuration => configs.find((c) => slug.startsWith(`${c.slug}-`))!;

/** Runs `f` over `items`, `n` at a time. */
async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await f(items[next++]!);
    }),
  );
}

try {
  // Programs: the first seeds (from --seed) whose program takes a UB of each kind, and UB-free ones.
  const work: { seed: bigint; kind: SanitizedKind | null }[] = [];
  for (const kind of kinds) for (let i = 0n; i < BigInt(perCell); i++) work.push({ seed: seedBase + i, kind });
  for (let i = 0n; i < BigInt(cleanCount); i++) work.push({ seed: seedBase + 100_000n + i, kind: null });
  let discarded = 0;
  let done = 0;
  await pool(work, jobs + 1, async ({ seed, kind }) => {
    const p = sanitizerProgram(seed, policy, kind);
    if (!p.ok) {
      discarded++;
      return;
    }
    const r = await testSanitizerProgram(p, { configurations: configs, limits: DEFAULT_LIMITS, temp, slots });
    if (++done % 10 === 0)
      process.stderr.write(`${done}/${work.length} programs, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    const unconfirmed = new Map<string, UnconfirmedMiss>(r.unconfirmed.map((u) => [u.config.slug, u]));
    for (const f of r.results) {
      const base = baseOf(f.config.slug);
      if (kind === null) {
        cleanRuns++;
        if (f.outcome !== 'ok') {
          falseAlarms++;
          alarms.push(
            `seed ${seed} ${f.config.compiler.name} ${f.config.optionsText}: ${f.outcome}: ` +
              `${f.result.judgement.detail ?? ''}`,
          );
        }
        continue;
      }
      const k = cellKey(kind, base);
      const cell = cells.get(k) ?? { runs: 0, detected: 0, confirmed: 0, unconfirmed: 0 };
      cells.set(k, cell);
      cell.runs++;
      const u = unconfirmed.get(base.slug);
      if (f.outcome === 'sanitizer-miss') {
        cell.confirmed++;
        misses.push({
          seed,
          kind,
          config: `${base.compiler.name} ${base.optionsText}`,
          confirmed: true,
          note: String((f.facts?.sanitizer as { survival?: { note?: string } } | undefined)?.survival?.note ?? ''),
        });
      } else if (u) {
        cell.unconfirmed++;
        misses.push({
          seed,
          kind,
          config: `${base.compiler.name} ${base.optionsText}`,
          confirmed: false,
          note: u.evidence.note,
        });
      } else if (f.outcome === 'ok') cell.detected++;
    }
  });
  const wall = (performance.now() - t0) / 1000;

  console.log(
    `Detection table: share of runs whose sanitizer reported the injected kind at its line (N programs per ` +
      `cell; size ${size}; ${compilers.map((c) => c.version).join('; ')})`,
  );
  console.log('');
  console.log(`| kind | sanitizer | compiler | ${levels.join(' | ')} |`);
  console.log(`|---|---|---|${levels.map(() => '---').join('|')}|`);
  for (const kind of kinds) {
    for (const c of compilers) {
      const row = levels.map((o) => {
        const base = configs.find((x) => x.compiler === c && x.optionsText === o);
        const cell = base ? cells.get(cellKey(kind, base)) : undefined;
        if (!cell || cell.runs === 0) return 'n/a';
        return (
          `${cell.detected}/${cell.runs} ` +
          `(${Math.round((100 * cell.detected) / cell.runs)}` +
          `%)${cell.confirmed ? ` miss ${cell.confirmed}` : ''}` +
          `${cell.unconfirmed ? ` unconf ${cell.unconfirmed}` : ''}`
        );
      });
      if (row.every((x) => x === 'n/a')) continue;
      console.log(`| ${kind} | ${SANITIZER_OF[kind]} | ${c.name} | ${row.join(' | ')} |`);
    }
  }
  console.log('');
  console.log(
    `"miss K": runs counted as sanitizer-miss findings (the survival check confirmed the site); "unconf K": ` +
      `candidate misses the survival check did not confirm (not findings).`,
  );
  console.log(
    `UB-free programs: ${cleanCount} programs, ${cleanRuns} sanitized runs, ${falseAlarms} false alarms or ` +
      `other findings`,
  );
  for (const a of alarms) console.log(`  ${a}`);
  const confirmed = misses.filter((m) => m.confirmed);
  console.log(
    `candidate misses: ${misses.length} (${confirmed.length} confirmed as ` +
      `sanitizer-miss, ${misses.length - confirmed.length} not confirmed); ${discarded} seeds discarded`,
  );
  for (const m of misses)
    console.log(`  seed ${m.seed} ${m.kind} ${m.config}: ${m.confirmed ? 'MISS' : 'unconfirmed'}: ${m.note}`);
  console.log(`wall ${wall.toFixed(1)} s with ${jobs} concurrent builds`);
} finally {
  temp.dispose();
}
