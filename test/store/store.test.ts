import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/db.js';
import { MAX_SEED } from '../../src/store/seeds.js';
import { KilnStore, type ProgramRecord } from '../../src/store/store.js';

let out: string;

beforeEach(() => {
  out = mkdtempSync(join(tmpdir(), 'kiln-store-'));
});

afterEach(() => {
  rmSync(out, { recursive: true, force: true });
});

function program(seed: number, findings: string[] = []): ProgramRecord {
  return {
    seed: BigInt(seed),
    status: 'tested',
    genMs: 1,
    tests: [
      {
        compiler: 'gcc',
        compilerVersion: 'gcc 12',
        options: '-O2',
        outcome: findings.length ? 'wrong-code' : 'ok',
        durationMs: 5,
        ...(findings[0] ? { bucket: 'wrong-code:gcc:-O2', findingId: findings[0] } : {}),
      },
      { compiler: 'clang', compilerVersion: 'clang 14', options: '-O2', outcome: 'ok', durationMs: 7 },
    ],
    findings: findings.map((id) => ({
      id,
      outcome: 'wrong-code',
      bucket: 'wrong-code:gcc:-O2',
      compiler: 'gcc',
      compilerVersion: 'gcc 12',
      options: '-O2',
      command: ['gcc', '-O2', 'prog.c', '-o', 'prog', '-lm'],
      expected: 'checksum = 1',
      actual: 'checksum = 2',
      stderr: '',
      files: [
        { name: 'prog.c', content: `/* seed ${seed} */\n` },
        { name: 'repro.sh', content: '#!/bin/sh\nexit 0\n', mode: 0o755 },
      ],
    })),
  };
}

function newCampaign(store: KilnStore, seedStart = 1n): number {
  return store.createCampaign({
    config: { optionSets: ['-O2'] },
    compilers: [{ name: 'gcc', version: 'gcc 12' }],
    seedStart,
  });
}

