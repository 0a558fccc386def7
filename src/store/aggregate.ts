// SQL aggregation of one campaign for `kiln report`. Everything a page shows is counted here,
// in SQLite, so the page's size depends on the number of time bins, configurations and groups,
// never on the number of tests (a week-long campaign has millions).
import type Database from 'better-sqlite3';
import { errState } from '../diag/errors.js';
import type { CampaignRow, KilnStore } from './store.js';

/** Most time bins a time series gets: long campaigns use wider bins instead of more of them. */
export const MAX_TIME_BINS = 720;

/** Findings listed by name in each group (the rest are counted; `kiln findings` lists them all). */
export const FINDINGS_LISTED_PER_GROUP = 50;

/**
 * Columns of the `seeds` table that hold the generator's live-code metrics, when the store has
 * them (they are read only if present, so the report works on stores written before they existed).
 */
export const LIVE_CODE_COLUMNS = {
  statements: 'statements',
  liveStatements: 'live_statements',
  lines: 'lines',
} as const;

/** One session (process run) of a campaign. */
interface SessionSpan {
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly endReason: string | null;
}

/** A count in one time bin (bin i covers [start + i·binMinutes, start + (i+1)·binMinutes) minutes). */
interface BinCount {
  readonly bin: number;
  readonly count: number;
}

/** Tests of one configuration with one outcome. */
interface OutcomeCell {
  readonly compiler: string;
  readonly options: string;
  readonly outcome: string;
  readonly count: number;
}

/** A compiler and option set a group's findings came from. */
interface AffectedConfig {
  readonly compiler: string;
  readonly compilerVersion: string;
  readonly options: string;
  readonly count: number;
}

/** One listed finding of a group. */
interface GroupFinding {
  readonly id: string;
  readonly seed: string;
  readonly compiler: string;
  readonly options: string;
  readonly createdAt: string;
  /** Finding folder, relative to the output folder. */
  readonly dir: string;
  /** Reduced program as stored (relative to the output folder when inside it), if reduced. */
  readonly reducedFile: string | null;
  readonly reducedLines: number | null;
}

/** A group of findings: one triage fingerprint, or one campaign bucket before triage. */
export interface FindingGroupAggregate {
  readonly key: string;
  readonly triaged: boolean;
  readonly count: number;
  readonly outcomes: readonly string[];
  readonly buckets: readonly string[];
  readonly firstSeen: string;
  readonly lastSeen: string;
  /** No finding of an earlier campaign of this store is in the group. */
  readonly newInCampaign: boolean;
  /** The campaign has had several sessions and the group's first finding came in the latest. */
  readonly newInSession: boolean;
  readonly affected: readonly AffectedConfig[];
  /** The group's smallest reduced finding, else its first. */
  readonly representative: GroupFinding & {
    readonly outcome: string;
    readonly fingerprint: string | null;
    readonly expected: string;
    readonly actual: string;
    readonly stderr: string;
    readonly command: string;
  };
  /** The first {@link FINDINGS_LISTED_PER_GROUP} findings, oldest first. */
  readonly listed: readonly GroupFinding[];
  /** Findings per time bin. */
  readonly bins: readonly BinCount[];
}

/** A program on which every configuration agreed against the interpreter. */
interface InternalCaseRow {
  readonly id: string;
  readonly seed: string;
  readonly expected: string;
  readonly actual: string;
  readonly dir: string;
}

/** A histogram: `count` values fell in [lo, hi). */
export interface HistogramBin {
  readonly lo: number;
  readonly hi: number;
  readonly count: number;
}

/** Everything the report shows of a campaign, counted in SQL. */
export interface CampaignAggregate {
  readonly campaign: CampaignRow;
  /** Campaigns of the store before this one (their groups are not new). */
  readonly earlierCampaigns: number;
  readonly sessions: readonly SessionSpan[];
  /** Wall time of all sessions (a running session counts up to now). */
  readonly timeSpentMs: number;
  /** Time origin of every bin: the campaign's start. */
  readonly startedAt: string;
  readonly binMinutes: number;
  readonly testsPerBin: readonly BinCount[];
  readonly findingsPerBin: readonly BinCount[];
  /** Groups first seen in each bin. */
  readonly newGroupsPerBin: readonly BinCount[];
  readonly outcomes: readonly OutcomeCell[];
  readonly groups: readonly FindingGroupAggregate[];
  readonly internalCases: readonly InternalCaseRow[];
  readonly seedStatus: Readonly<Record<string, number>>;
  /** Generation time per program (ms). */
  readonly genMs: readonly HistogramBin[];
  /** Live-code metrics over every program, from {@link LIVE_CODE_COLUMNS}, when the store has them. */
  readonly liveCode?: {
    readonly statements: readonly HistogramBin[];
    readonly liveShare: readonly HistogramBin[];
    readonly lines?: readonly HistogramBin[];
  };
}

