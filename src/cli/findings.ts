import type { Command } from 'commander';
import { errBadOption } from '../diag/errors.js';
import { KilnStore, type FindingGrouping, type FindingRow } from '../store/store.js';
import { knownFileOf, matchKnown, readKnown } from '../triage/known.js';
import { emiOf, formatFindings, versionsOf } from './findings-format.js';
import { reportAndExit } from './util.js';

interface FindingsFlags {
  out?: string;
  json?: boolean;
  group?: string;
}

/** Registers `kiln findings`. */
export function registerFindings(program: Command): void {
  program
    .command('findings')
    .description(
      "list the findings of the campaigns in an output folder, one group per bug: by triage's fingerprint " +
        '(the pass to blame), or by campaign bucket before triage',
    )
    .option('--out <dir>', 'output folder of the campaigns (default ./kiln-out)')
    .option(
      '--group <key>',
      "group by 'fingerprint' (falling back to the bucket for findings not triaged yet) or by campaign 'bucket'",
      'fingerprint',
    )
    .option(
      '--json',
      'print one JSON array of {id, outcome, bucket, fingerprint, group, compiler, compilerVersion, ' +
        'options, seed, campaign, expected, actual, dir, reducedLines, reducedFile, hangStatus, ' +
        'nondeterministic}',
    )
    .action((flags: FindingsFlags) => {
      try {
        const grouping = parseGrouping(flags.group);
        const store = KilnStore.open(flags.out ?? 'kiln-out', 'read');
        let rows: FindingRow[];
        let unstored: Map<string, number>;
        try {
          rows = store.listFindings(grouping);
          unstored = store.unstoredFindings();
        } finally {
          store.close();
        }
        // The output folder's known bugs, also for findings recorded before their entry was added by hand.
        const known = readKnown(knownFileOf(flags.out ?? 'kiln-out'));
        rows = rows.map((r) => (r.known !== null ? r : { ...r, known: matchKnown(known, r)?.note ?? null }));
        if (flags.json) {
          const list = rows.map((r) => ({
            id: r.id,
            outcome: r.outcome,
            bucket: r.bucket,
            fingerprint: r.fingerprint,
            group: grouping === 'bucket' ? r.bucket : r.group,
            compiler: r.compiler,
            compilerVersion: r.compilerVersion,
            options: r.options,
            seed: r.seed,
            campaign: r.campaignId,
            expected: r.expected,
            actual: r.actual,
            dir: r.dir,
            createdAt: r.createdAt,
            reducedLines: r.reducedLines,
            reducedFile: r.reducedFile,
            hangStatus: r.hangStatus,
            nondeterministic: r.nondeterministic,
            emi: emiOf(r.dir) ?? null,
            versionLabel: versionsOf(r.dir)?.label ?? null,
            known: r.known,
            knownFixed: r.knownFixed,
            versions: versionsOf(r.dir) ?? null,
          }));
          process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
          return;
        }
        process.stdout.write(formatFindings(rows, grouping, unstored));
      } catch (e) {
        reportAndExit(e);
      }
    });
}

function parseGrouping(value: string | undefined): FindingGrouping {
  if (value === undefined || value === 'fingerprint') return 'fingerprint';
  if (value === 'bucket') return 'bucket';
  throw errBadOption('--group', value, "'fingerprint' or 'bucket'");
}