describe('KilnStore', () => {
  it('creates the schema in WAL mode with a schema version', () => {
    const s = KilnStore.open(out, 'write');
    try {
      expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(s.db.prepare('SELECT version FROM schema_version').all()).toEqual([{ version: SCHEMA_VERSION }]);
    } finally {
      s.close();
    }
  });

  it('reopens an existing database without recreating it', () => {
    const a = KilnStore.open(out, 'write');
    const id = newCampaign(a);
    a.recordProgram(id, program(1, ['1-1-gcc-O2']));
    a.close();
    const b = KilnStore.open(out, 'write');
    try {
      expect(b.latestCampaign()).toMatchObject({ id, programs: 1, findings: 1 });
      const id2 = newCampaign(b, b.nextUnusedSeed());
      expect(b.campaign(id2)!.seedStart).toBe(2n);
      expect(b.listFindings().map((f) => f.id)).toEqual(['1-1-gcc-O2']);
    } finally {
      b.close();
    }
  });

  it('writes the finding folder durably before committing the row', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const id = newCampaign(s);
      s.recordProgram(id, program(3, ['1-3-gcc-O2']));
      const dir = join(out, 'findings', '1-3-gcc-O2');
      expect(readdirSync(dir).sort()).toEqual(['prog.c', 'repro.sh']);
      expect(statSync(join(dir, 'repro.sh')).mode & 0o777).toBe(0o755);
      expect(readFileSync(join(dir, 'prog.c'), 'utf8')).toBe('/* seed 3 */\n');
      expect(readdirSync(join(out, 'findings'))).toEqual(['1-3-gcc-O2']); // no temporary folder left
      const [f] = s.listFindings();
      expect(f).toMatchObject({ id: '1-3-gcc-O2', seed: '3', outcome: 'wrong-code', dir });
      expect(s.campaign(id)).toMatchObject({
        programs: 1,
        tests: 2,
        findings: 1,
        counters: { 'wrong-code': 1, ok: 1 },
      });
    } finally {
      s.close();
    }
  });

  it('never records a seed twice, and a refused seed leaves no partial rows', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const id = newCampaign(s);
      s.recordProgram(id, program(1));
      expect(() => s.recordProgram(id, program(1))).toThrow(/UNIQUE|PRIMARY KEY/);
      expect(s.db.prepare('SELECT COUNT(*) AS n FROM tests').get()).toEqual({ n: 2 });
      expect(s.campaign(id)).toMatchObject({ programs: 1, tests: 2 });
    } finally {
      s.close();
    }
  });

  it('reports the claimed seeds a campaign has not finished', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const id = newCampaign(s, 10n);
      expect(s.claimSeeds(id, 8)).toEqual({ first: 10n, last: 17n });
      for (const seed of [10, 11, 13, 16]) s.recordProgram(id, program(seed));
      expect(s.seedProgress(id)).toEqual({ done: 4, gaps: [12n, 14n, 15n, 17n], next: 18n });
      const fresh = newCampaign(s, 100n);
      expect(s.seedProgress(fresh)).toEqual({ done: 0, gaps: [], next: 100n });
    } finally {
      s.close();
    }
  });

  it('keeps seeds above 2^53 exact', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const big = (1n << 62n) + 3n;
      const id = newCampaign(s, big);
      expect(s.claimSeeds(id, 1)).toEqual({ first: big, last: big });
      s.recordProgram(id, { ...program(0), seed: big });
      expect(s.seedProgress(id)).toEqual({ done: 1, gaps: [], next: big + 1n });
    } finally {
      s.close();
    }
  });

  it('refuses a second live process on one campaign, and takes over from a dead one', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const id = newCampaign(s);
      s.claimCampaign(id, process.ppid); // a live process that is not us
      expect(() => s.claimCampaign(id)).toThrow(expect.objectContaining({ code: 'KILN_STATE' }));
      const dead = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim();
      s.endCampaign(id, 'test', process.ppid);
      s.claimCampaign(id, Number(dead));
      s.claimCampaign(id); // the dead process's claim does not block
      expect(s.campaign(id)!.runningPid).toBe(process.pid);
    } finally {
      s.close();
    }
  });

  it('refuses a newer schema or a foreign file without changing it', () => {
    const a = KilnStore.open(out, 'write');
    a.db.prepare('UPDATE schema_version SET version = 99').run();
    a.close();
    const before = readFileSync(join(out, 'kiln.db'));
    expect(() => KilnStore.open(out, 'write')).toThrow(
      expect.objectContaining({ code: 'KILN_DATABASE', message: expect.stringMatching(/newer Kiln/) }),
    );
    expect(readFileSync(join(out, 'kiln.db')).equals(before)).toBe(true);

    const garbage = mkdtempSync(join(tmpdir(), 'kiln-store-'));
    try {
      writeFileSync(join(garbage, 'kiln.db'), 'this is not SQLite, but somebody cares about it\n'.repeat(200));
      const bytes = readFileSync(join(garbage, 'kiln.db'));
      expect(() => KilnStore.open(garbage, 'write')).toThrow(expect.objectContaining({ code: 'KILN_DATABASE' }));
      expect(readFileSync(join(garbage, 'kiln.db')).equals(bytes)).toBe(true);
    } finally {
      rmSync(garbage, { recursive: true, force: true });
    }
  });

  it('opens read-only without creating anything', () => {
    const missing = join(out, 'none');
    expect(() => KilnStore.open(missing, 'read')).toThrow(expect.objectContaining({ code: 'KILN_STATE' }));
    expect(existsSync(missing)).toBe(false);
    const db = new Database(join(out, 'kiln.db'));
    db.close();
    expect(() => KilnStore.open(out, 'read')).toThrow(
      expect.objectContaining({ code: 'KILN_STATE', message: expect.stringMatching(/is empty/) }),
    );
    KilnStore.open(out, 'write').close();
    const s = KilnStore.open(out, 'read');
    try {
      expect(s.listFindings()).toEqual([]);
      expect(() => s.db.prepare('DELETE FROM campaigns').run()).toThrow(/readonly/);
    } finally {
      s.close();
    }
  });
});

