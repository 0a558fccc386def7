// `kiln report`'s library entry: one campaign of an output folder → one self-contained HTML file.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { KilnStore } from '../../store/store.js';
import { loadChartAssets, type ChartAssets } from './assets.js';
import { buildReportModel, type ReportOptions } from './model.js';
import { renderReport } from './render.js';

export type { SampleCache } from './sample.js';

/** The report's file name inside an output folder. */
export const REPORT_FILE = 'report.html';

/** Programs regenerated for the generator plots by default. */
export const DEFAULT_SAMPLE = 24;

/** What {@link writeReport} wrote. */
export interface WrittenReport {
  readonly file: string;
  readonly bytes: number;
  readonly campaignId: number;
  readonly groups: number;
}

/** Options of {@link writeReport}; `file` defaults to `<outDir>/report.html`. */
export type WriteReportOptions = Partial<ReportOptions> & { readonly assets?: ChartAssets };

/**
 * Writes the report of a campaign (the latest by default) of an output folder. The file is
 * written beside its final name and renamed over it, so a browser reloading it never sees half a page.
 */
export function writeReport(outDir: string, opts: WriteReportOptions = {}): WrittenReport {
  const file = resolve(opts.file ?? join(outDir, REPORT_FILE));
  const store = KilnStore.open(outDir, 'read');
  let html: string;
  let campaignId: number;
  let groups: number;
  try {
    const model = buildReportModel(store, { ...opts, file, sample: opts.sample ?? DEFAULT_SAMPLE });
    html = renderReport(model, opts.assets ?? loadChartAssets());
    campaignId = model.agg.campaign.id;
    groups = model.groups.length;
  } finally {
    store.close();
  }
  const tmp = join(dirname(file), `.${basename(file)}.tmp-${process.pid}`);
  try {
    const fd = openSync(tmp, 'w', 0o644);
    try {
      writeSync(fd, html);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  return { file, bytes: Buffer.byteLength(html), campaignId, groups };
}
