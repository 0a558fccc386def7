// What a report shows, assembled from the store's aggregates, the finding folders on disk and the
// regenerated sample. Plain data: render.ts turns it into HTML, the page's script into plots.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { isModeChoice, type Mode, type ModeChoice } from '../../gen/mode.js';
import { parsePolicy, type Policy } from '../../gen/policy.js';
import { OUTCOMES } from '../../harness/oracle.js';
import {
  aggregateCampaign,
  findingsPerSeed,
  testedSeeds,
  type CampaignAggregate,
  type FindingGroupAggregate,
  type HistogramBin,
} from '../../store/aggregate.js';
import type { KilnStore } from '../../store/store.js';
import { featureShares, measureSample, modeMix, sampleSeeds, type SampleCache } from './sample.js';

/** Characters of a reduced test case or crash message shown in the page (the files hold the rest). */
const TEXT_LIMIT = 20_000;

/** How a report is built. */
export interface ReportOptions {
  /** Campaign to show (default: the latest). */
  readonly campaignId?: number;
  /** Programs to regenerate for the size, live-code and census plots (0: none). */
  readonly sample: number;
  /** Regenerated programs kept between refreshes (a running campaign's report). */
  readonly cache?: SampleCache;
  /** Programs missing from the cache to regenerate at most (default: all of the sample). */
  readonly maxNewSamples?: number;
  /** Where the page will be written: links are relative to its folder. */
  readonly file: string;
  /** The time the report is made (tests pin it). */
  readonly now?: string;
}

/** A link from the page to a file of the output folder. */
export interface FileLink {
  readonly label: string;
  /** Relative to the page's folder, URL-encoded. */
  readonly href: string;
}

/** One group of findings as shown. */
export interface GroupView extends FindingGroupAggregate {
  readonly anchor: string;
  /** The reduced test case's text, when the representative is reduced. */
  readonly reducedText?: string;
  readonly links: readonly FileLink[];
  readonly listedLinks: readonly FileLink[];
}

/** A distribution over every program, or over the regenerated sample. */
export interface Distribution {
  readonly bins: readonly HistogramBin[];
  /** `store`: every program of the campaign; `sample`: the regenerated programs. */
  readonly source: 'store' | 'sample';
  readonly programs: number;
}

/** Everything the page shows. */
export interface ReportModel {
  readonly generatedAt: string;
  readonly outDir: string;
  readonly agg: CampaignAggregate;
  readonly compilers: readonly { name: string; version: string; command: string }[];
  readonly optionSets: readonly string[];
  readonly modeChoice: ModeChoice;
  readonly policyName: string;
  readonly jobs: number | null;
  /** Configurations in matrix order (compiler, then option set), as the heat map's rows. */
  readonly configs: readonly string[];
  readonly groups: readonly GroupView[];
  readonly modes: readonly { mode: Mode; programs: number; findings: number }[];
  readonly sampleSize: number;
  readonly sizes?: Distribution;
  readonly statements?: Distribution;
  readonly liveShare?: Distribution;
  readonly census: readonly { feature: string; description: string; share: number }[];
  readonly internalLinks: readonly FileLink[];
}

/** Builds the report model of one campaign. */
export function buildReportModel(store: KilnStore, opts: ReportOptions): ReportModel {
  const now = opts.now ?? new Date().toISOString();
  const agg = aggregateCampaign(store, opts.campaignId, now);
  const c = agg.campaign;
  const config = (c.config ?? {}) as { optionSets?: string[]; mode?: string; policy?: unknown; jobs?: number };
  const compilers = Array.isArray(c.compilers)
    ? (c.compilers as { name: string; version: string; command: string }[]).map((x) => ({
        name: String(x.name),
        version: String(x.version ?? ''),
        command: String(x.command ?? x.name),
      }))
    : [];
  const optionSets = Array.isArray(config.optionSets) ? config.optionSets.map(String) : [];
  const modeChoice: ModeChoice = typeof config.mode === 'string' && isModeChoice(config.mode) ? config.mode : 'csmith';
  const policy = storedPolicy(config.policy);
  const pageDir = dirname(opts.file);
  const link = (label: string, path: string): FileLink => ({
    label,
    href: hrefFrom(pageDir, isAbsolute(path) ? path : join(store.outDir, path)),
  });

  const seen = new Set(agg.outcomes.map((o) => `${o.compiler} ${o.options}`.trim()));
  const configs = compilers.flatMap((k) => optionSets.map((o) => `${k.name} ${o}`.trim())).filter((x) => seen.has(x));
  for (const x of [...seen].sort()) if (!configs.includes(x)) configs.push(x);

  const groups = agg.groups.map((g, i) => groupView(g, i, store.outDir, link));
  const mix = modeMix(testedSeeds(store, c.id), modeChoice, findingsPerSeed(store, c.id));
  const sample =
    policy && opts.sample > 0
      ? measureSample(
          sampleSeeds(testedSeeds(store, c.id), opts.sample),
          policy,
          modeChoice,
          opts.cache,
          opts.maxNewSamples,
        )
      : [];
  const fromSample = (values: number[]): Distribution | undefined =>
    values.length ? { bins: binValues(values), source: 'sample', programs: values.length } : undefined;
  const programs = c.programs - c.discarded;
  const live = agg.liveCode;
  return {
    generatedAt: now,
    outDir: store.outDir,
    agg,
    compilers,
    optionSets,
    modeChoice,
    policyName: policy?.name ?? 'unknown',
    jobs: typeof config.jobs === 'number' ? config.jobs : null,
    configs,
    groups,
    modes: (Object.keys(mix) as Mode[]).map((m) => ({ mode: m, ...mix[m] })),
    sampleSize: sample.length,
    ...optional(
      'sizes',
      live?.lines ? { bins: live.lines, source: 'store' as const, programs } : fromSample(sample.map((p) => p.lines)),
    ),
    ...optional(
      'statements',
      live
        ? { bins: live.statements, source: 'store' as const, programs }
        : fromSample(sample.map((p) => p.statements)),
    ),
    ...optional(
      'liveShare',
      live
        ? { bins: live.liveShare, source: 'store' as const, programs }
        : fromSample(sample.filter((p) => p.statements > 0).map((p) => p.liveStatements / p.statements)),
    ),
    census: sample.length ? featureShares(sample) : [],
    internalLinks: agg.internalCases.map((x) => link(x.id, x.dir)),
  };
}

