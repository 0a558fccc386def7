// The acceptance test of distributed campaigns, on loopback: one coordinator and three
// `kiln worker` processes with fake compilers of known faults give the same findings as a local
// campaign over the same seeds; a worker killed with SIGKILL mid-batch and then the coordinator
// killed too lose nothing: after --resume every seed is recorded exactly once, every finding is there.
// Two batches of four seeds for three workers: one is killed holding a batch, one does the other
// batch, and the killed worker's batch goes to another worker once its lock has expired.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../support/cc.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { runKiln, startKiln, type CliResult } from '../harness/support/cli.js';
import { writeFake } from '../harness/support/fakes.js';
import type { ChildProcess } from 'node:child_process';

const SEEDS = 8;

interface Finding {
  id: string;
  seed: number;
  outcome: string;
  bucket: string;
}

function read(dbPath: string): { seeds: number[]; findings: Finding[] } | undefined {
  if (!existsSync(dbPath)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    const seeds = (db.prepare('SELECT seed FROM seeds ORDER BY seed').all() as { seed: number }[]).map((r) => r.seed);
    const findings = db.prepare('SELECT id, seed, outcome, bucket FROM findings ORDER BY id').all() as Finding[];
    return { seeds, findings };
  } catch {
    return undefined; // schema not there yet
  } finally {
    db?.close();
  }
}

async function waitUntil<T>(what: string, probe: () => T | undefined | false, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Each finding with its program, so both campaigns can be compared folder by folder. */
function findingsWithPrograms(out: string): { id: string; outcome: string; bucket: string; program: string }[] {
  return read(join(out, 'kiln.db'))!.findings.map((f) => ({
    id: f.id,
    outcome: f.outcome,
    bucket: f.bucket,
    program: readFileSync(join(out, 'findings', f.id, 'prog.c'), 'utf8'),
  }));
}

describe('kiln fuzz --queue with kiln worker (loopback)', () => {
  let work: string;
  let redis: TestRedis;
  let common: string[];
  const workers: { child: ChildProcess; done: Promise<CliResult>; err: () => string }[] = [];

  beforeAll(async () => {
    requireTool('gcc');
    redis = await startRedis();
    work = mkdtempSync(join(tmpdir(), 'kiln-loopback-'));
    const bin = join(work, 'bin');
    // Hangs on the first seed of every batch of four keep each batch busy for seconds, so the
    // worker killed mid-batch is surely holding one. Two compilers, both fakes (gcc on the seeds
    // they leave alone): every compiler costs its checks in every `kiln` process, so the
    // second fake both hangs and crashes (SIGSEGV), on seeds of its own.
    const wrong = writeFake(bin, 'fake-wrong', 'wrong-code', [2, 7]);
    const failing = writeFake(bin, 'fake-fail', 'hang', [1, 5]);
    const script = readFileSync(failing, 'utf8');
    const tail = 'exec gcc "$@"\n';
    expect(script.endsWith(tail)).toBe(true);
    writeFileSync(
      failing,
      `${script.slice(0, -tail.length)}if [ -n "$seed" ] && hit 3 6; then\nkill -SEGV $$\nfi\n${tail}`,
    );
    common = [
      '--mode',
      'csmith',
      '--size',
      'small',
      '--opts',
      '-O0',
      '--compilers',
      `${wrong},${failing}`,
      '--compile-timeout',
      '2s',
      '--tests',
      String(SEEDS),
    ];
  });

  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.done));
    await redis?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('finds what a local campaign finds, and loses nothing to a killed worker and a killed coordinator', async () => {
    // The reference: the same seeds on this machine.
    const local = join(work, 'local');
    const l = await runKiln(['fuzz', ...common, '--seed-start', '1', '-j', '2', '--out', local]);
    expect(l.status, l.stderr).toBe(0);
    const expected = findingsWithPrograms(local);
    // Every fault showed: 2 wrong-code, 2 compiler crashes, 2 compiler hangs.
    expect(expected.map((f) => f.outcome).sort()).toEqual([
      'compiler-crash',
      'compiler-crash',
      'compiler-hang',
      'compiler-hang',
      'wrong-code',
      'wrong-code',
    ]);

    for (let i = 0; i < 3; i++) {
      const w = startKiln(['worker', '--queue', redis.url, '-j', '1', '--lock-timeout', '4s']);
      let err = '';
      w.child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      workers.push({ ...w, err: () => err });
    }
    const out = join(work, 'queued');
    const dbPath = join(out, 'kiln.db');
    const coordinator = startKiln(['fuzz', ...common, '--seed-start', '1', '--queue', redis.url, '--out', out]);

    // Kill the first worker to take a batch half a second after it has taken it (a batch takes
    // seconds); with two batches for three workers, one worker waits at first.
    const victim = await waitUntil(
      'a worker to take a batch',
      () => workers.find((w) => /batch \S+: seeds/.test(w.err())),
      120_000,
    );
    await new Promise((r) => setTimeout(r, 500));
    victim.child.kill('SIGKILL');
    expect((await victim.done).signal).toBe('SIGKILL');
    const victimLines = victim.err().trimEnd().split('\n');
    expect(victimLines.at(-1), `the worker must die holding a batch:\n${victim.err()}`).toMatch(/batch \S+: seeds/);

    // Then the coordinator, once some results are recorded but not all.
    const before = await waitUntil(
      'a first recorded seed',
      () => {
        const s = read(dbPath);
        return s && s.seeds.length >= 1 ? s : undefined;
      },
      120_000,
    );
    expect(before.seeds.length).toBeLessThan(SEEDS);
    coordinator.child.kill('SIGKILL');
    await coordinator.done;
    const atKill = read(dbPath)!;

    // Resume: the queue as it is, the workers still running (the killed worker's batch goes to another).
    const resumed = await runKiln(['fuzz', '--resume', '--queue', redis.url, '--out', out]);
    expect(resumed.status, resumed.stderr).toBe(0);
    const after = read(dbPath)!;
    expect(after.seeds).toEqual(Array.from({ length: SEEDS }, (_, i) => i + 1));
    for (const f of atKill.findings) expect(after.findings).toContainEqual(f);
    expect(findingsWithPrograms(out)).toEqual(expected);
    // The killed worker's batch was done again by another worker.
    const lines = workers.filter((w) => w !== victim).flatMap((w) => w.err().split('\n'));
    expect(
      lines.some((x) => /\(attempt [2-9]\)/.test(x)),
      lines.join('\n'),
    ).toBe(true);
  }, 600_000);
});
