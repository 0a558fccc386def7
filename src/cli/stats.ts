import type { Command } from 'commander';
import { emitC } from '../emit/c.js';
import {
  C99_KEYWORDS,
  C99_OPERATORS,
  censusOf,
  FEATURES,
  keywordsIn,
  wrappedShare,
  type Feature,
} from '../ir/census.js';
import { generateProgram } from '../repair/generate.js';
import { liveStats } from '../interp/live.js';
import { LIVE_DESCRIPTIONS, LIVE_METRICS, quartiles, type LiveMetric } from './stats-live.js';
import { FOR_HELP, forCompilers } from './for-compilers.js';
import { loadPolicy, parseCount, parseSeed, reportAndExit } from './util.js';

interface StatsOptions {
  seed?: string;
  count?: string;
  policy?: string;
  for?: string;
  size?: string;
  json?: boolean;
}

/** Registers `kiln stats`. */
export function registerStats(program: Command): void {
  program
    .command('stats')
    .description('feature census over a seed range: which types, statements, operators and keywords programs use')
    .option('-s, --seed <n>', 'first seed', '1')
    .option('-n, --count <k>', 'number of programs', '200')
    .option('--policy <file>', 'generation policy (YAML or JSON)')
    .option('--size <preset>', 'program size: small, medium or large')
    .option('--for <compilers>', FOR_HELP)
    .option('--json', 'print the census as JSON')
    .addHelpText(
      'after',
      '\nCompare with Csmith, which covers 22 of the C99 keywords and 41 of its 47 operators (Csmith ' +
        'dissertation, §3.5).',
    )
    .action(async (opts: StatsOptions) => {
      try {
        await runStats(opts);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

async function runStats(opts: StatsOptions): Promise<void> {
  const policy = await forCompilers(loadPolicy(opts.policy, opts.size), opts.for);
  const first = parseSeed('--seed', opts.seed, 1n);
  const count = parseCount('--count', opts.count, 200, 1);
  const featureCounts = new Map<Feature, number>();
  const operatorCounts = new Map<string, number>();
  const keywordCounts = new Map<string, number>();
  let programs = 0;
  let discarded = 0;
  let wrapped = 0;
  let operations = 0;
  // Live metrics per program: what `kiln gen --json` reports, as distributions.
  const dist: Record<LiveMetric, number[]> = {
    statements: [],
    liveStatements: [],
    liveShare: [],
    steps: [],
    liveFunctionShare: [],
  };
  for (let i = 0n; i < BigInt(count); i++) {
    const r = generateProgram(first + i, policy);
    if (!r.ok) {
      discarded++;
      continue;
    }
    programs++;
    const c = censusOf(r.program);
    for (const f of c.features) featureCounts.set(f, (featureCounts.get(f) ?? 0) + 1);
    for (const o of c.operators) operatorCounts.set(o, (operatorCounts.get(o) ?? 0) + 1);
    for (const k of keywordsIn(emitC(r.program))) keywordCounts.set(k, (keywordCounts.get(k) ?? 0) + 1);
    const ls = liveStats(r.program, r.profile);
    dist.statements.push(ls.statements);
    dist.liveStatements.push(ls.liveStatements);
    dist.liveShare.push(ls.liveStatements / Math.max(1, ls.statements));
    dist.steps.push(r.profile.steps);
    dist.liveFunctionShare.push(ls.liveFunctions / Math.max(1, ls.functions));
    const w = wrappedShare(r.program);
    wrapped += w.wrapped;
    operations += w.operations;
    if (process.stderr.isTTY) process.stderr.write(`\rkiln stats: ${programs + discarded}/${count}`);
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  const share = (n: number | undefined): number => (programs ? (n ?? 0) / programs : 0);
  const operatorsUsed = C99_OPERATORS.filter((o) => operatorCounts.has(o));
  const keywordsUsed = C99_KEYWORDS.filter((k) => keywordCounts.has(k));
  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify(
        {
          programs,
          discarded,
          features: Object.fromEntries(Object.keys(FEATURES).map((f) => [f, share(featureCounts.get(f as Feature))])),
          operators: {
            covered: operatorsUsed.length,
            of: C99_OPERATORS.length,
            shares: Object.fromEntries(C99_OPERATORS.map((o) => [o, share(operatorCounts.get(o))])),
          },
          keywords: {
            covered: keywordsUsed.length,
            of: C99_KEYWORDS.length,
            shares: Object.fromEntries(C99_KEYWORDS.map((k) => [k, share(keywordCounts.get(k))])),
          },
          wrapped: { wrapped, operations },
          live: Object.fromEntries(LIVE_METRICS.map((m) => [m, quartiles(dist[m])])),
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  const pct = (x: number): string => `${(100 * x).toFixed(1).padStart(5)}%`;
  const out: string[] = [
    `census of ${programs} programs ` +
      `(seeds ${first}…${first + BigInt(count) - 1n}${discarded ? `, ${discarded} discarded` : ''})`,
    '',
    'share of programs using each feature:',
  ];
  for (const [f, desc] of Object.entries(FEATURES))
    out.push(`  ${pct(share(featureCounts.get(f as Feature)))}  ${f.padEnd(24)} ${desc}`);
  out.push('', `C99 operators used: ${operatorsUsed.length} of ${C99_OPERATORS.length} (Csmith: 41)`);
  out.push(`  ${C99_OPERATORS.map((o) => `${o} ${pct(share(operatorCounts.get(o))).trim()}`).join(', ')}`);
  out.push('', `C99 keywords used: ${keywordsUsed.length} of ${C99_KEYWORDS.length} (Csmith: 22)`);
  out.push(`  ${keywordsUsed.join(' ')}`);
  out.push('', 'live code (25% / median / 75% of programs):');
  for (const m of LIVE_METRICS) {
    const q = quartiles(dist[m]);
    const f = (x: number): string => (m.endsWith('Share') ? `${(100 * x).toFixed(1)}%` : String(Math.round(x)));
    out.push(`  ${m.padEnd(18)} ${[q.q1, q.median, q.q3].map(f).join(' / ').padStart(24)}   ${LIVE_DESCRIPTIONS[m]}`);
  }
  out.push(
    '',
    `wrapped operations: ${wrapped} of ${operations} ` +
      `(${((100 * wrapped) / Math.max(1, operations)).toFixed(2)}%; Csmith wraps every one)`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
}
