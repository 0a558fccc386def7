import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { errFile, isKilnError } from '../diag/errors.js';
import { DEFAULT_SAMPLE, writeReport, type WrittenReport } from '../report/html/index.js';
import { parseCount, reportAndExit } from './util.js';

interface ReportFlags {
  out?: string;
  output?: string;
  campaign?: string;
  sample?: string;
}

/** Registers `kiln report`. */
export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'write a campaign as one self-contained HTML page: summary, plots over time, outcomes per ' +
        'configuration, one section per bug with its reduced test case, and the generator side',
    )
    .option('--out <dir>', 'output folder of the campaign (default ./kiln-out)')
    .option('-o, --output <file>', 'the HTML file to write (default DIR/report.html)')
    .option('--campaign <id>', 'campaign to show (default: the latest)')
    .option(
      '--sample <n>',
      `programs regenerated from their seeds for the size, live-code and census plots ` +
        `(default ${DEFAULT_SAMPLE}; 0: none)`,
    )
    .addHelpText(
      'after',
      `
Examples:
  kiln report                          writes kiln-out/report.html; open it in any browser (no network needed)
  kiln report --out big-run -o ~/big-run.html --sample 100
'kiln fuzz' rewrites DIR/report.html every few minutes and when it stops.`,
    )
    .action((flags: ReportFlags) => {
      try {
        const out = flags.out ?? 'kiln-out';
        const r = writeCampaignReport(out, {
          ...(flags.output !== undefined ? { file: flags.output } : {}),
          ...(flags.campaign !== undefined ? { campaignId: parseCount('--campaign', flags.campaign, 0, 1) } : {}),
          sample: parseCount('--sample', flags.sample, DEFAULT_SAMPLE, 0),
        });
        process.stdout.write(
          `kiln report: campaign ${r.campaignId}, ${r.groups} finding groups → ${r.file} ` +
            `(${(r.bytes / 1024).toFixed(0)} KiB)\nopen ${pathToFileURL(r.file).href}\n`,
        );
      } catch (e) {
        reportAndExit(e);
      }
    });
}

/** Writes a report, turning file-system failures into user errors. */
export function writeCampaignReport(
  out: string,
  opts: { file?: string; campaignId?: number; sample: number },
): WrittenReport {
  try {
    return writeReport(out, opts);
  } catch (e) {
    if (isKilnError(e)) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code && /^E[A-Z]+$/.test(code))
      throw errFile(resolve((e as NodeJS.ErrnoException).path ?? opts.file ?? out), `cannot write the report: ${code}`);
    throw e;
  }
}
