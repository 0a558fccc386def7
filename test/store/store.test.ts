import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/db.js';
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
      { compiler: 'gcc', compilerVersion: 'gcc 12', options: '-O2', outcome: findings.length ? 'wrong-code' : 'ok', durationMs: 5, ...(findings[0] ? { bucket: 'wrong-code:gcc:-O2', findingId: findings[0] } : {}) },
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
  return store.createCampaign({ config: { optionSets: ['-O2'] }, compilers: [{ name: 'gcc', version: 'gcc 12' }], seedStart });
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
      expect(s.campaign(id)).toMatchObject({ programs: 1, tests: 2, findings: 1, counters: { 'wrong-code': 1, ok: 1 } });
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

  it('reports the unfinished seeds below the highest finished one', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const id = newCampaign(s, 10n);
      for (const seed of [10, 11, 13, 16]) s.recordProgram(id, program(seed));
      expect(s.seedProgress(id)).toEqual({ done: 4, gaps: [12n, 14n, 15n], next: 17n });
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
    expect(() => KilnStore.open(out, 'write')).toThrow(expect.objectContaining({ code: 'KILN_DATABASE', message: expect.stringMatching(/newer Kiln/) }));
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
    expect(() => KilnStore.open(out, 'read')).toThrow(expect.objectContaining({ code: 'KILN_STATE', message: expect.stringMatching(/is empty/) }));
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
