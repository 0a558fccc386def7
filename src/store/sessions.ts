import type Database from 'better-sqlite3';
import { writeTransaction } from './db.js';
import { processAlive, processStart, thisHost } from './liveness.js';

/** Records a session of a campaign run by process `pid` of this host, with the process's start time. */
export function recordSession(db: Database.Database, campaignId: number, pid: number, now: string): void {
  db.prepare('INSERT INTO sessions (campaign_id, started_at, pid, host, pid_start) VALUES (?, ?, ?, ?, ?)').run(
    campaignId,
    now,
    pid,
    thisHost(),
    processStart(pid) ?? null,
  );
}

/**
 * Whether the session of process `pid` running a campaign is still live: undefined when it is not,
 * else how to name where it runs (`''` on this host, ` on HOST` elsewhere). A session on another
 * host cannot be checked from here, so it counts as live.
 */
export function runningElsewhere(db: Database.Database, campaignId: number, pid: number): string | undefined {
  const s = db
    .prepare(
      'SELECT host, pid_start FROM sessions WHERE campaign_id = ? AND pid = ? AND ended_at IS NULL ORDER BY ' +
        'rowid DESC LIMIT 1',
    )
    .get(campaignId, pid) as { host: string | null; pid_start: string | null } | undefined;
  if (s?.host != null && s.host !== thisHost()) return ` on ${s.host}`;
  return processAlive(pid, s?.pid_start) ? '' : undefined;
}

/**
 * Marks ended (reason `killed`) every open session of this host whose process is gone or whose pid
 * now names another process, and the campaigns those sessions were running. Returns how many.
 */
export function endDeadSessions(db: Database.Database, now: string): number {
  const open = db
    .prepare('SELECT rowid AS r, campaign_id AS c, pid, host, pid_start FROM sessions WHERE ended_at IS NULL')
    .all() as {
    r: number;
    c: number;
    pid: number;
    host: string | null;
    pid_start: string | null;
  }[];
  // Rows from before hosts were recorded (NULL) were written on the machine that kept the database.
  const dead = open.filter((s) => (s.host === null || s.host === thisHost()) && !processAlive(s.pid, s.pid_start));
  if (dead.length === 0) return 0;
  writeTransaction(db, () => {
    for (const s of dead) {
      // Another process may have ended it since it was read: its own end reason stays.
      db.prepare("UPDATE sessions SET ended_at = ?, end_reason = 'killed' WHERE rowid = ? AND ended_at IS NULL").run(
        now,
        s.r,
      );
      db.prepare(
        "UPDATE campaigns SET ended_at = ?, end_reason = 'killed', running_pid = NULL WHERE id = ? AND running_pid = ?",
      ).run(now, s.c, s.pid);
    }
  });
  return dead.length;
}
