import { readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { errState } from '../diag/errors.js';
import { decideCap, programSize, type CapDecision } from './cap.js';
import { DB_FILE, openDatabase, writeTransaction, type OpenMode } from './db.js';
import { replaceFileDurably, writeFolderDurably, type FileSpec } from './files.js';
import { endDeadSessions, recordSession, runningElsewhere } from './sessions.js';
import {
  campaignRow,
  findingRow,
  type CampaignRow,
  type FindingRow,
  type RawCampaign,
  type RawFinding,
} from './rows.js';
import { campaignBlocks, claimSeedBlock, SEED_BLOCK, unfinishedSeeds } from './seeds.js';

export type { CampaignRow, FindingRow } from './rows.js';

/** Folders of the output directory. */
export const FINDINGS_DIR = 'findings';
export const INTERNAL_DIR = 'internal';

/** What a new campaign records. */
export interface NewCampaign {
  readonly config: unknown;
  readonly compilers: unknown;
  readonly seedStart: bigint;
  readonly maxTests?: number;
}

/** One (program, configuration) outcome. */
export interface TestRecord {
  readonly compiler: string;
  readonly compilerVersion: string;
  readonly options: string;
  readonly outcome: string;
  readonly durationMs: number;
  readonly bucket?: string;
  readonly flaky?: boolean;
  readonly findingId?: string;
}

/** A finding: a row plus the folder `findings/<id>/` written before the row. */
export interface FindingRecord {
  readonly id: string;
  readonly outcome: string;
  readonly bucket: string;
  readonly compiler: string;
  readonly compilerVersion: string;
  readonly options: string;
  readonly command: readonly string[];
  readonly expected: string;
  readonly actual: string;
  readonly stderr: string;
  /** `suspected` for a hang seen under the short limit only (see {@link KilnStore.setHangStatus}). */
  readonly hangStatus?: string;
  /** True when the failure behaved differently between runs. */
  readonly nondeterministic?: boolean;
  /** Every failing behaviour seen (stored as JSON). */
  readonly behaviours?: readonly unknown[];
  readonly files: readonly FileSpec[];
  /** The note of the known bug it matches (src/triage/known.ts). */
  readonly known?: string;
  /** A newer compiler of its family that compiled the same program without the bug. */
  readonly knownFixed?: string;
}

/** A program on which every configuration agreed against the interpreter (a Kiln bug). */
export interface InternalRecord {
  readonly id: string;
  readonly expected: string;
  readonly actual: string;
  readonly files: readonly FileSpec[];
}

/** Everything one finished seed adds to the store, committed in one transaction. */
export interface ProgramRecord {
  readonly seed: bigint;
  readonly status: 'tested' | 'discarded' | 'error';
  readonly genMs: number;
  readonly reason?: string;
  readonly tests: readonly TestRecord[];
  readonly findings: readonly FindingRecord[];
  readonly internal?: InternalRecord;
}

/** What {@link KilnStore.listFindings} groups and orders by. */
export type FindingGrouping = 'fingerprint' | 'bucket';

/** One group of findings: one fingerprint (or bucket, for findings not triaged yet). */
export interface FindingGroup {
  /** The fingerprint, or the bucket when no finding of the group is triaged. */
  readonly key: string;
  /** False when the key is a campaign bucket standing in for a missing fingerprint. */
  readonly triaged: boolean;
  readonly count: number;
  /** Finding ids, oldest first. */
  readonly findingIds: readonly string[];
  /** Buckets the group spans (a pass fingerprint can join several option sets and compilers). */
  readonly buckets: readonly string[];
  /** The smallest reduced program of the group, if any was reduced. */
  readonly smallest?: { readonly findingId: string; readonly lines: number; readonly file: string | null };
}

/** A reduction's result as the store keeps it. */
export interface ReducedInfo {
  readonly lines: number;
  /** The reduced file: a path inside the output folder is stored relative to it. */
  readonly file: string;
}

/** Which seeds of a campaign are finished. */
export interface SeedProgress {
  readonly done: number;
  /** Seeds the campaign claimed but did not finish (in flight when a session ended), in order. */
  readonly gaps: bigint[];
  /** The first seed after the campaign's last claimed block (its start when it claimed none). */
  readonly next: bigint;
}

/** What {@link KilnStore.recordProgram} did with a program's findings under the per-bucket cap. */
export interface RecordResult {
  /** Findings stored (folder and row), in the program's order. */
  readonly kept: readonly {
    readonly id: string;
    readonly bucket: string;
    readonly as: 'first' | 'smallest';
    readonly replaced?: string;
  }[];
  /** Findings counted but not stored: their bucket already holds its first N and a smaller program. */
  readonly dropped: readonly { readonly id: string; readonly bucket: string }[];
}

/** Options of {@link KilnStore.recordProgram}. */
export interface RecordOptions {
  /**
   * Findings stored per bucket: the first N, plus the smallest program seen after them (which
   * replaces the previous smallest); the rest are counted in `bucket_overflow`. Undefined: no cap.
   */
  readonly maxPerBucket?: number;
}

/**
 * The campaign store of one output folder: SQLite tables (see schema.ts) plus one folder per
 * finding. A finding's folder is written and fsync'ed before its row is committed, and a seed's
 * rows (seed, tests, findings, counters) are committed together, so a crash at any point loses no
 * finished seed and leaves no half-recorded one.
 */
export class KilnStore {
  /** Statements of the per-seed write path, prepared once per store (preparing cost more than running them). */
  private readonly statements = new Map<string, Database.Statement>();

  private constructor(
    readonly outDir: string,
    readonly db: Database.Database,
  ) {}

  /** A prepared statement of this store's connection, prepared on first use. */
  private cached(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /**
   * Opens the store of an output folder (see {@link openDatabase} for the validation). Opened for
   * writing, it first marks ended the sessions whose process died without ending them (kill -9).
   */
  static open(outDir: string, mode: OpenMode): KilnStore {
    const store = new KilnStore(outDir, openDatabase(outDir, mode));
    if (mode === 'write') {
      try {
        store.endDeadSessions();
      } catch (e) {
        store.close();
        throw e;
      }
    }
    return store;
  }

  /** Path of the database file. */
  get path(): string {
    return join(this.outDir, DB_FILE);
  }

  close(): void {
    this.db.close();
  }

  /** Records a new campaign and returns its id. */
  createCampaign(c: NewCampaign): number {
    const r = this.db
      .prepare('INSERT INTO campaigns (started_at, config, compilers, seed_start, max_tests) VALUES (?, ?, ?, ?, ?)')
      .run(now(), JSON.stringify(c.config), JSON.stringify(c.compilers), c.seedStart, c.maxTests ?? null);
    return Number(r.lastInsertRowid);
  }

  /** The most recent campaign, if any. */
  latestCampaign(): CampaignRow | undefined {
    const row = this.db.prepare('SELECT * FROM campaigns ORDER BY id DESC LIMIT 1').safeIntegers(true).get() as
      | RawCampaign
      | undefined;
    return row && campaignRow(row);
  }

  /** One campaign by id. */
  campaign(id: number): CampaignRow | undefined {
    const row = this.db.prepare('SELECT * FROM campaigns WHERE id = ?').safeIntegers(true).get(id) as
      | RawCampaign
      | undefined;
    return row && campaignRow(row);
  }

  /**
   * The first seed after every seed this store's campaigns have used or claimed (new campaigns
   * start there by default). Two campaigns created at once may both start here; their seed claims
   * ({@link claimSeeds}) still keep them apart.
   */
  nextUnusedSeed(): bigint {
    const r = this.db.prepare('SELECT MAX(seed) AS s FROM seeds').safeIntegers(true).get() as { s: bigint | null };
    const c = this.db.prepare('SELECT MAX(seed_start) AS s FROM campaigns').safeIntegers(true).get() as {
      s: bigint | null;
    };
    const k = this.db.prepare('SELECT MAX(last_seed) AS s FROM seed_claims').safeIntegers(true).get() as {
      s: bigint | null;
    };
    const hi = [r.s, c.s, k.s].filter((x): x is bigint => x !== null);
    if (hi.length === 0) return 1n;
    return hi.reduce((a, b) => (a > b ? a : b)) + 1n;
  }

  /**
   * Claims the campaign's next block of seeds no other campaign of this store has claimed, in one
   * write transaction; undefined when the seed space is used up.
   */
  claimSeeds(campaignId: number, size: number = SEED_BLOCK): { first: bigint; last: bigint } | undefined {
    return claimSeedBlock(this.db, campaignId, size, now());
  }

  /**
   * The seeds a session of the campaign tests, in order: the unfinished seeds of its earlier
   * blocks (`gaps`), then fresh blocks claimed one at a time as the campaign asks for more.
   */
  *campaignSeeds(campaignId: number, gaps: readonly bigint[], blockSize: number = SEED_BLOCK): Generator<bigint> {
    yield* gaps;
    for (;;) {
      const b = this.claimSeeds(campaignId, blockSize);
      if (!b) return;
      for (let s = b.first; s <= b.last; s++) yield s;
    }
  }

  /**
   * Marks a campaign as run by this process (a session). Refuses when another live process runs
   * it: two processes would test the same seeds. The transaction reads before it writes, so it
   * takes the write lock up front (see {@link writeTransaction}).
   */
  claimCampaign(id: number, pid: number = process.pid): void {
    writeTransaction(this.db, () => {
      const c = this.campaign(id);
      if (!c) throw errState(`campaign ${id} does not exist in ${this.path}`);
      if (c.runningPid !== null && c.runningPid !== pid) {
        const where = runningElsewhere(this.db, id, c.runningPid);
        if (where !== undefined)
          throw errState(
            `campaign ${id} is running in process ${c.runningPid}${where}`,
            'stop that process first, or use another --out folder',
          );
      }
      this.db
        .prepare('UPDATE campaigns SET running_pid = ?, ended_at = NULL, end_reason = NULL WHERE id = ?')
        .run(pid, id);
      recordSession(this.db, id, pid, now());
    });
  }

  /**
   * Marks ended (reason `killed`) every open session of this host whose process is gone, or whose
   * pid now belongs to another process, and the campaigns they were running. Returns how many.
   */
  endDeadSessions(): number {
    return endDeadSessions(this.db, now());
  }

  /** Records the end of this process's session of a campaign. */
  endCampaign(id: number, reason: string, pid: number = process.pid): void {
    writeTransaction(this.db, () => {
      const t = now();
      this.db
        .prepare('UPDATE campaigns SET ended_at = ?, end_reason = ?, running_pid = NULL WHERE id = ?')
        .run(t, reason, id);
      this.db
        .prepare(
          'UPDATE sessions SET ended_at = ?, end_reason = ? WHERE campaign_id = ? AND pid = ? AND ended_at IS NULL',
        )
        .run(t, reason, id, pid);
    });
  }

  /** Whether a campaign has recorded a seed's results. */
  hasSeed(campaignId: number, seed: bigint): boolean {
    return this.cached('SELECT 1 FROM seeds WHERE campaign_id = ? AND seed = ?').get(campaignId, seed) !== undefined;
  }

  /** Finished seeds of a campaign: how many, the claimed ones not finished, and where it goes on. */
  seedProgress(id: number): SeedProgress {
    const c = this.campaign(id);
    if (!c) throw errState(`campaign ${id} does not exist in ${this.path}`);
    const blocks = campaignBlocks(this.db, id);
    const finished = (
      this.db.prepare('SELECT seed FROM seeds WHERE campaign_id = ? ORDER BY seed').safeIntegers(true).all(id) as {
        seed: bigint;
      }[]
    ).map((r) => r.seed);
    const last = blocks.at(-1)?.last;
    return {
      done: finished.length,
      gaps: unfinishedSeeds(blocks, finished),
      next: last !== undefined && last >= c.seedStart ? last + 1n : c.seedStart,
    };
  }

  /**
   * Stores one finished seed: first the finding and internal-case folders (fsync'ed), then one
   * transaction with the seed, its tests, its findings and the campaign counters.
   */
  recordProgram(campaignId: number, p: ProgramRecord, opts: RecordOptions = {}): RecordResult {
    return this.recordPrograms(campaignId, [p], opts)[0]!;
  }

  /**
   * Stores several finished seeds (a queued campaign's batch) in one transaction, so a batch
   * costs one commit (one fsync) instead of one per seed. Either every seed of the batch is
   * recorded or none is (a crash or an error rolls the whole batch back, and its seeds stay
   * unfinished, to be run or collected again); finding folders are written and fsync'ed before the
   * commit, as for one seed. The per-bucket cap sees the batch's programs in order, exactly as
   * successive {@link recordProgram} calls would. Returns one result per program, in order.
   */
  recordPrograms(campaignId: number, programs: readonly ProgramRecord[], opts: RecordOptions = {}): RecordResult[] {
    const staged = writeTransaction(this.db, () => programs.map((p) => this.stageProgram(campaignId, p, opts)));
    // A replaced folder goes only after its row: a crash in between leaves a folder no row names.
    for (const s of staged)
      for (const id of s.replaced) rmSync(join(this.outDir, FINDINGS_DIR, id), { recursive: true, force: true });
    return staged.map((s) => s.result);
  }

  /**
   * One seed's folders and rows, inside the caller's transaction (so the cap's queries see the
   * rows of the batch's earlier programs); returns what it did and which folders to remove once
   * the transaction committed.
   */
  private stageProgram(
    campaignId: number,
    p: ProgramRecord,
    opts: RecordOptions,
  ): { result: RecordResult; replaced: string[] } {
    const decisions = decideCap(
      this.db,
      p.findings.map((f) => ({ id: f.id, bucket: f.bucket, size: programSize(f.files) })),
      opts.maxPerBucket,
    );
    const decided = new Map<string, CapDecision>(decisions.map((d) => [d.id, d]));
    const stored = p.findings.filter((f) => decided.get(f.id)!.keep !== 'drop');
    const dropped = new Set(p.findings.filter((f) => decided.get(f.id)!.keep === 'drop').map((f) => f.id));
    for (const f of stored) writeFolderDurably(join(this.outDir, FINDINGS_DIR), f.id, f.files);
    if (p.internal) writeFolderDurably(join(this.outDir, INTERNAL_DIR), p.internal.id, p.internal.files);
    const replaced = decisions.flatMap((d) => (d.replaces !== undefined ? [d.replaces] : []));
    const t = now();
    this.cached(
      'INSERT INTO seeds (campaign_id, seed, status, gen_ms, reason, finished_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(campaignId, p.seed, p.status, p.genMs, p.reason ?? null, t);
    const insertTest = this.cached(
      'INSERT INTO tests (campaign_id, seed, compiler, compiler_version, options, outcome, duration_ms, ' +
        'bucket, flaky, finding_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const x of p.tests) {
      // A test whose finding was not stored keeps its outcome and bucket (and the seed regenerates it).
      const findingId = x.findingId !== undefined && !dropped.has(x.findingId) ? x.findingId : null;
      insertTest.run(
        campaignId,
        p.seed,
        x.compiler,
        x.compilerVersion,
        x.options,
        x.outcome,
        x.durationMs,
        x.bucket ?? null,
        x.flaky ? 1 : 0,
        findingId,
      );
    }
    const insertFinding = this.cached(
      // biome-ignore format: embedded text
      `INSERT OR REPLACE INTO findings (id, campaign_id, seed, outcome, bucket, compiler, compiler_version, options, command, expected, actual, stderr, dir, created_at, size, kept, hang_status, nondeterministic, behaviours, known, known_fixed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const f of stored) {
      const d = decided.get(f.id)!;
      insertFinding.run(
        f.id,
        campaignId,
        p.seed,
        f.outcome,
        f.bucket,
        f.compiler,
        f.compilerVersion,
        f.options,
        JSON.stringify(f.command),
        f.expected,
        f.actual,
        f.stderr,
        join(FINDINGS_DIR, f.id),
        t,
        d.size,
        d.keep,
        f.hangStatus ?? null,
        f.nondeterministic ? 1 : 0,
        f.behaviours ? JSON.stringify(f.behaviours) : null,
        f.known ?? null,
        f.knownFixed ?? null,
      );
    }
    const overflow = this.cached(
      'INSERT INTO bucket_overflow (bucket, dropped) VALUES (?, 1) ON CONFLICT(bucket) DO UPDATE SET ' +
        'dropped = dropped + 1',
    );
    for (const f of p.findings) if (dropped.has(f.id)) overflow.run(f.bucket);
    for (const id of replaced) {
      const old = this.cached('SELECT campaign_id AS c, bucket FROM findings WHERE id = ?').get(id) as
        | { c: number; bucket: string }
        | undefined;
      if (!old) continue;
      this.cached('DELETE FROM findings WHERE id = ?').run(id);
      this.cached('UPDATE tests SET finding_id = NULL WHERE finding_id = ?').run(id);
      this.cached('UPDATE campaigns SET findings = findings - 1 WHERE id = ?').run(old.c);
      overflow.run(old.bucket);
    }
    if (p.internal) {
      this.cached(
        'INSERT OR REPLACE INTO internal_cases (id, campaign_id, seed, expected, actual, dir, created_at) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(
        p.internal.id,
        campaignId,
        p.seed,
        p.internal.expected,
        p.internal.actual,
        join(INTERNAL_DIR, p.internal.id),
        t,
      );
    }
    const row = this.cached('SELECT counters FROM campaigns WHERE id = ?').get(campaignId) as
      | { counters: string }
      | undefined;
    if (!row) throw errState(`campaign ${campaignId} does not exist in ${this.path}`);
    const counters = JSON.parse(row.counters) as Record<string, number>;
    for (const x of p.tests) {
      counters[x.outcome] = (counters[x.outcome] ?? 0) + 1;
      if (x.flaky) counters.flaky = (counters.flaky ?? 0) + 1;
    }
    if (dropped.size > 0) counters.unstored = (counters.unstored ?? 0) + dropped.size;
    this.cached(
      'UPDATE campaigns SET programs = programs + 1, discarded = discarded + ?, tests = tests + ?, findings ' +
        '= findings + ?, internal = internal + ?, counters = ? WHERE id = ?',
    ).run(
      p.status === 'tested' ? 0 : 1,
      p.tests.length,
      stored.length,
      p.internal ? 1 : 0,
      JSON.stringify(counters),
      campaignId,
    );
    const result: RecordResult = {
      kept: stored.map((f) => {
        const d = decided.get(f.id)!;
        return {
          id: f.id,
          bucket: f.bucket,
          as: d.keep as 'first' | 'smallest',
          ...(d.replaces !== undefined ? { replaced: d.replaces } : {}),
        };
      }),
      dropped: p.findings.filter((f) => dropped.has(f.id)).map((f) => ({ id: f.id, bucket: f.bucket })),
    };
    return { result, replaced };
  }

  /** Findings counted but not stored, per bucket (the per-bucket cap's overflow). */
  unstoredFindings(): Map<string, number> {
    const rows = this.db.prepare('SELECT bucket, dropped FROM bucket_overflow WHERE dropped > 0').all() as {
      bucket: string;
      dropped: number;
    }[];
    return new Map(rows.map((r) => [r.bucket, r.dropped]));
  }

  /**
   * Every finding, grouped by fingerprint (falling back to the bucket for findings not triaged
   * yet) or by campaign bucket; groups in order of first appearance, findings oldest first.
   */
  listFindings(grouping: FindingGrouping = 'fingerprint'): FindingRow[] {
    const key = grouping === 'bucket' ? 'bucket' : 'COALESCE(fingerprint, bucket)';
    const rows = this.db
      .prepare(
        `WITH f AS (SELECT *, ${key} AS grp FROM findings)
         SELECT f.*, MIN(f.created_at || f.id) OVER (PARTITION BY f.grp) AS first
         FROM f ORDER BY first, f.created_at, f.id`,
      )
      .safeIntegers(true)
      .all() as (RawFinding & { grp: string })[];
    return rows.map((r) => findingRow(this.outDir, r, r.grp));
  }

  /** One finding by id. */
  finding(id: string): FindingRow | undefined {
    const r = this.db.prepare('SELECT * FROM findings WHERE id = ?').safeIntegers(true).get(id) as
      | RawFinding
      | undefined;
    return r && findingRow(this.outDir, r, r.fingerprint ?? r.bucket);
  }

  /** Findings without a fingerprint yet, oldest first (what `kiln triage` works through). */
  untriagedFindings(): FindingRow[] {
    const rows = this.db
      .prepare('SELECT * FROM findings WHERE fingerprint IS NULL ORDER BY created_at, id')
      .safeIntegers(true)
      .all() as RawFinding[];
    return rows.map((r) => findingRow(this.outDir, r, r.bucket));
  }

  /**
   * Findings grouped by fingerprint, falling back to the bucket when a finding has none; groups in
   * order of first appearance.
   */
  findingGroups(): FindingGroup[] {
    const groups = new Map<
      string,
      {
        triaged: boolean;
        ids: string[];
        buckets: Set<string>;
        smallest?: { findingId: string; lines: number; file: string | null };
      }
    >();
    for (const r of this.listFindings('fingerprint')) {
      let g = groups.get(r.group);
      if (!g) groups.set(r.group, (g = { triaged: false, ids: [], buckets: new Set() }));
      if (r.fingerprint !== null) g.triaged = true;
      g.ids.push(r.id);
      g.buckets.add(r.bucket);
      if (r.reducedLines !== null && (!g.smallest || r.reducedLines < g.smallest.lines))
        g.smallest = { findingId: r.id, lines: r.reducedLines, file: r.reducedFile };
    }
    return [...groups].map(([key, g]) => ({
      key,
      triaged: g.triaged,
      count: g.ids.length,
      findingIds: g.ids,
      buckets: [...g.buckets],
      ...(g.smallest ? { smallest: g.smallest } : {}),
    }));
  }

  /**
   * Records the background check of a suspected hang: the row's status, and the same facts merged
   * into the finding's finding.json (replaced durably). False when no finding has that id.
   */
  /** Suspected hangs of a campaign that finished within the configured limit: slow compiles, not hangs. */
  clearedHangs(campaignId: number): number {
    const r = this.cached("SELECT COUNT(*) AS n FROM findings WHERE campaign_id = ? AND hang_status = 'cleared'").get(
      campaignId,
    ) as { n: number };
    return Number(r.n);
  }

  setHangStatus(findingId: string, status: 'confirmed' | 'cleared', facts: Record<string, unknown>): boolean {
    const row = this.db.prepare('SELECT dir FROM findings WHERE id = ?').get(findingId) as { dir: string } | undefined;
    if (!row) return false;
    const manifest = join(this.outDir, row.dir, 'finding.json');
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
    replaceFileDurably(manifest, `${JSON.stringify({ ...json, ...facts, hangStatus: status }, null, 2)}\n`);
    return this.db.prepare('UPDATE findings SET hang_status = ? WHERE id = ?').run(status, findingId).changes > 0;
  }

  /** Records triage's fingerprint of a finding; false when no finding has that id. */
  setFingerprint(findingId: string, fingerprint: string): boolean {
    return this.db.prepare('UPDATE findings SET fingerprint = ? WHERE id = ?').run(fingerprint, findingId).changes > 0;
  }

  /**
   * Marks the findings whose bucket or fingerprint is `key` as the known bug `note` (`kiln known
   * add`); returns how many rows it marked.
   */
  setKnown(key: string, note: string): number {
    return writeTransaction(
      this.db,
      () =>
        this.db.prepare('UPDATE findings SET known = ? WHERE bucket = ? OR fingerprint = ?').run(note, key, key)
          .changes,
    );
  }

  /** Records the reducer's result for a finding; false when no finding has that id. */
  setReduced(findingId: string, reduced: ReducedInfo): boolean {
    if (!Number.isInteger(reduced.lines) || reduced.lines < 0)
      throw new Error(`setReduced: bad line count ${reduced.lines}`);
    const rel = relative(resolve(this.outDir), resolve(reduced.file));
    const file = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : reduced.file;
    return (
      this.db
        .prepare('UPDATE findings SET reduced_lines = ?, reduced_file = ? WHERE id = ?')
        .run(reduced.lines, file, findingId).changes > 0
    );
  }

  /** Buckets seen before in this store (to tell new buckets apart during a campaign). */
  knownBuckets(): Set<string> {
    return new Set(
      (this.db.prepare('SELECT DISTINCT bucket FROM findings').all() as { bucket: string }[]).map((r) => r.bucket),
    );
  }
}

function now(): string {
  return new Date().toISOString();
}
