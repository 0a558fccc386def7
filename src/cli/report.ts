import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { errFile, isKilnError } from '../diag/errors.js';
import { DEFAULT_SAMPLE, writeReport, type SampleCache, type WrittenReport } from '../report/html/index.js';
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
    .description('write a campaign as one self-contained HTML page: summary, plots over time, outcomes per configuration, one section per bug with its reduced test case, and the generator side')
    .option('--out <dir>', 'output folder of the campaign (default ./kiln-out)')
    .option('-o, --output <file>', 'the HTML file to write (default DIR/report.html)')
    .option('--campaign <id>', 'campaign to show (default: the latest)')
    .option('--sample <n>', `programs regenerated from their seeds for the size, live-code and census plots (default ${DEFAULT_SAMPLE}; 0: none)`)
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
        process.stdout.write(`kiln report: campaign ${r.campaignId}, ${r.groups} finding groups → ${r.file} (${(r.bytes / 1024).toFixed(0)} KiB)\nopen ${pathToFileURL(r.file).href}\n`);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

/** Writes a report, turning file-system failures into user errors. */
export function writeCampaignReport(out: string, opts: { file?: string; campaignId?: number; sample: number }): WrittenReport {
  try {
    return writeReport(out, opts);
  } catch (e) {
    if (isKilnError(e)) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code && /^E[A-Z]+$/.test(code)) throw errFile(resolve((e as NodeJS.ErrnoException).path ?? opts.file ?? out), `cannot write the report: ${code}`);
    throw e;
  }
}

/** How often a running campaign rewrites its report. */
export const REPORT_REFRESH_MS = 3 * 60_000;

/**
 * Programs one refresh regenerates at most, the final one included: the sample grows over the
 * refreshes of a long campaign, while a short session's end (and a Ctrl-C) waits for a second or
 * two at most. `kiln report` regenerates the whole sample.
 */
const NEW_SAMPLES_PER_REFRESH = 4;

/**
 * Keeps `DIR/report.html` of a running campaign current: rewritten every few minutes and once
 * more when the session ends. A report that cannot be written is a warning, never the end of the
 * campaign; regenerated sample programs are kept between refreshes.
 */
export class ReportRefresher {
  private readonly cache: SampleCache = new Map();
  private timer: NodeJS.Timeout | undefined;
  private warned = false;

  constructor(
    private readonly out: string,
    private readonly campaignId: number,
    private readonly warn: (message: string) => void,
  ) {}

  /** Starts the periodic refresh (the timer never keeps the process alive). */
  start(everyMs: number = REPORT_REFRESH_MS): void {
    this.timer = setInterval(() => this.write(NEW_SAMPLES_PER_REFRESH), everyMs);
    this.timer.unref();
  }

  /** Stops the timer and writes the final report; returns its path, or undefined when it failed. */
  finish(): string | undefined {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    return this.write(NEW_SAMPLES_PER_REFRESH);
  }

  private write(maxNewSamples: number): string | undefined {
    try {
      return writeReport(this.out, { campaignId: this.campaignId, sample: DEFAULT_SAMPLE, cache: this.cache, maxNewSamples }).file;
    } catch (e) {
      if (!this.warned) this.warn(`kiln fuzz: warning: cannot write the report in ${this.out}: ${(e as Error).message.split('\n')[0]} (the campaign goes on; 'kiln report' writes it later)`);
      this.warned = true;
      return undefined;
    }
  }
}