describe('seed claims', () => {
  it('two campaigns sharing a folder never claim one seed, whatever their start', () => {
    const a = KilnStore.open(out, 'write');
    const b = KilnStore.open(out, 'write'); // a second connection, as a second process has
    try {
      // Both created before either claimed anything: the race of two `kiln fuzz` started at once.
      const startA = a.nextUnusedSeed();
      const startB = b.nextUnusedSeed();
      expect(startA).toBe(startB);
      const ca = newCampaign(a, startA);
      const cb = newCampaign(b, startB);
      const seen = new Map<bigint, number>();
      const sa = a.campaignSeeds(ca, [], 4);
      const sb = b.campaignSeeds(cb, [], 3);
      for (let i = 0; i < 40; i++) {
        for (const [it, c] of [
          [sa, ca],
          [sb, cb],
        ] as const) {
          const s = it.next().value as bigint;
          expect(seen.get(s), `seed ${s} given to campaigns ${seen.get(s)} and ${c}`).toBeUndefined();
          seen.set(s, c);
        }
      }
      const all = [...seen.keys()].sort((x, y) => (x < y ? -1 : 1));
      expect(all[0]).toBe(1n);
      // Seeds are handed out in blocks, so at most the unused rest of each one's last block is skipped.
      expect(all.at(-1)! <= BigInt(all.length) + 4n).toBe(true);
      // A campaign asked to start inside claimed seeds steps over them.
      const cc = newCampaign(a, 5n);
      const first = a.claimSeeds(cc, 10)!;
      expect(first.first > all.at(-1)!).toBe(true);
    } finally {
      a.close();
      b.close();
    }
  });

  it('a claim stops short of a block another campaign holds, and at the last seed', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const hi = newCampaign(s, 20n);
      expect(s.claimSeeds(hi, 5)).toEqual({ first: 20n, last: 24n });
      const lo = newCampaign(s, 15n);
      expect(s.claimSeeds(lo, 10)).toEqual({ first: 15n, last: 19n });
      expect(s.claimSeeds(lo, 10)).toEqual({ first: 25n, last: 34n });
      const top = newCampaign(s, MAX_SEED - 1n);
      expect(s.claimSeeds(top, 10)).toEqual({ first: MAX_SEED - 1n, last: MAX_SEED });
      expect(s.claimSeeds(top, 10)).toBeUndefined();
      expect([...s.campaignSeeds(top, [])]).toEqual([]);
    } finally {
      s.close();
    }
  });

  it("a database from before claims counts each campaign's tested seeds as claimed", () => {
    const s = KilnStore.open(out, 'write');
    const id = newCampaign(s, 1n);
    for (const seed of [1, 2, 4]) s.recordProgram(id, program(seed));
    // Back to schema 2: no claims table, as an older Kiln left it.
    s.db.exec(
      'DROP TABLE seed_claims; DROP TABLE bucket_overflow; ALTER TABLE findings DROP COLUMN size; ALTER ' +
        'TABLE findings DROP COLUMN kept;',
    );
    s.db.exec('ALTER TABLE sessions DROP COLUMN host; ALTER TABLE sessions DROP COLUMN pid_start;');
    // The later migrations' columns go too (nondeterministic findings, suspected hangs, known bugs).
    s.db.exec(
      'ALTER TABLE findings DROP COLUMN hang_status; ALTER TABLE findings DROP COLUMN nondeterministic; ' +
        'ALTER TABLE findings DROP COLUMN behaviours; ALTER TABLE findings DROP COLUMN known; ' +
        'ALTER TABLE findings DROP COLUMN known_fixed; UPDATE schema_version SET version = 2;',
    );
    s.close();
    const again = KilnStore.open(out, 'write');
    try {
      expect(again.seedProgress(id)).toEqual({ done: 3, gaps: [3n], next: 5n });
      const other = newCampaign(again, 1n);
      expect(again.claimSeeds(other, 2)).toEqual({ first: 5n, last: 6n });
    } finally {
      again.close();
    }
  });
});

