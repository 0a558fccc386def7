import type Database from 'better-sqlite3';
import { writeTransaction } from './db.js';

/** The largest seed: seeds are SQLite INTEGERs, signed 64-bit. */
export const MAX_SEED = (1n << 63n) - 1n;

/** Seeds a campaign claims at a time: small, so a killed session strands few seeds. */
export const SEED_BLOCK = 32;

/** A block of seeds claimed by one campaign (inclusive bounds). */
export interface SeedBlock {
  readonly first: bigint;
  readonly last: bigint;
}

/**
 * Claims the next block of at most `size` seeds for a campaign, in one immediate (write-locking)
 * transaction: from the campaign's cursor (after its last block, or its first seed), stepping over
 * every seed another campaign of this database has claimed, so no seed is tested twice however many
 * processes share the database. Undefined when no seed is left below {@link MAX_SEED}.
 */
export function claimSeedBlock(
  db: Database.Database,
  campaignId: number,
  size: number,
  now: string,
): SeedBlock | undefined {
  return writeTransaction(db, (): SeedBlock | undefined => {
    const c = db.prepare('SELECT seed_start AS s FROM campaigns WHERE id = ?').safeIntegers(true).get(campaignId) as
      | { s: bigint }
      | undefined;
    if (!c) throw new Error(`claimSeedBlock: no campaign ${campaignId}`);
    const own = db
      .prepare('SELECT MAX(last_seed) AS l FROM seed_claims WHERE campaign_id = ?')
      .safeIntegers(true)
      .get(campaignId) as { l: bigint | null };
    let first = own.l !== null && own.l >= c.s ? own.l + 1n : c.s;
    // Claims never overlap, except ranges backfilled from campaigns that raced before claims
    // existed: the largest end among blocks starting at or before `first` covers them all.
    const covering = db.prepare('SELECT MAX(last_seed) AS l FROM seed_claims WHERE first_seed <= ?').safeIntegers(true);
    for (;;) {
      if (first > MAX_SEED) return undefined;
      const r = covering.get(first) as { l: bigint | null };
      if (r.l === null || r.l < first) break;
      first = r.l + 1n;
    }
    const next = db
      .prepare('SELECT MIN(first_seed) AS f FROM seed_claims WHERE first_seed > ?')
      .safeIntegers(true)
      .get(first) as { f: bigint | null };
    let last = first + BigInt(size) - 1n;
    if (next.f !== null && next.f <= last) last = next.f - 1n;
    if (last > MAX_SEED) last = MAX_SEED;
    db.prepare('INSERT INTO seed_claims (campaign_id, first_seed, last_seed, claimed_at) VALUES (?, ?, ?, ?)').run(
      campaignId,
      first,
      last,
      now,
    );
    return { first, last };
  });
}

/** A campaign's claimed blocks, in seed order. */
export function campaignBlocks(db: Database.Database, campaignId: number): SeedBlock[] {
  const rows = db
    .prepare('SELECT first_seed AS f, last_seed AS l FROM seed_claims WHERE campaign_id = ? ORDER BY first_seed')
    .safeIntegers(true)
    .all(campaignId) as { f: bigint; l: bigint }[];
  return rows.map((r) => ({ first: r.f, last: r.l }));
}

/** Claimed seeds of a campaign that no finished program covers, in order (merging two sorted lists). */
export function unfinishedSeeds(blocks: readonly SeedBlock[], finished: Iterable<bigint>): bigint[] {
  const out: bigint[] = [];
  const it = finished[Symbol.iterator]();
  let done = it.next();
  for (const b of blocks) {
    for (let s = b.first; s <= b.last; s++) {
      while (!done.done && done.value < s) done = it.next();
      if (!done.done && done.value === s) continue;
      out.push(s);
    }
  }
  return out;
}
