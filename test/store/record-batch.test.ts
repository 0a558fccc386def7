import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KilnStore, type ProgramRecord } from '../../src/store/store.js';

let dirs: string[];

beforeEach(() => {
  dirs = [];
});

afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'kiln-batch-'));
  dirs.push(d);
  return d;
}

/** A program with one wrong-code finding per (bucket, size) pair, and an ok test beside them. */
function program(seed: number, findings: readonly { bucket: string; size: number }[] = []): ProgramRecord {
  const ids = findings.map((_, i) => `f${seed}-${i}`);
  return {
    seed: BigInt(seed),
    status: 'tested',
    genMs: 1,
    tests: [
      ...findings.map((f, i) => ({
        compiler: 'gcc',
        compilerVersion: 'gcc 12',
        options: `-O2 -f${i}`,
        outcome: 'wrong-code',
        durationMs: 5,
        bucket: f.bucket,
        findingId: ids[i]!,
      })),
      { compiler: 'clang', compilerVersion: 'clang 14', options: '-O2', outcome: 'ok', durationMs: 7 },
    ],
    findings: findings.map((f, i) => ({
      id: ids[i]!,
      outcome: 'wrong-code',
      bucket: f.bucket,
      compiler: 'gcc',
      compilerVersion: 'gcc 12',
      options: '-O2',
      command: ['gcc', '-O2', 'prog.c'],
      expected: 'checksum = 1',
      actual: 'checksum = 2',
      stderr: '',
      files: [{ name: 'prog.c', content: 'x'.repeat(f.size) }],
    })),
  };
}

function newCampaign(s: KilnStore): number {
  return s.createCampaign({
    config: { optionSets: ['-O2'] },
    compilers: [{ name: 'gcc', version: 'gcc 12' }],
    seedStart: 1n,
  });
}

/** What a store holds, in a form two stores can be compared by. */
function contents(s: KilnStore, out: string): unknown {
  return {
    seeds: s.db.prepare('SELECT seed, status FROM seeds ORDER BY seed').all(),
    tests: s.db.prepare('SELECT seed, outcome, bucket, finding_id FROM tests ORDER BY seed, compiler, options').all(),
    findings: s.db.prepare('SELECT id, bucket, size, kept FROM findings ORDER BY id').all(),
    overflow: s.db.prepare('SELECT bucket, dropped FROM bucket_overflow ORDER BY bucket').all(),
    campaign: (({ programs, tests, findings, counters }) => ({ programs, tests, findings, counters }))(s.campaign(1)!),
    folders: existsSync(join(out, 'findings')) ? readdirSync(join(out, 'findings')).sort() : [],
  };
}

describe('KilnStore.recordPrograms', () => {
  // Two buckets under a cap of 2: firsts, drops, a smallest replaced inside the batch and one
  // replaced across batches, several findings in one program.
  const A = 'wrong-code:gcc:-O2';
  const B = 'wrong-code:gcc:-O3';
  // biome-ignore format: data table
  const batches: ProgramRecord[][] = [
    [program(1, [{ bucket: A, size: 500 }]), program(2, [{ bucket: A, size: 400 }, { bucket: B, size: 90 }]), program(3, [{ bucket: A, size: 600 }]), program(4)],
    [program(5, [{ bucket: A, size: 300 }]), program(6, [{ bucket: A, size: 200 }]), program(7, [{ bucket: B, size: 80 }, { bucket: B, size: 70 }])],
    [program(8, [{ bucket: A, size: 100 }, { bucket: B, size: 10 }]), program(9)],
  ];

  it('records a batch exactly as one call per program would, the cap included', () => {
    const one = folder();
    const many = folder();
    const s1 = KilnStore.open(one, 'write');
    const s2 = KilnStore.open(many, 'write');
    try {
      const c1 = newCampaign(s1);
      const c2 = newCampaign(s2);
      const single = batches.flat().map((p) => s1.recordProgram(c1, p, { maxPerBucket: 2 }));
      const batched = batches.flatMap((b) => s2.recordPrograms(c2, b, { maxPerBucket: 2 }));
      expect(batched).toEqual(single);
      expect(contents(s2, many)).toEqual(contents(s1, one));
      // The cap did act (the comparison is not between two uncapped stores): bucket A keeps its
      // first two and its smallest, seed 6's program replacing seed 5's inside the second batch.
      expect(
        s2
          .listFindings()
          .filter((f) => f.bucket === A)
          .map((f) => f.id)
          .sort(),
      ).toEqual(['f1-0', 'f2-0', 'f8-0']);
      expect(readdirSync(join(many, 'findings'))).not.toContain('f6-0');
      expect(batched[5]!.kept[0]).toMatchObject({ id: 'f6-0', as: 'smallest', replaced: 'f5-0' });
    } finally {
      s1.close();
      s2.close();
    }
  });

  it('records all of a batch or none of it', () => {
    const out = folder();
    const s = KilnStore.open(out, 'write');
    try {
      const c = newCampaign(s);
      s.recordPrograms(c, [program(1), program(2)]);
      // Seed 2 again, last in a batch: the batch fails as a whole, its first seeds are not recorded.
      expect(() => s.recordPrograms(c, [program(3, [{ bucket: A, size: 50 }]), program(4), program(2)])).toThrow(
        /UNIQUE|PRIMARY KEY/,
      );
      expect(s.db.prepare('SELECT seed FROM seeds ORDER BY seed').all()).toEqual([{ seed: 1 }, { seed: 2 }]);
      expect(s.db.prepare('SELECT COUNT(*) AS n FROM tests').get()).toEqual({ n: 2 });
      expect(s.listFindings()).toEqual([]);
      expect(s.campaign(c)).toMatchObject({ programs: 2, tests: 2, findings: 0 });
      // Redone, the batch is recorded once.
      s.recordPrograms(c, [program(3, [{ bucket: A, size: 50 }]), program(4)]);
      expect(s.seedProgress(c).done).toBe(4);
      expect(s.listFindings().map((f) => f.id)).toEqual(['f3-0']);
    } finally {
      s.close();
    }
  });

  it('an empty batch records nothing', () => {
    const s = KilnStore.open(folder(), 'write');
    try {
      const c = newCampaign(s);
      expect(s.recordPrograms(c, [])).toEqual([]);
      expect(s.campaign(c)).toMatchObject({ programs: 0 });
    } finally {
      s.close();
    }
  });
});
