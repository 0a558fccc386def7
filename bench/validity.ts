// The validity check of reduced test cases, run on the generator's own programs: N seeds per mode
// (default 200), each seed's program, its first EMI variant and, in csmith mode, its relaxed
// program when that is UB-free, compiled with -fsyntax-only on the newest gcc and clang installed
// (src/reduce/validity.ts). A reduced case can only be as valid as the program it came from, so
// the target is 0 programs with an error or any of the diagnostics GCC 14 makes errors.
// test/reduce/validity.test.ts checks a few seeds per mode; this is the full count.
//
//   npm run bench:validity [-- --seeds 200 --from 1 --modes csmith,yarpgen,arith --batch 25]   (--smoke: 1 seed)
import { MODES, type Mode } from '../src/gen/mode.js';
import { parsePolicy, type SizePreset } from '../src/gen/policy.js';
import { compilerCapabilities, policyFor } from '../src/harness/capabilities.js';
import { detectCompilers } from '../src/harness/compilers.js';
import { corpusOfSeed, type CorpusCase } from '../src/reduce/validity-corpus.js';
import { ValidityChecker, validityCompilers, validitySummary, type ValidityResult } from '../src/reduce/validity.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const smoke = process.argv.includes('--smoke');
const seeds = Number(arg('seeds', smoke ? '1' : '200'));
const from = Number(arg('from', '1'));
const modes = arg('modes', MODES.join(',')).split(',') as Mode[];
const batch = Number(arg('batch', '25'));
const checker = new ValidityChecker(validityCompilers(await detectCompilers()));
// What every compiler of the check accepts: each compiles every candidate.
const policy = policyFor(
  parsePolicy({}, arg('size', 'medium') as SizePreset),
  await Promise.all(checker.compilers.map((c) => compilerCapabilities(c))),
  'every',
);
if (checker.compilers.length < 2) console.log(`warning: the check runs on ${checker.describe()} only`);
console.log(`validity check: ${checker.describe()}; seeds ${from}-${from + seeds - 1} of ${modes.join(', ')}`);

const t0 = performance.now();
let genMs = 0;
let checkMs = 0;
const counts = new Map<string, { cases: number; invalid: number; gaps: number }>();
const count = (key: string) => {
  let c = counts.get(key);
  if (!c) counts.set(key, (c = { cases: 0, invalid: 0, gaps: 0 }));
  return c;
};
const failures: string[] = [];
let inconclusive = 0;
const inconclusiveBy = new Map<string, number>();

/** Checks a batch while the next one is generated. */
let pending: Promise<void> = Promise.resolve();
const flush = (cases: CorpusCase[]): void => {
  const previous = pending;
  pending = (async () => {
    await previous;
    const t = performance.now();
    const results: ValidityResult[] = await checker.checkMany(cases.map((c) => c.files));
    checkMs += performance.now() - t;
    const last = cases[cases.length - 1]!;
    const bad = results.filter((r) => !r.ok).length;
    console.log(
      `  ${last.mode} up to seed ${last.seed}: ${cases.length} programs checked, ${bad} invalid ` +
        `(${((performance.now() - t0) / 1000).toFixed(0)} s)`,
    );
    results.forEach((r, i) => {
      const c = cases[i]!;
      const k = count(`${c.mode} ${c.kind}`);
      k.cases++;
      if (r.inconclusive.length > 0) {
        inconclusive++;
        for (const n of r.inconclusive) inconclusiveBy.set(n, (inconclusiveBy.get(n) ?? 0) + 1);
      }
      if (!r.ok) {
        k.invalid++;
        failures.push(`${c.mode} seed ${c.seed} (${c.kind}): ${validitySummary(r)}`);
      }
    });
  })();
};

for (const mode of modes) {
  let open: CorpusCase[] = [];
  for (let seed = from; seed < from + seeds; seed++) {
    const t = performance.now();
    const { cases, gaps } = corpusOfSeed(mode, seed, policy);
    genMs += performance.now() - t;
    for (const g of gaps) count(`${g.mode} ${g.kind}`).gaps++;
    open.push(...cases);
    if (open.length >= batch) {
      flush(open);
      open = [];
    }
  }
  if (open.length > 0) flush(open);
}
await pending;

console.log('\nmode     kind      programs  invalid  not produced');
for (const [key, c] of [...counts].sort()) {
  const [mode, kind] = key.split(' ');
  console.log(
    `${mode!.padEnd(8)} ${kind!.padEnd(9)} ${String(c.cases).padStart(8)} ${String(c.invalid).padStart(8)} ` +
      `${String(c.gaps).padStart(13)}`,
  );
}
const total = [...counts.values()].reduce((n, c) => n + c.cases, 0);
const invalid = failures.length;
const inconclusiveNote = inconclusive
  ? ` (${[...inconclusiveBy].map(([n, k]) => `${n}: ${k}`).join(', ')}; ` +
    'those were checked by the other compiler only)'
  : '';
console.log(
  `\n${total} programs checked, ${invalid} invalid, ` +
    `${inconclusive} with a compiler crash or timeout${inconclusiveNote}`,
);
console.log(
  `generation ${(genMs / 1000).toFixed(1)} s, checks ${(checkMs / 1000).toFixed(1)} s, ` +
    `wall ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
for (const f of failures.slice(0, 40)) console.log(`  ${f}`);
process.exitCode = invalid > 0 ? 1 : 0;