/** Aggregates one campaign of a store (the latest when no id is given). */
export function aggregateCampaign(
  store: KilnStore,
  campaignId?: number,
  nowIso: string = new Date().toISOString(),
): CampaignAggregate {
  const campaign = campaignId === undefined ? store.latestCampaign() : store.campaign(campaignId);
  if (!campaign)
    throw errState(
      campaignId === undefined
        ? `no campaign in ${store.path}`
        : `campaign ${campaignId} does not exist in ${store.path}`,
      "run 'kiln fuzz' first, or name a campaign that exists",
    );
  const db = store.db;
  const id = campaign.id;
  const sessions = (
    db
      .prepare('SELECT started_at, ended_at, end_reason FROM sessions WHERE campaign_id = ? ORDER BY started_at')
      .all(id) as { started_at: string; ended_at: string | null; end_reason: string | null }[]
  ).map((s) => ({ startedAt: s.started_at, endedAt: s.ended_at, endReason: s.end_reason }));
  const now = Date.parse(nowIso);
  const timeSpentMs = sessions.reduce(
    (sum, s) => sum + Math.max(0, (s.endedAt ? Date.parse(s.endedAt) : now) - Date.parse(s.startedAt)),
    0,
  );
  const start = campaign.startedAt;
  const last = db
    .prepare(
      'SELECT MAX(t) AS t FROM (SELECT MAX(finished_at) AS t FROM seeds WHERE campaign_id = ? UNION ALL ' +
        'SELECT MAX(created_at) FROM findings WHERE campaign_id = ?)',
    )
    .get(id, id) as { t: string | null };
  const spanMinutes = last.t ? Math.max(0, (Date.parse(last.t) - Date.parse(start)) / 60_000) : 0;
  const binMinutes = Math.max(1, Math.ceil(spanMinutes / MAX_TIME_BINS));
  const bin = (col: string): string =>
    `MAX(0, CAST((julianday(${col}) - julianday(@start)) * 1440 / @width AS INTEGER))`;
  const p = { id, start, width: binMinutes };

  const testsPerBin = db
    .prepare(
      `SELECT ${bin('s.finished_at')} AS bin, COUNT(*) AS count FROM seeds s JOIN tests t ON t.campaign_id ` +
        `= s.campaign_id AND t.seed = s.seed WHERE s.campaign_id = @id GROUP BY bin ORDER BY bin`,
    )
    .all(p) as BinCount[];
  const findingsPerBin = db
    .prepare(
      `SELECT ${bin('created_at')} AS bin, COUNT(*) AS count FROM findings WHERE campaign_id = @id GROUP BY ` +
        `bin ORDER BY bin`,
    )
    .all(p) as BinCount[];
  const groupKey = 'COALESCE(fingerprint, bucket)';
  const newGroupsPerBin = db
    .prepare(
      `SELECT ${bin('first')} AS bin, COUNT(*) AS count FROM (SELECT MIN(created_at) AS first FROM findings ` +
        `WHERE campaign_id = @id GROUP BY ${groupKey}) GROUP BY bin ORDER BY bin`,
    )
    .all(p) as BinCount[];
  const outcomes = db
    .prepare(
      'SELECT compiler, options, outcome, COUNT(*) AS count FROM tests WHERE campaign_id = ? GROUP BY ' +
        'compiler, options, outcome',
    )
    .all(id) as OutcomeCell[];

  // With one session every group is new to it: the mark would say nothing.
  const lastSession = sessions.length > 1 ? sessions[sessions.length - 1]!.startedAt : undefined;
  const groups = findingGroups(db, p, groupKey, bin('created_at'), lastSession);
  const earlierCampaigns = (db.prepare('SELECT COUNT(*) AS n FROM campaigns WHERE id < ?').get(id) as { n: number }).n;
  const internalCases = (
    db
      .prepare(
        'SELECT id, CAST(seed AS TEXT) AS seed, expected, actual, dir FROM internal_cases WHERE campaign_id ' +
          '= ? ORDER BY created_at, id',
      )
      .all(id) as InternalCaseRow[]
  ).map((r) => ({ ...r }));
  const seedStatus = Object.fromEntries(
    (
      db.prepare('SELECT status, COUNT(*) AS n FROM seeds WHERE campaign_id = ? GROUP BY status').all(id) as {
        status: string;
        n: number;
      }[]
    ).map((r) => [r.status, r.n]),
  );
  const genMs = histogram(db, 'seeds', 'gen_ms', "campaign_id = @id AND status = 'tested' AND gen_ms IS NOT NULL", p);
  const liveCode = liveCodeHistograms(db, p);
  return {
    campaign,
    earlierCampaigns,
    sessions,
    timeSpentMs,
    startedAt: start,
    binMinutes,
    testsPerBin,
    findingsPerBin,
    newGroupsPerBin,
    outcomes,
    groups,
    internalCases,
    seedStatus,
    genMs,
    ...(liveCode ? { liveCode } : {}),
  };
}

