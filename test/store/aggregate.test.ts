// The report's SQL aggregation on campaigns whose numbers are known: time bins, outcome cells,
// groups (fingerprint, else bucket) with their representative, and what counts as new.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  aggregateCampaign,
  FINDINGS_LISTED_PER_GROUP,
  LIVE_CODE_COLUMNS,
  MAX_TIME_BINS,
} from '../../src/store/aggregate.js';
import { KilnStore } from '../../src/store/store.js';
import { synthesiseCampaign, type SynthCampaign, type SynthProgram } from '../report/support/synth.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function base(programs: SynthProgram[], over: Partial<SynthCampaign> = {}): SynthCampaign {
  return {
    start: '2026-01-01T00:00:00.000Z',
    compilers: [
      { name: 'gcc', version: 'gcc 12' },
      { name: 'clang', version: 'clang 16' },
    ],
    optionSets: ['-O0', '-O2'],
    mode: 'csmith',
    size: 'small',
    programs,
    endMinute: 60,
    folders: false,
    ...over,
  };
}

function outDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kiln-aggregate-'));
  dirs.push(d);
  return join(d, 'out');
}

const WRONG = { compiler: 'clang', options: '-O2', outcome: 'wrong-code', bucket: 'wrong-code:clang:-O2' };

describe('aggregateCampaign', () => {
  it('counts tests, findings and new groups per time bin, and outcomes per configuration', () => {
    const out = outDir();
    synthesiseCampaign(
      out,
      base([
        { seed: 1, minute: 0.5, genMs: 1 },
        { seed: 2, minute: 3.2, genMs: 1, findings: [WRONG] },
        { seed: 3, minute: 3.9, genMs: 1, findings: [{ ...WRONG, compiler: 'gcc', bucket: 'wrong-code:gcc:-O2' }] },
        { seed: 4, minute: 7, genMs: 1, findings: [WRONG] },
      ]),
    );
    const store = KilnStore.open(out, 'read');
    try {
      const a = aggregateCampaign(store, undefined, '2026-01-01T02:00:00.000Z');
      expect(a.binMinutes).toBe(1);
      expect(a.testsPerBin).toEqual([
        { bin: 0, count: 4 },
        { bin: 3, count: 8 },
        { bin: 7, count: 4 },
      ]);
      expect(a.findingsPerBin).toEqual([
        { bin: 3, count: 2 },
        { bin: 7, count: 1 },
      ]);
      expect(a.newGroupsPerBin).toEqual([{ bin: 3, count: 2 }]);
      expect(
        a.outcomes.find((o) => o.compiler === 'clang' && o.options === '-O2' && o.outcome === 'wrong-code')?.count,
      ).toBe(2);
      expect(a.outcomes.find((o) => o.compiler === 'clang' && o.options === '-O2' && o.outcome === 'ok')?.count).toBe(
        2,
      );
      expect(a.timeSpentMs).toBe(60 * 60_000);
      expect(a.groups.map((g) => [g.key, g.count])).toEqual([
        ['wrong-code:clang:-O2', 2],
        ['wrong-code:gcc:-O2', 1],
      ]);
      expect(a.groups[0]!.bins).toEqual([
        { bin: 3, count: 1 },
        { bin: 7, count: 1 },
      ]);
    } finally {
      store.close();
    }
  });

  it('widens the bins of a long campaign to at most MAX_TIME_BINS', () => {
    const out = outDir();
    const week = 7 * 24 * 60;
    synthesiseCampaign(
      out,
      base(
        [
          { seed: 1, minute: 0, genMs: 1 },
          { seed: 2, minute: week, genMs: 1 },
        ],
        { endMinute: week },
      ),
    );
    const store = KilnStore.open(out, 'read');
    try {
      const a = aggregateCampaign(store);
      expect(a.binMinutes).toBe(Math.ceil(week / MAX_TIME_BINS));
      expect(Math.max(...a.testsPerBin.map((b) => b.bin))).toBeLessThanOrEqual(MAX_TIME_BINS);
    } finally {
      store.close();
    }
  });

  it('groups by fingerprint, falls back to the bucket, and shows the smallest reduced finding', () => {
    const out = outDir();
    const fp = { fingerprint: 'clang:GVNPass' };
    synthesiseCampaign(
      out,
      base([
        { seed: 1, minute: 1, genMs: 1, findings: [{ ...WRONG, ...fp }] },
        { seed: 2, minute: 2, genMs: 1, findings: [{ ...WRONG, ...fp, reduced: 'a\nb\nc\n' }] },
        {
          seed: 3,
          minute: 3,
          genMs: 1,
          findings: [{ ...WRONG, ...fp, compiler: 'gcc', bucket: 'wrong-code:gcc:-O2', reduced: 'a\nb\n' }],
        },
        { seed: 4, minute: 4, genMs: 1, findings: [WRONG] },
        ...Array.from({ length: FINDINGS_LISTED_PER_GROUP + 5 }, (_, i) => ({
          seed: 10 + i,
          minute: 5,
          genMs: 1,
          findings: [{ ...WRONG, bucket: 'many' }],
        })),
      ]),
    );
    const store = KilnStore.open(out, 'read');
    try {
      const [pass, bucket, many] = aggregateCampaign(store).groups;
      expect(pass!.key).toBe('clang:GVNPass');
      expect(pass!.triaged).toBe(true);
      expect([...pass!.buckets].sort()).toEqual(['wrong-code:clang:-O2', 'wrong-code:gcc:-O2']);
      expect(pass!.representative.seed).toBe('3');
      expect(pass!.representative.reducedLines).toBe(2);
      expect(pass!.affected.map((x) => `${x.compiler} ${x.options} ${x.count}`)).toEqual(['clang -O2 2', 'gcc -O2 1']);
      expect(bucket!.key).toBe('wrong-code:clang:-O2');
      expect(bucket!.triaged).toBe(false);
      expect(bucket!.representative.seed).toBe('4');
      expect(many!.count).toBe(FINDINGS_LISTED_PER_GROUP + 5);
      expect(many!.listed).toHaveLength(FINDINGS_LISTED_PER_GROUP);
    } finally {
      store.close();
    }
  });

  it('marks groups new to the latest session and to the campaign', () => {
    const out = outDir();
    synthesiseCampaign(out, base([{ seed: 1, minute: 1, genMs: 1, findings: [WRONG] }]));
    const second = synthesiseCampaign(
      out,
      base(
        [
          { seed: 101, minute: 1, genMs: 1, findings: [WRONG] },
          { seed: 102, minute: 2, genMs: 1, findings: [{ ...WRONG, bucket: 'old-session' }] },
          { seed: 103, minute: 90, genMs: 1, findings: [{ ...WRONG, bucket: 'new-session' }] },
        ],
        { endMinute: 100 },
      ),
    );
    const store = KilnStore.open(out, 'write');
    try {
      // A second session of the second campaign, from minute 80.
      store.db
        .prepare('UPDATE sessions SET ended_at = ? WHERE campaign_id = ?')
        .run('2026-01-01T01:00:00.000Z', second);
      store.db
        .prepare('INSERT INTO sessions (campaign_id, started_at, ended_at, end_reason, pid) VALUES (?, ?, ?, ?, ?)')
        .run(second, '2026-01-01T01:20:00.000Z', '2026-01-01T01:40:00.000Z', 'time', 2);
      const a = aggregateCampaign(store, second);
      expect(a.earlierCampaigns).toBe(1);
      expect(a.sessions).toHaveLength(2);
      expect(a.timeSpentMs).toBe(80 * 60_000);
      const marks = Object.fromEntries(a.groups.map((g) => [g.key, [g.newInCampaign, g.newInSession]]));
      expect(marks).toEqual({
        'wrong-code:clang:-O2': [false, false],
        'old-session': [true, false],
        'new-session': [true, true],
      });
      const first = aggregateCampaign(store, 1);
      expect(first.groups[0]!.newInSession).toBe(false);
    } finally {
      store.close();
    }
  });

  it("reads the generator's live-code columns when the store has them", () => {
    const out = outDir();
    synthesiseCampaign(out, base([1, 2, 3, 4].map((seed) => ({ seed, minute: seed, genMs: 1 }))));
    const store = KilnStore.open(out, 'write');
    try {
      expect(aggregateCampaign(store).liveCode).toBeUndefined();
      const { statements, liveStatements, lines } = LIVE_CODE_COLUMNS;
      store.db.exec(
        `ALTER TABLE seeds ADD COLUMN ${statements} INTEGER; ALTER TABLE seeds ADD COLUMN ${liveStatements} ` +
          `INTEGER; ALTER TABLE seeds ADD COLUMN ${lines} INTEGER`,
      );
      // Statements 100 each; 25, 50, 50 and 100 of them executed; 1,000 to 4,000 lines.
      const set = store.db.prepare(
        `UPDATE seeds SET ${statements} = 100, ${liveStatements} = ?, ${lines} = ? WHERE seed = ?`,
      );
      for (const [i, live] of [25, 50, 50, 100].entries()) set.run(live, 1000 * (i + 1), i + 1);
      const live = aggregateCampaign(store).liveCode!;
      expect(live.statements.map((b) => b.count)).toEqual([4]);
      expect(live.liveShare.reduce((n, b) => n + b.count, 0)).toBe(4);
      expect(live.liveShare.map((b) => b.count)).toEqual([1, 2, 1]);
      expect(live.liveShare[0]!.lo).toBeCloseTo(0.25);
      expect(live.lines!.map((b) => b.count)).toEqual([1, 1, 1, 1]);
    } finally {
      store.close();
    }
  });

  it('refuses a campaign that does not exist with a coded error', () => {
    const out = outDir();
    synthesiseCampaign(out, base([]));
    const store = KilnStore.open(out, 'read');
    try {
      expect(() => aggregateCampaign(store, 7)).toThrow(expect.objectContaining({ code: 'KILN_STATE' }));
    } finally {
      store.close();
    }
  });
});
