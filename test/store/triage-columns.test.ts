// Fingerprints and reduction results in the store: the migration of databases written by the
// first schema (what earlier Kilns created), the setters, and grouping by fingerprint.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { KilnStore, type ProgramRecord } from '../../src/store/store.js';

let out: string;
beforeEach(() => {
  out = mkdtempSync(join(tmpdir(), 'kiln-store-fp-'));
});
afterEach(() => rmSync(out, { recursive: true, force: true }));

function program(seed: number, findings: { id: string; bucket: string }[]): ProgramRecord {
  return {
    seed: BigInt(seed),
    status: 'tested',
    genMs: 1,
    tests: [],
    findings: findings.map((f) => ({
      id: f.id,
      outcome: 'wrong-code',
      bucket: f.bucket,
      compiler: 'gcc',
      compilerVersion: 'gcc 12',
      options: '-O2',
      command: ['gcc', '-O2', 'prog.c', '-o', 'prog', '-lm'],
      expected: 'checksum = 1',
      actual: 'checksum = 2',
      stderr: '',
      files: [{ name: 'prog.c', content: `/* seed ${seed} */\n` }],
    })),
  };
}

/** A database exactly as a Kiln with only the first schema left it, with two findings. */
function schemaOneDatabase(): void {
  const db = new Database(join(out, 'kiln.db'));
  db.pragma('journal_mode = WAL');
  db.exec(MIGRATIONS[0]!);
  db.prepare('INSERT INTO schema_version (version) VALUES (1)').run();
  db.prepare(
    'INSERT INTO campaigns (id, started_at, config, compilers, seed_start) VALUES (1, ' +
      "'2026-01-01T00:00:00Z', '{}', '[]', 1)",
  ).run();
  const ins = db.prepare(
    'INSERT INTO findings (id, campaign_id, seed, outcome, bucket, compiler, compiler_version, options, ' +
      "command, expected, actual, stderr, dir, created_at) VALUES (?, 1, ?, 'wrong-code', ?, 'gcc', 'gcc 12', " +
      "'-O2', '[]', 'e', 'a', '', ?, ?)",
  );
  ins.run('1-1-gcc-O2', 1, 'wrong-code:gcc:-O2', 'findings/1-1-gcc-O2', '2026-01-01T00:00:01Z');
  ins.run('1-2-gcc-O3', 2, 'wrong-code:gcc:-O3', 'findings/1-2-gcc-O3', '2026-01-01T00:00:02Z');
  db.close();
}

describe('migration of a first-schema database', () => {
  it('adds the columns when opened for writing, keeping every row', () => {
    schemaOneDatabase();
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    const s = KilnStore.open(out, 'write');
    try {
      expect(s.db.prepare('SELECT version FROM schema_version').all()).toEqual([{ version: SCHEMA_VERSION }]);
      const cols = (s.db.prepare('PRAGMA table_info(findings)').all() as { name: string }[]).map((c) => c.name);
      expect(cols).toEqual(
        expect.arrayContaining([
          'fingerprint',
          'reduced_lines',
          'reduced_file',
          'hang_status',
          'nondeterministic',
          'behaviours',
        ]),
      );
      const rows = s.listFindings();
      expect(rows.map((r) => [r.id, r.fingerprint, r.reducedLines, r.group])).toEqual([
        ['1-1-gcc-O2', null, null, 'wrong-code:gcc:-O2'],
        ['1-2-gcc-O3', null, null, 'wrong-code:gcc:-O3'],
      ]);
      expect(s.setFingerprint('1-2-gcc-O3', 'gcc:-ftree-vrp')).toBe(true);
    } finally {
      s.close();
    }
  });

  it('migrates when opened for reading too (kiln findings after an upgrade)', () => {
    schemaOneDatabase();
    const s = KilnStore.open(out, 'read');
    try {
      expect(s.db.readonly).toBe(true);
      expect(s.listFindings()).toHaveLength(2);
      expect(s.untriagedFindings().map((r) => r.id)).toEqual(['1-1-gcc-O2', '1-2-gcc-O3']);
    } finally {
      s.close();
    }
  });

  it('migrates once when two connections open the old database', () => {
    schemaOneDatabase();
    const a = KilnStore.open(out, 'write');
    const b = KilnStore.open(out, 'write');
    a.close();
    b.close();
    const db = new Database(join(out, 'kiln.db'), { readonly: true });
    expect(db.prepare('SELECT version FROM schema_version').all()).toEqual([{ version: SCHEMA_VERSION }]);
    db.close();
  });
});