/** The seeds of a campaign whose program was tested (for the mode mix and the generator sample). */
export function testedSeeds(store: KilnStore, campaignId: number): Iterable<bigint> {
  const it = store.db
    .prepare("SELECT seed FROM seeds WHERE campaign_id = ? AND status = 'tested' ORDER BY seed")
    .safeIntegers(true)
    .iterate(campaignId) as Iterable<{ seed: bigint }>;
  return (function* () {
    for (const r of it) yield r.seed;
  })();
}

/** Findings of the campaign per seed (to attribute findings to generation modes). */
export function findingsPerSeed(store: KilnStore, campaignId: number): Map<bigint, number> {
  const rows = store.db
    .prepare('SELECT seed, COUNT(*) AS n FROM findings WHERE campaign_id = ? GROUP BY seed')
    .safeIntegers(true)
    .all(campaignId) as { seed: bigint; n: bigint }[];
  return new Map(rows.map((r) => [r.seed, Number(r.n)]));
}

interface RawGroupFinding {
  grp: string;
  id: string;
  seed: string;
  compiler: string;
  options: string;
  created_at: string;
  dir: string;
  reduced_file: string | null;
  reduced_lines: number | null;
}

function groupFinding(r: RawGroupFinding): GroupFinding {
  return {
    id: r.id,
    seed: r.seed,
    compiler: r.compiler,
    options: r.options,
    createdAt: r.created_at,
    dir: r.dir,
    reducedFile: r.reduced_file,
    reducedLines: r.reduced_lines,
  };
}

function findingGroups(
  db: Database.Database,
  p: { id: number; start: string; width: number },
  groupKey: string,
  bin: string,
  lastSession: string | undefined,
): FindingGroupAggregate[] {
  const cols = 'grp, id, CAST(seed AS TEXT) AS seed, compiler, options, created_at, dir, reduced_file, reduced_lines';
  const heads = db
    .prepare(
      // biome-ignore format: embedded text
      `SELECT ${groupKey} AS grp, COUNT(*) AS n, MIN(created_at) AS first, MAX(created_at) AS last, MAX(fingerprint IS NOT NULL) AS triaged,
              group_concat(DISTINCT outcome) AS outcomes, group_concat(DISTINCT bucket) AS buckets
       FROM findings WHERE campaign_id = @id GROUP BY grp ORDER BY MIN(created_at || id)`,
    )
    .all(p) as {
    grp: string;
    n: number;
    first: string;
    last: string;
    triaged: number;
    outcomes: string;
    buckets: string;
  }[];
  // Groups some earlier campaign of this store already had: not new.
  const older = new Set(
    (
      db.prepare(`SELECT DISTINCT ${groupKey} AS grp FROM findings WHERE campaign_id < @id`).all(p) as { grp: string }[]
    ).map((r) => r.grp),
  );
  const affected = new Map<string, AffectedConfig[]>();
  for (const r of db
    .prepare(
      `SELECT ${groupKey} AS grp, compiler, compiler_version, options, COUNT(*) AS n FROM findings WHERE ` +
        `campaign_id = @id GROUP BY grp, compiler, compiler_version, options ORDER BY grp, n DESC, compiler, ` +
        `options`,
    )
    .all(p) as { grp: string; compiler: string; compiler_version: string; options: string; n: number }[]) {
    push(affected, r.grp, {
      compiler: r.compiler,
      compilerVersion: r.compiler_version,
      options: r.options,
      count: r.n,
    });
  }
  const reps = new Map<string, FindingGroupAggregate['representative']>();
  for (const r of db
    .prepare(
      // biome-ignore format: embedded text
      `SELECT * FROM (SELECT ${cols}, outcome, fingerprint, expected, actual, stderr, command,
                             ROW_NUMBER() OVER (PARTITION BY grp ORDER BY reduced_lines IS NULL, reduced_lines, created_at, id) AS k
                      FROM (SELECT *, ${groupKey} AS grp FROM findings WHERE campaign_id = @id)) WHERE k = 1`,
    )
    .all(p) as (RawGroupFinding & {
    outcome: string;
    fingerprint: string | null;
    expected: string;
    actual: string;
    stderr: string;
    command: string;
  })[]) {
    reps.set(r.grp, {
      ...groupFinding(r),
      outcome: r.outcome,
      fingerprint: r.fingerprint,
      expected: r.expected,
      actual: r.actual,
      stderr: r.stderr,
      command: commandText(r.command),
    });
  }
  const listed = new Map<string, GroupFinding[]>();
  for (const r of db
    .prepare(
      // biome-ignore format: embedded text
      `SELECT * FROM (SELECT ${cols}, ROW_NUMBER() OVER (PARTITION BY grp ORDER BY created_at, id) AS k
                      FROM (SELECT *, ${groupKey} AS grp FROM findings WHERE campaign_id = @id)) WHERE k <= @limit ORDER BY grp, k`,
    )
    .all({ ...p, limit: FINDINGS_LISTED_PER_GROUP }) as RawGroupFinding[]) {
    push(listed, r.grp, groupFinding(r));
  }
  const bins = new Map<string, BinCount[]>();
  for (const r of db
    .prepare(
      `SELECT ${groupKey} AS grp, ${bin} AS bin, COUNT(*) AS count FROM findings WHERE campaign_id = @id ` +
        `GROUP BY grp, bin ORDER BY grp, bin`,
    )
    .all(p) as (BinCount & { grp: string })[]) {
    push(bins, r.grp, { bin: r.bin, count: r.count });
  }
  return heads.map((h) => ({
    key: h.grp,
    triaged: h.triaged === 1,
    count: h.n,
    outcomes: h.outcomes.split(','),
    buckets: h.buckets.split(','),
    firstSeen: h.first,
    lastSeen: h.last,
    newInCampaign: !older.has(h.grp),
    newInSession: lastSession !== undefined && h.first >= lastSession,
    affected: affected.get(h.grp) ?? [],
    representative: reps.get(h.grp)!,
    listed: listed.get(h.grp) ?? [],
    bins: bins.get(h.grp) ?? [],
  }));
}

