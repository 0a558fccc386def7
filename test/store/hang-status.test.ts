// Suspected hangs and nondeterministic findings as stored and listed: the background check of a
// suspected hang updates both the row and finding.json, and `kiln findings` says what each is.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatFindings } from '../../src/cli/findings-format.js';
import { KilnStore, type FindingRecord, type ProgramRecord } from '../../src/store/store.js';

let out: string;

beforeEach(() => {
  out = mkdtempSync(join(tmpdir(), 'kiln-hangstatus-'));
});

afterEach(() => {
  rmSync(out, { recursive: true, force: true });
});

function finding(id: string, extra: Partial<FindingRecord>): FindingRecord {
  return {
    id,
    outcome: 'compiler-hang',
    bucket: 'compiler-hang:cc',
    compiler: 'cc',
    compilerVersion: 'cc 1',
    options: '-O2',
    command: ['cc', '-O2', 'prog.c', '-o', 'prog', '-lm'],
    expected: 'checksum = 1',
    actual: 'timeout after 10 s',
    stderr: '',
    files: [
      { name: 'prog.c', content: '/* p */\n' },
      { name: 'finding.json', content: JSON.stringify({ id, hangStatus: extra.hangStatus ?? null }) },
    ],
    ...extra,
  };
}

describe('hang status and nondeterminism in the store', () => {
  it('records a suspected hang, then its check in the row and in finding.json', () => {
    const s = KilnStore.open(out, 'write');
    try {
      const c = s.createCampaign({ config: {}, compilers: [], seedStart: 1n });
      const p: ProgramRecord = {
        seed: 1n,
        status: 'tested',
        genMs: 1,
        tests: [],
        findings: [
          finding('1-1-a', { hangStatus: 'suspected' }),
          finding('1-1-b', { hangStatus: 'suspected' }),
          finding('1-1-c', {
            outcome: 'wrong-code',
            bucket: 'wrong-code:cc:-O2',
            nondeterministic: true,
            behaviours: [{ outcome: 'wrong-code' }, { outcome: 'binary-hang' }],
          }),
        ],
      };
      s.recordProgram(c, p);
      expect(s.listFindings().map((r) => [r.id, r.hangStatus, r.nondeterministic])).toEqual([
        ['1-1-a', 'suspected', false],
        ['1-1-b', 'suspected', false],
        ['1-1-c', null, true],
      ]);
      expect(s.setHangStatus('1-1-a', 'confirmed', { hangCheck: { verdict: 'confirmed', limitMs: 120_000 } })).toBe(
        true,
      );
      expect(s.setHangStatus('nope', 'confirmed', {})).toBe(false);
      const json = JSON.parse(readFileSync(join(out, 'findings', '1-1-a', 'finding.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(json).toMatchObject({
        id: '1-1-a',
        hangStatus: 'confirmed',
        hangCheck: { verdict: 'confirmed', limitMs: 120_000 },
      });
      const text = formatFindings(s.listFindings());
      const line = (id: string): string => text.split('\n').find((l) => l.includes(id))!;
      expect(line('1-1-a')).not.toMatch(/suspected/);
      expect(line('1-1-b')).toMatch(/suspected hang/);
      expect(line('1-1-c')).toMatch(/nondeterministic/);
      // A cleared suspect is a slow compile: the campaign's last line counts those apart.
      expect(s.clearedHangs(c)).toBe(0);
      s.setHangStatus('1-1-b', 'cleared', { hangCheck: { verdict: 'cleared', limitMs: 120_000 } });
      expect(s.clearedHangs(c)).toBe(1);
      expect(s.clearedHangs(c + 1)).toBe(0);
    } finally {
      s.close();
    }
  });
});