/** The outcomes in the oracle's order (the heat map's columns). */
export const OUTCOME_ORDER: readonly string[] = OUTCOMES;

function optional<K extends string, V>(key: K, v: V | undefined): { [k in K]?: V } {
  return (v === undefined ? {} : { [key]: v }) as { [k in K]?: V };
}

function storedPolicy(raw: unknown): Policy | undefined {
  try {
    return raw === undefined ? undefined : parsePolicy(raw);
  } catch {
    // A campaign of an older Kiln whose policy no longer validates: no sample, everything else shown.
    return undefined;
  }
}

function groupView(
  g: FindingGroupAggregate,
  i: number,
  outDir: string,
  link: (label: string, path: string) => FileLink,
): GroupView {
  const rep = g.representative;
  const links: FileLink[] = [link('finding folder', rep.dir)];
  for (const [label, file] of [
    ['prog.c', 'prog.c'],
    ['finding.json', 'finding.json'],
    ['repro.sh', 'repro.sh'],
    ['triage.json', 'triage.json'],
    ['reduced.c', 'reduced.c'],
    ['bug report (report.md)', join('reduced', 'report.md')],
  ] as const) {
    if (existsSync(join(outDir, rep.dir, file))) links.push(link(label, join(rep.dir, file)));
  }
  const reducedText = rep.reducedFile
    ? readReduced(isAbsolute(rep.reducedFile) ? rep.reducedFile : join(outDir, rep.reducedFile))
    : undefined;
  return {
    ...g,
    anchor: `group-${i + 1}`,
    ...(reducedText !== undefined ? { reducedText } : {}),
    links,
    listedLinks: g.listed.map((f) => link(f.id, f.dir)),
  };
}

/** The reduced program: a file, or the folder of a reduced program of several translation units. */
function readReduced(path: string): string | undefined {
  try {
    if (statSync(path).isDirectory()) {
      const files = readdirSync(path)
        .filter((f) => /\.[ch]$/.test(f))
        .sort();
      return clip(files.map((f) => `/* ---- ${f} ---- */\n${readFileSync(join(path, f), 'utf8')}`).join('\n'));
    }
    return clip(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Truncates long text for the page, saying so. */
export function clip(text: string, limit = TEXT_LIMIT): string {
  return text.length > limit
    ? `${text.slice(0, limit)}\n[... ${text.length - limit} more characters in the file]`
    : text;
}

/** A URL path from the page's folder to a file, each segment encoded. */
function hrefFrom(pageDir: string, target: string): string {
  const rel = relative(pageDir, target) || '.';
  return rel.split(sep).map(encodeURIComponent).join('/');
}

/** Equal-width bins over sampled values (at most 20). */
function binValues(values: readonly number[]): HistogramBin[] {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const n = Math.min(20, Math.max(1, Math.ceil(Math.sqrt(values.length))));
  const width = hi > lo ? (hi - lo) / n : 1;
  const counts = new Array<number>(n).fill(0);
  for (const v of values) counts[Math.min(n - 1, Math.floor((v - lo) / width))]!++;
  return counts.flatMap((count, b) => (count ? [{ lo: lo + b * width, hi: lo + (b + 1) * width, count }] : []));
}