/** 24 equal-width bins over a numeric column (an empty list when no row has a value). */
function histogram(
  db: Database.Database,
  table: string,
  column: string,
  where: string,
  params: Record<string, unknown>,
  bins = 24,
): HistogramBin[] {
  const r = db
    .prepare(`SELECT MIN(${column}) AS lo, MAX(${column}) AS hi FROM ${table} WHERE ${where}`)
    .get(params) as { lo: number | null; hi: number | null };
  if (r.lo === null || r.hi === null) return [];
  const width = r.hi > r.lo ? (r.hi - r.lo) / bins : 1;
  const rows = db
    .prepare(
      `SELECT MIN(@bins - 1, CAST((${column} - @lo) / @w AS INTEGER)) AS b, COUNT(*) AS n FROM ${table} ` +
        `WHERE ${where} GROUP BY b ORDER BY b`,
    )
    .all({ ...params, bins, lo: r.lo, w: width }) as { b: number; n: number }[];
  return rows.map((x) => ({ lo: r.lo! + x.b * width, hi: r.lo! + (x.b + 1) * width, count: x.n }));
}

/**
 * The generator's live-code metrics over every program of the campaign: read from the `seeds`
 * columns named in {@link LIVE_CODE_COLUMNS} when the store has them, undefined otherwise (the
 * report then shows the distributions of its regenerated sample).
 */
function liveCodeHistograms(db: Database.Database, p: { id: number }): CampaignAggregate['liveCode'] {
  const cols = new Set((db.prepare('PRAGMA table_info(seeds)').all() as { name: string }[]).map((c) => c.name));
  const { statements, liveStatements, lines } = LIVE_CODE_COLUMNS;
  if (!cols.has(statements) || !cols.has(liveStatements)) return undefined;
  const where = `campaign_id = @id AND ${statements} > 0`;
  return {
    statements: histogram(db, 'seeds', statements, where, p),
    liveShare: histogram(db, 'seeds', `(1.0 * ${liveStatements} / ${statements})`, where, p),
    ...(cols.has(lines) ? { lines: histogram(db, 'seeds', lines, `campaign_id = @id AND ${lines} > 0`, p) } : {}),
  };
}

function commandText(json: string): string {
  try {
    const argv = JSON.parse(json) as unknown;
    return Array.isArray(argv) ? argv.map(String).join(' ') : json;
  } catch {
    return json;
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
