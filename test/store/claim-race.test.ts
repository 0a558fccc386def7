// Many processes starting campaigns on one folder at the same moment, over and over: each opens
// the store, creates and claims a campaign, claims seeds and records programs whose findings share
// one capped bucket, then ends its session. Every one of these transactions reads before it
// writes; in WAL mode a deferred transaction that must turn into a write after another connection
// committed fails with SQLITE_BUSY at once, whatever the busy timeout, so none may be deferred.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { kilnArgs } from '../harness/support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'kiln-claim-race-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Processes per round, rounds, and campaign sessions each process runs per round. */
const PROCESSES = 6;
const ROUNDS = 3;
const SESSIONS = 8;
/** Findings kept per bucket: small, so the cap's read-then-replace path runs too. */
const CAP = 2;
/** Pids above the kernel's largest (2^22): sessions of processes that are not running. */
const ABSENT_PID = 1 << 23;

/** The store module of the kiln the tests run (the build, or the sources through tsx). */
function storeModule(): { node: string[]; url: string } {
  if (process.env.KILN_ENTRY)
    return { node: [], url: pathToFileURL(join(dirname(dirname(process.env.KILN_ENTRY)), 'store/store.js')).href };
  return {
    node: kilnArgs().slice(0, 2),
    url: pathToFileURL(fileURLToPath(new URL('../../src/store/store.ts', import.meta.url))).href,
  };
}

/**
 * The script of one process: it loads the store, says `ready`, waits for a line on stdin (sent to
 * every process at once), then runs its sessions back to back. A session of a process that is not
 * running (a pid no process has) is left open, for the next opens to end.
 */
function script(out: string, worker: number): string {
  // biome-ignore format: embedded text
  return `const { KilnStore } = await import(${JSON.stringify(storeModule().url)});
process.stdout.write('ready\\n');
await new Promise((r) => process.stdin.once('data', r));
for (let i = 0; i < ${SESSIONS}; i++) {
  const store = KilnStore.open(${JSON.stringify(out)}, 'write');
  try {
    const id = store.createCampaign({ config: {}, compilers: [], seedStart: store.nextUnusedSeed() });
    store.claimCampaign(id);
    const block = store.claimSeeds(id, 4);
    for (let seed = block.first; seed <= block.last; seed += 2n) {
      const fid = 'w${worker}-' + i + '-' + seed;
      const files = [{ name: 'prog.c', content: 'x'.repeat(Number(seed % 97n) + 1) }];
      const finding = { id: fid, outcome: 'wrong-code', bucket: 'wrong-code:cc:-O2', compiler: 'cc', compilerVersion: 'cc 1', options: '-O2', command: ['cc'], expected: 'a', actual: 'b', stderr: '', files };
      const test = { compiler: 'cc', compilerVersion: 'cc 1', options: '-O2', outcome: 'wrong-code', durationMs: 1, bucket: finding.bucket, findingId: fid };
      store.recordPrograms(id, [{ seed, status: 'tested', genMs: 1, tests: [test], findings: [finding] }], { maxPerBucket: ${CAP} });
    }
    store.endCampaign(id, 'tests');
    if (i % 3 === 2) store.claimCampaign(id, ${ABSENT_PID} + ${worker});
  } finally {
    store.close();
  }
}`;
}

/** Starts one process of a round; resolves once it has loaded the store. */
function start(
  out: string,
  worker: number,
): { child: ChildProcess; ready: Promise<void>; done: Promise<{ code: number | null; stderr: string }> } {
  const { node } = storeModule();
  const child = spawn(process.execPath, [...node, '--input-type=module', '-e', script(out, worker)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const ready = new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
  return { child, ready, done };
}

describe('campaigns started at once on one folder', () => {
  it('every session claims, records and ends without a busy error, and no seed is claimed twice', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const out = join(work, `r${round}`);
      const procs = Array.from({ length: PROCESSES }, (_, w) => start(out, w));
      // Whichever process fails first must not leave the others waiting for the start line.
      await Promise.race([Promise.all(procs.map((p) => p.ready)), Promise.all(procs.map((p) => p.done))]);
      for (const p of procs) p.child.stdin!.end('go\n');
      const results = await Promise.all(procs.map((p) => p.done));
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const db = new Database(join(out, 'kiln.db'), { readonly: true });
      try {
        expect(db.prepare('SELECT COUNT(*) AS n FROM campaigns').get()).toEqual({ n: PROCESSES * SESSIONS });
        // A block ends early where another campaign's block begins; each recorded every other seed of its own.
        const recorded = (
          db.prepare('SELECT SUM((last_seed - first_seed) / 2 + 1) AS n FROM seed_claims').get() as { n: number }
        ).n;
        expect(recorded).toBeGreaterThanOrEqual(PROCESSES * SESSIONS);
        expect(db.prepare('SELECT COUNT(*) AS n FROM seeds').get()).toEqual({ n: recorded });
        // Claimed blocks never overlap.
        const overlaps = db
          .prepare(
            'SELECT a.rowid FROM seed_claims a JOIN seed_claims b ON a.rowid < b.rowid AND a.first_seed <= ' +
              'b.last_seed AND b.first_seed <= a.last_seed',
          )
          .all();
        expect(overlaps).toEqual([]);
        // The cap, exact however the processes interleave: the first CAP findings plus at most one
        // smallest are kept, and every other finding is counted as dropped or replaced.
        const kept = (db.prepare('SELECT COUNT(*) AS n FROM findings').get() as { n: number }).n;
        expect(kept).toBeGreaterThanOrEqual(CAP);
        expect(kept).toBeLessThanOrEqual(CAP + 1);
        expect(db.prepare('SELECT SUM(findings) AS n FROM campaigns').get()).toEqual({ n: kept });
        expect(db.prepare('SELECT dropped FROM bucket_overflow').get()).toEqual({ dropped: recorded - kept });
        // Every session of a running process ended; those of absent processes are ended by any
        // later open, so at most the last one of each process is still open.
        expect(
          db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE ended_at IS NULL AND pid < ?').get(ABSENT_PID),
        ).toEqual({ n: 0 });
        const open = (db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE ended_at IS NULL').get() as { n: number }).n;
        expect(open).toBeLessThanOrEqual(PROCESSES);
      } finally {
        db.close();
      }
    }
  }, 240_000);
});

describe('write transactions', () => {
  it('every transaction of the sources takes the write lock up front (through writeTransaction)', () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const deferred: string[] = [];
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(src, file), 'utf8');
      // The one allowed form is writeTransaction's own `db.transaction(fn).immediate()`.
      for (const m of text.matchAll(/\.transaction\(([^)]*)\)(\.\w+)?/g))
        if (m[2] !== '.immediate') deferred.push(`${file}: ${m[0]}`);
      // SQL's BEGIN ends its statement or names a mode; awk's `BEGIN {` in a shell line is no transaction.
      const sql = /\bBEGIN(?:\s+(?:DEFERRED|EXCLUSIVE|TRANSACTION))?\s*(?:;|['"`]|$)/m;
      if (sql.test(text.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ''))) deferred.push(`${file}: BEGIN`);
    }
    expect(deferred).toEqual([]);
  });
});
