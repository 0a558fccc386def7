import type { Command } from 'commander';
import { KilnStore, type FindingRow } from '../store/store.js';
import { reportAndExit } from './util.js';

interface FindingsFlags {
  out?: string;
  json?: boolean;
}

/** Registers `kiln findings`. */
export function registerFindings(program: Command): void {
  program
    .command('findings')
    .description('list the findings of the campaigns in an output folder, grouped by bucket')
    .option('--out <dir>', 'output folder of the campaigns (default ./kiln-out)')
    .option('--json', 'print one JSON array of {id, outcome, bucket, compiler, compilerVersion, options, seed, campaign, expected, actual, dir}')
    .action((flags: FindingsFlags) => {
      try {
        const store = KilnStore.open(flags.out ?? 'kiln-out', 'read');
        let rows: FindingRow[];
        try {
          rows = store.listFindings();
        } finally {
          store.close();
        }
        if (flags.json) {
          const list = rows.map((r) => ({
            id: r.id,
            outcome: r.outcome,
            bucket: r.bucket,
            compiler: r.compiler,
            compilerVersion: r.compilerVersion,
            options: r.options,
            seed: r.seed,
            campaign: r.campaignId,
            expected: r.expected,
            actual: r.actual,
            dir: r.dir,
            createdAt: r.createdAt,
          }));
          process.stdout.write(JSON.stringify(list, null, 2) + '\n');
          return;
        }
        process.stdout.write(formatFindings(rows));
      } catch (e) {
        reportAndExit(e);
      }
    });
}

/** Findings as text: one block per bucket, one line per finding. */
export function formatFindings(rows: readonly FindingRow[]): string {
  if (rows.length === 0) return 'no findings yet\n';
  const buckets = new Map<string, FindingRow[]>();
  for (const r of rows) buckets.set(r.bucket, [...(buckets.get(r.bucket) ?? []), r]);
  const out: string[] = [`${rows.length} findings in ${buckets.size} buckets`];
  for (const [bucket, list] of buckets) {
    out.push('', `${bucket}  (${list.length})`);
    for (const r of list) out.push(`  ${r.id}  seed ${r.seed}  ${r.compiler}${r.options ? ' ' + r.options : ''}  ${r.actual.split('\n')[0]}  ${r.dir}`);
  }
  return out.join('\n') + '\n';
}
