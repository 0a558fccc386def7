import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { errDatabase, errFile, errState } from '../diag/errors.js';
import { makeDirectory } from './files.js';
import { MIGRATIONS } from './schema.js';

/** The database file inside an output folder. */
export const DB_FILE = 'kiln.db';

/** Schema version this Kiln writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * How long a write waits for another connection's write transaction. Every transaction is short
 * (one block of seeds, one batch of programs), but SQLite's waiting is not fair: on a loaded
 * machine with many processes sharing a database, one of them can lose the lock many times in a
 * row, and giving up would end its campaign with an error.
 */
const BUSY_TIMEOUT_MS = 60_000;

/** How to open a store: `write` creates the folder and database if needed; `read` needs both. */
export type OpenMode = 'write' | 'read';

/**
 * Opens (or creates) the SQLite database of an output folder. An existing file is validated
 * before anything is written to it: it must be a Kiln database of this or an older schema
 * (older schemas are migrated in place, one transaction per step). Write mode uses WAL, so
 * `kiln findings` can read while a campaign writes.
 */
export function openDatabase(outDir: string, mode: OpenMode): Database.Database {
  // SQLite answers SQLITE_BUSY at once, without waiting out the busy timeout, where waiting
  // could deadlock: two connections that both read the new file and then both ask for the
  // exclusive lock that switching to WAL needs. One of them must back off and start again, so
  // the whole open is retried, after a short random pause, for up to about ten seconds.
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return openOnce(outDir, mode);
    } catch (e) {
      if (!(e instanceof BusyError) || Date.now() > deadline) throw e instanceof BusyError ? e.error : e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 + Math.floor(Math.random() * 100));
    }
  }
}

/** An SQLITE_BUSY answer while opening, carrying the error to report if retries run out. */
class BusyError extends Error {
  constructor(readonly error: Error) {
    super(error.message);
  }
}

function openOnce(outDir: string, mode: OpenMode): Database.Database {
  const path = join(outDir, DB_FILE);
  const exists = existsSync(path);
  if (mode === 'read' && !exists)
    throw errState(
      `no Kiln database in ${outDir} (looked for ${path})`,
      "run 'kiln fuzz' first, or give the campaign's folder with --out",
    );
  if (mode === 'write') {
    try {
      makeDirectory(outDir);
    } catch (e) {
      throw errFile(outDir, `cannot create the output folder: ${(e as Error).message}`);
    }
  }
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: mode === 'read', fileMustExist: mode === 'read' || exists });
  } catch (e) {
    throw errFile(path, `cannot open the database: ${(e as Error).message}`);
  }
  try {
    const version = currentVersion(db, path);
    if (version > SCHEMA_VERSION)
      throw errDatabase(path, `written by a newer Kiln (schema ${version}; this Kiln knows ${SCHEMA_VERSION})`);
    if (mode === 'write') {
      // The busy timeout first: two campaigns starting at once on a new folder both switch it
      // to WAL and both try to create the schema.
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      migrate(db, version);
    } else if (version === 0) {
      throw errState(`no Kiln campaign in ${outDir} (${path} is empty)`, "run 'kiln fuzz' first");
    } else if (version < SCHEMA_VERSION) {
      // Migrations only add tables, columns and indexes, which an older Kiln still writing the
      // campaign does not notice: readers migrate too, so `kiln findings` works after an upgrade.
      db.close();
      migrateFile(path, version);
      return openDatabase(outDir, mode);
    }
    return db;
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY'))
      throw new BusyError(errFile(path, `cannot use the database: ${(e as Error).message}`));
    if ((e as { code?: string }).code === 'SQLITE_NOTADB') throw errDatabase(path, 'not an SQLite database');
    if ((e as { code?: string }).code?.startsWith('SQLITE_'))
      throw errFile(path, `cannot use the database: ${(e as Error).message}`);
    throw e;
  }
}

/**
 * Runs `fn` in one transaction that takes the write lock as it begins (`BEGIN IMMEDIATE`). Every
 * write transaction of the store goes through here. A deferred transaction would start as a read;
 * in WAL mode, once another connection has committed, a read that must become a write fails with
 * SQLITE_BUSY at once (its snapshot is stale, so waiting cannot help and the busy timeout is not
 * used), whereas `BEGIN IMMEDIATE` waits for the lock under the busy timeout and then reads the
 * latest data.
 */
export function writeTransaction<T>(db: Database.Database, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/** The schema version of a database: 0 for an empty file, an error for someone else's database. */
function currentVersion(db: Database.Database, path: string): number {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
    (t) => t.name,
  );
  if (!tables.includes('schema_version')) {
    if (tables.length > 0) throw errDatabase(path, `not a Kiln database (tables: ${tables.slice(0, 5).join(', ')})`);
    return 0;
  }
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Applies the migrations after `from`, one write transaction each. Each step re-reads the version
 * inside its transaction, so two processes opening an old database (or creating a new one) at
 * once migrate it once: the second sees the first's version and skips the step.
 */
function migrate(db: Database.Database, from: number): void {
  for (let v = from; v < MIGRATIONS.length; v++) {
    writeTransaction(db, () => {
      const hasVersions =
        db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get() !== undefined;
      const row = hasVersions
        ? (db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null })
        : undefined;
      if ((row?.v ?? 0) > v) return;
      db.exec(MIGRATIONS[v]!);
      db.prepare('DELETE FROM schema_version').run();
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(v + 1);
    });
  }
}

/** Migrates a database file opened for reading, through a short-lived writable connection. */
function migrateFile(path: string, from: number): void {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch (e) {
    throw errDatabase(
      path,
      `written by an older Kiln (schema ${from}) and cannot be migrated here: ${(e as Error).message}`,
    );
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    migrate(db, from);
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('SQLITE_'))
      throw errDatabase(
        path,
        `written by an older Kiln (schema ${from}) and cannot be migrated here: ${(e as Error).message}`,
      );
    throw e;
  } finally {
    db.close();
  }
}
