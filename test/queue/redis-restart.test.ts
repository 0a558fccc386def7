// Redis killed and restarted (with its append-only file) in the middle of a queued campaign: the
// coordinator and the worker reconnect, and every seed is recorded exactly once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../support/cc.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startKiln } from '../harness/support/cli.js';

const SEEDS = 8;

function recorded(dbPath: string): number[] {
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    return (db.prepare('SELECT seed FROM seeds ORDER BY seed').all() as { seed: number }[]).map((r) => r.seed);
  } catch {
    return [];
  } finally {
    db?.close();
  }
}

describe('kiln fuzz --queue across a Redis restart', () => {
  let work: string;
  let redis: TestRedis;

  beforeAll(async () => {
    requireTool('gcc');
    redis = await startRedis({ persist: true });
    work = mkdtempSync(join(tmpdir(), 'kiln-redis-restart-'));
  });

  afterAll(async () => {
    await redis?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('records every seed once after Redis is killed and restarted mid-campaign', async () => {
    const out = join(work, 'out');
    const worker = startKiln(['worker', '--queue', redis.url, '-j', '1', '--lock-timeout', '4s']);
    try {
      const coordinator = startKiln([
        'fuzz',
        '--mode',
        'csmith',
        '--size',
        'small',
        '--compilers',
        'gcc',
        '--opts',
        '-O0',
        '--tests',
        String(SEEDS),
        '--seed-start',
        '1',
        '--queue',
        redis.url,
        '--out',
        out,
      ]);
      const end = Date.now() + 180_000;
      while (recorded(join(out, 'kiln.db')).length < 1) {
        if (Date.now() > end) throw new Error('no seed recorded');
        await new Promise((r) => setTimeout(r, 50));
      }
      await redis.restart();
      const r = await coordinator.done;
      expect(r.status, r.stderr).toBe(0);
      expect(recorded(join(out, 'kiln.db'))).toEqual(Array.from({ length: SEEDS }, (_, i) => i + 1));
    } finally {
      worker.child.kill('SIGTERM');
      await worker.done;
    }
  }, 400_000);
});