describe('dead sessions', () => {
  it('a session whose process died is marked ended when the store is next opened for writing', () => {
    const s = KilnStore.open(out, 'write');
    const id = newCampaign(s);
    const dead = Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
    s.claimCampaign(id, dead);
    s.close();
    const r = KilnStore.open(out, 'read');
    expect(r.campaign(id)).toMatchObject({ endedAt: null, runningPid: dead }); // reading changes nothing
    r.close();
    const w = KilnStore.open(out, 'write');
    try {
      expect(w.campaign(id)).toMatchObject({ endReason: 'killed', runningPid: null });
      expect(w.campaign(id)!.endedAt).not.toBeNull();
      expect(w.db.prepare('SELECT end_reason AS r FROM sessions WHERE pid = ?').get(dead)).toEqual({ r: 'killed' });
    } finally {
      w.close();
    }
  });

  it('a live session is left alone, and a reused pid is told apart by its start time', () => {
    const s = KilnStore.open(out, 'write');
    const live = newCampaign(s);
    s.claimCampaign(live, process.ppid);
    const reused = newCampaign(s);
    s.claimCampaign(reused, process.ppid);
    // As if the recorded process had ended and its pid now belonged to our parent.
    s.db.prepare("UPDATE sessions SET pid_start = 'not-this-process' WHERE campaign_id = ?").run(reused);
    const remote = newCampaign(s);
    s.claimCampaign(remote, 999_999_999);
    s.db.prepare("UPDATE sessions SET host = 'another-machine' WHERE campaign_id = ?").run(remote);
    s.close();
    const w = KilnStore.open(out, 'write');
    try {
      expect(w.campaign(live)).toMatchObject({ endedAt: null, runningPid: process.ppid });
      expect(w.campaign(reused)).toMatchObject({ endReason: 'killed', runningPid: null });
      // Another host's pid cannot be checked here: its session stays open and its campaign busy.
      expect(w.campaign(remote)).toMatchObject({ endedAt: null, runningPid: 999_999_999 });
      expect(() => w.claimCampaign(remote)).toThrow(
        expect.objectContaining({ code: 'KILN_STATE', message: expect.stringMatching(/another-machine/) }),
      );
    } finally {
      w.close();
    }
  });
});

describe('findings per bucket', () => {
  /** A program with one wrong-code finding in bucket `b` whose prog.c has `size` bytes. */
  function sized(seed: number, size: number, bucket = 'wrong-code:gcc:-O2'): ProgramRecord {
    const p = program(seed, [`f${seed}`]);
    const f = p.findings[0]!;
    return {
      ...p,
      findings: [
        {
          ...f,
          bucket,
          files: [
            { name: 'prog.c', content: 'x'.repeat(size) },
            { name: 'finding.json', content: '{}'.repeat(1000) },
          ],
        },
      ],
    };
  }

  it('keeps the first N and the smallest after them, and counts the rest', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const id = newCampaign(s);
      const sizes = [500, 400, 600, 450, 300, 350, 200, 900];
      const results = sizes.map((n, i) => s.recordProgram(id, sized(i + 1, n), { maxPerBucket: 2 }));
      expect(results.map((r) => (r.kept[0] ? r.kept[0].as : 'drop'))).toEqual([
        'first',
        'first',
        'drop',
        'drop',
        'smallest',
        'drop',
        'smallest',
        'drop',
      ]);
      expect(results[6]!.kept[0]!.replaced).toBe('f5');
      expect(readdirSync(join(out, 'findings')).sort()).toEqual(['f1', 'f2', 'f7']);
      expect(s.listFindings().map((f) => f.id)).toEqual(['f1', 'f2', 'f7']);
      expect(s.unstoredFindings()).toEqual(new Map([['wrong-code:gcc:-O2', 5]]));
      // Every test is still recorded; those whose finding is gone point at none.
      expect(s.db.prepare("SELECT COUNT(*) AS n FROM tests WHERE outcome = 'wrong-code'").get()).toEqual({ n: 8 });
      expect(s.db.prepare('SELECT COUNT(*) AS n FROM tests WHERE finding_id IS NOT NULL').get()).toEqual({ n: 3 });
      expect(s.campaign(id)).toMatchObject({ findings: 3, programs: 8 });
      expect(s.campaign(id)!.counters.unstored).toBe(4); // dropped when recorded (f5 was stored, then replaced)
      // Another bucket has its own cap.
      expect(s.recordProgram(id, sized(20, 1000, 'compiler-crash:gcc:x'), { maxPerBucket: 2 }).kept).toHaveLength(1);
    } finally {
      s.close();
    }
  });

  it('without a cap every finding is stored', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const id = newCampaign(s);
      for (let i = 1; i <= 5; i++) s.recordProgram(id, sized(i, 100));
      expect(readdirSync(join(out, 'findings'))).toHaveLength(5);
      expect(s.unstoredFindings().size).toBe(0);
    } finally {
      s.close();
    }
  });
});