describe('fingerprints, reductions and groups', () => {
  it('groups by fingerprint, falling back to the bucket, in order of first appearance', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const c = s.createCampaign({ config: {}, compilers: [], seedStart: 1n });
      s.recordProgram(c, program(1, [{ id: 'a', bucket: 'wrong-code:gcc:-O2' }]));
      s.recordProgram(c, program(2, [{ id: 'b', bucket: 'wrong-code:gcc:-O3' }]));
      s.recordProgram(c, program(3, [{ id: 'c', bucket: 'wrong-code:gcc:-O2' }]));
      s.recordProgram(c, program(4, [{ id: 'd', bucket: 'wrong-code:clang:-O2' }]));
      // Before triage: one group per bucket.
      expect(s.findingGroups().map((g) => [g.key, g.count, g.triaged])).toEqual([
        ['wrong-code:gcc:-O2', 2, false],
        ['wrong-code:gcc:-O3', 1, false],
        ['wrong-code:clang:-O2', 1, false],
      ]);
      // a and b share a pass across option sets; c (same bucket as a) is another bug.
      expect(s.setFingerprint('a', 'gcc:-ftree-vrp')).toBe(true);
      expect(s.setFingerprint('b', 'gcc:-ftree-vrp')).toBe(true);
      expect(s.setFingerprint('c', 'gcc:rtl-combine')).toBe(true);
      expect(s.setFingerprint('no-such-finding', 'x')).toBe(false);
      expect(s.setReduced('b', { lines: 14, file: join(out, 'findings', 'b', 'reduced.c') })).toBe(true);
      expect(s.setReduced('a', { lines: 30, file: '/elsewhere/reduced.c' })).toBe(true);
      expect(s.setReduced('zzz', { lines: 3, file: 'x.c' })).toBe(false);
      expect(() => s.setReduced('a', { lines: -1, file: 'x.c' })).toThrow();
      const groups = s.findingGroups();
      expect(groups.map((g) => [g.key, g.findingIds, g.triaged])).toEqual([
        ['gcc:-ftree-vrp', ['a', 'b'], true],
        ['gcc:rtl-combine', ['c'], true],
        ['wrong-code:clang:-O2', ['d'], false],
      ]);
      expect(groups[0]!.buckets).toEqual(['wrong-code:gcc:-O2', 'wrong-code:gcc:-O3']);
      expect(groups[0]!.smallest).toEqual({ findingId: 'b', lines: 14, file: join(out, 'findings', 'b', 'reduced.c') });
      // Stored relative to the output folder when inside it, as given otherwise.
      expect(s.db.prepare("SELECT reduced_file FROM findings WHERE id = 'b'").get()).toEqual({
        reduced_file: join('findings', 'b', 'reduced.c'),
      });
      expect(s.finding('a')).toMatchObject({
        reducedLines: 30,
        reducedFile: '/elsewhere/reduced.c',
        fingerprint: 'gcc:-ftree-vrp',
        group: 'gcc:-ftree-vrp',
      });
      expect(s.listFindings().map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
      expect(s.listFindings('bucket').map((r) => r.id)).toEqual(['a', 'c', 'b', 'd']);
      expect(s.untriagedFindings().map((r) => r.id)).toEqual(['d']);
    } finally {
      s.close();
    }
  });
});
