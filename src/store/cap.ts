import type Database from 'better-sqlite3';
import type { FileSpec } from './files.js';

/** Findings stored per bucket by default (the first N; the smallest program after them is kept too). */
export const DEFAULT_MAX_PER_BUCKET = 25;

/** What happens to one finding under the per-bucket cap. */
export interface CapDecision {
  readonly id: string;
  /** Bytes of the finding's program (its C files). */
  readonly size: number;
  /**
   * `first`: one of its bucket's first N; `smallest`: smaller than every program its bucket holds; `drop`: counted
   * only.
   */
  readonly keep: 'first' | 'smallest' | 'drop';
  /** The finding kept earlier as its bucket's smallest that this one replaces. */
  readonly replaces?: string;
}

/** Bytes of a finding's program: its C files, not the metadata beside them. */
export function programSize(files: readonly FileSpec[]): number {
  return files.filter((f) => /\.[ch]$/.test(f.name)).reduce((n, f) => n + Buffer.byteLength(f.content), 0);
}

interface BucketState {
  firsts: number;
  smallest: number;
  extra: { id: string; fromThisBatch: boolean } | undefined;
}

/**
 * Decides, in order, which of a program's findings to store: while a bucket holds fewer than
 * `maxPerBucket` findings, each is kept; after that only a program smaller than every one the
 * bucket holds is kept, replacing the previous such one, so a bucket keeps at most N + 1 folders
 * and always its smallest program. Without a cap every finding is kept. The caller runs this inside
 * the write transaction that stores the rows, so processes sharing a bucket see each other's rows
 * and the bound holds across them.
 */
export function decideCap(
  db: Database.Database,
  findings: readonly { id: string; bucket: string; size: number }[],
  maxPerBucket: number | undefined,
): CapDecision[] {
  if (maxPerBucket === undefined) return findings.map((f) => ({ id: f.id, size: f.size, keep: 'first' }));
  const buckets = new Map<string, BucketState>();
  const state = (bucket: string): BucketState => {
    let s = buckets.get(bucket);
    if (s) return s;
    const r = db
      .prepare(
        "SELECT COUNT(*) FILTER (WHERE kept IS NOT 'smallest') AS firsts, MIN(size) AS smallest FROM " +
          'findings WHERE bucket = ?',
      )
      .get(bucket) as { firsts: number; smallest: number | null };
    const extra = db
      .prepare("SELECT id FROM findings WHERE bucket = ? AND kept = 'smallest' ORDER BY size LIMIT 1")
      .get(bucket) as { id: string } | undefined;
    s = { firsts: r.firsts, smallest: r.smallest ?? Infinity, extra: extra && { id: extra.id, fromThisBatch: false } };
    buckets.set(bucket, s);
    return s;
  };
  const out: CapDecision[] = [];
  for (const f of findings) {
    const s = state(f.bucket);
    if (s.firsts < maxPerBucket) {
      s.firsts++;
      s.smallest = Math.min(s.smallest, f.size);
      out.push({ id: f.id, size: f.size, keep: 'first' });
    } else if (f.size < s.smallest) {
      let replaces: string | undefined;
      if (s.extra?.fromThisBatch) {
        // The previous smallest came with this same program: it is simply not stored.
        const i = out.findIndex((d) => d.id === s.extra!.id);
        out[i] = { id: out[i]!.id, size: out[i]!.size, keep: 'drop' };
      } else if (s.extra) {
        replaces = s.extra.id;
      }
      s.smallest = f.size;
      s.extra = { id: f.id, fromThisBatch: true };
      out.push({ id: f.id, size: f.size, keep: 'smallest', ...(replaces !== undefined ? { replaces } : {}) });
    } else {
      out.push({ id: f.id, size: f.size, keep: 'drop' });
    }
  }
  return out;
}
