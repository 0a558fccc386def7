// A campaign killed with SIGKILL mid-run, resumed, interrupted with Ctrl-C, resumed again: no
// finished seed or finding is lost, no seed is tested twice, and every seed of the range is tested.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../support/cc.js';
import { runKiln, startKiln } from './support/cli.js';
import { writeFake } from './support/fakes.js';

const TESTS = 16;
const ODD = Array.from({ length: TESTS }, (_, i) => i + 1).filter((s) => s % 2 === 1);

interface Snapshot {
  seeds: number[];
  findings: { id: string; seed: number }[];
  programs: number;
}

function snapshot(dbPath: string): Snapshot | undefined {
  if (!existsSync(dbPath)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    const seeds = (db.prepare('SELECT seed FROM seeds ORDER BY seed').all() as { seed: number }[]).map((r) => r.seed);
    const findings = db.prepare('SELECT id, seed FROM findings ORDER BY seed').all() as { id: string; seed: number }[];
    const c = db.prepare('SELECT programs FROM campaigns ORDER BY id DESC LIMIT 1').get() as
      | { programs: number }
      | undefined;
    return { seeds, findings, programs: c?.programs ?? 0 };
  } catch {
    return undefined; // schema not created yet
  } finally {
    db?.close();
  }
}

/** Polls until `pred` holds for the database, or fails after `ms`. */
async function waitFor(dbPath: string, pred: (s: Snapshot) => boolean, ms: number): Promise<Snapshot> {
  const end = Date.now() + ms;
  for (;;) {
    const s = snapshot(dbPath);
    if (s && pred(s)) return s;
    if (Date.now() > end) throw new Error(`timed out waiting for the campaign (last state: ${JSON.stringify(s)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('kiln fuzz --resume', () => {
  let work: string;
  let out: string;
  let dbPath: string;
  let args: string[];

  beforeAll(() => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-resume-'));
    out = join(work, 'out');
    dbPath = join(out, 'kiln.db');
    const fake = writeFake(join(work, 'bin'), 'fake-wrong', 'wrong-code', ODD);
    args = [
      '--mode',
      'csmith',
      '--compilers',
      `gcc,${fake}`,
      '--opts',
      '-O0',
      '--size',
      'small',
      '-j',
      '2',
      '--out',
      out,
    ];
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('loses nothing and repeats nothing across SIGKILL, Ctrl-C and two resumes', async () => {
    // 1. Start, and kill -9 as soon as two findings are committed.
    const first = startKiln(['fuzz', ...args, '--tests', String(TESTS), '--seed-start', '1']);
    const beforeKill = await waitFor(dbPath, (s) => s.findings.length >= 2, 90_000);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const afterKill = snapshot(dbPath)!;
    expect(afterKill.seeds.length, 'the campaign must be killed mid-run').toBeLessThan(TESTS);
    for (const f of beforeKill.findings) expect(afterKill.findings).toContainEqual(f);
    const killedFolders = new Map(
      afterKill.findings.map((f) => [f.id, readFileSync(join(out, 'findings', f.id, 'prog.c'), 'utf8')]),
    );

    // 2. Resume, and stop it with Ctrl-C after one more program: it must stop cleanly (exit 0).
    const second = startKiln(['fuzz', '--resume', '--out', out, '-j', '2']);
    await waitFor(dbPath, (s) => s.seeds.length > afterKill.seeds.length, 90_000);
    second.child.kill('SIGINT');
    const interrupted = await second.done;
    expect(interrupted.status, interrupted.stderr).toBe(0);
    expect(interrupted.stderr).toContain('stopping');
    const afterInt = snapshot(dbPath)!;
    const db1 = new Database(dbPath, { readonly: true });
    try {
      expect(db1.prepare('SELECT end_reason, running_pid FROM campaigns').get()).toEqual({
        end_reason: 'interrupted',
        running_pid: null,
      });
    } finally {
      db1.close();
    }

    // 3. Resume to the end.
    const third = await runKiln(['fuzz', '--resume', '--out', out, '-j', '2']);
    expect(third.status, third.stderr).toBe(0);
    const final = snapshot(dbPath)!;

    // Every seed 1..TESTS tested exactly once (the primary key forbids repeats; the count shows none is skipped).
    expect(final.seeds).toEqual(Array.from({ length: TESTS }, (_, i) => i + 1));
    expect(final.programs).toBe(TESTS);
    // Exactly the injected findings, and nothing found before a kill or an interrupt was lost or rewritten.
    expect(final.findings.map((f) => f.seed)).toEqual(ODD);
    for (const f of [...afterKill.findings, ...afterInt.findings]) expect(final.findings).toContainEqual(f);
    for (const [id, text] of killedFolders)
      expect(readFileSync(join(out, 'findings', id, 'prog.c'), 'utf8')).toBe(text);

    const db = new Database(dbPath, { readonly: true });
    try {
      const dupTests = db
        .prepare('SELECT seed, compiler, COUNT(*) AS n FROM tests GROUP BY seed, compiler HAVING n > 1')
        .all();
      expect(dupTests).toEqual([]);
      expect((db.prepare('SELECT COUNT(*) AS n FROM tests').get() as { n: number }).n).toBe(TESTS * 2);
      expect(db.prepare('SELECT COUNT(*) AS n FROM campaigns').get()).toEqual({ n: 1 });
      const sessions = db.prepare('SELECT pid, end_reason FROM sessions ORDER BY rowid').all() as {
        pid: number;
        end_reason: string | null;
      }[];
      expect(sessions.map((s) => s.end_reason)).toEqual(['killed', 'interrupted', 'tests']);
      // The killed process's temporary folder was swept by the resumed campaign.
      expect(readdirSync(tmpdir()).filter((n) => n.startsWith(`kiln-fuzz-${first.child.pid}-`))).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('refuses to resume when there is no campaign, without creating anything', async () => {
    const empty = join(work, 'empty');
    const r = await runKiln(['fuzz', '--resume', '--out', empty]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kiln: error\[KILN_STATE\]: no Kiln database in/);
    expect(existsSync(empty)).toBe(false);
  });
});
