import { DEFAULT_SAMPLE, writeReport, type SampleCache } from '../report/html/index.js';

/** How often a running campaign rewrites its report. */
const REPORT_REFRESH_MS = 3 * 60_000;

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
      return writeReport(this.out, {
        campaignId: this.campaignId,
        sample: DEFAULT_SAMPLE,
        cache: this.cache,
        maxNewSamples,
      }).file;
    } catch (e) {
      if (!this.warned)
        this.warn(
          `kiln fuzz: warning: cannot write the report ` +
            `in ${this.out}: ${(e as Error).message.split('\n')[0]} (the campaign goes on; 'kiln report' ` +
            `writes it later)`,
        );
      this.warned = true;
      return undefined;
    }
  }
}
