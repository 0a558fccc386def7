// The manager: never commits what the test rejects, runs candidates in parallel and cancels the
// losers, commits in pass order, caches verdicts, and refuses a test that rejects the original.
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isKilnError } from '../../../src/diag/errors.js';
import { InterestingnessTest } from '../../../src/reduce/text/interesting.js';
import { reduceText } from '../../../src/reduce/text/manager.js';
import type { Pass } from '../../../src/reduce/text/pass.js';
import { CParser } from '../../../src/reduce/text/parser.js';
import { alive as isAlive } from '../../support/proc.js';

let dir: string;
const ring = readFileSync(new URL('./fixtures/ring.c', import.meta.url), 'utf8');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-manager-test-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function script(name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

/** A pass over a fixed list of candidate texts that stops after its first success. */
function fixedPass(candidates: readonly string[]): Pass<number> {
  return {
    name: 'fixed',
    allowSyntaxErrors: true,
    init: () => (candidates.length > 0 ? 0 : null),
    advance: (_t, i) => (i + 1 < candidates.length ? i + 1 : null),
    advanceOnSuccess: () => null,
    transform: (_t, i) => ({ kind: 'ok', text: candidates[i]! }),
  };
}

describe('text reduction manager', () => {
  it('never commits a candidate the script rejects: the marker survives and every commit was accepted', async () => {
    const accepted = join(dir, 'accepted.log');
    const test = new InterestingnessTest(
      script(
        'marker.sh',
        `if grep -q KILN_MARKER ring.c; then sha1sum < ring.c | cut -c1-40 >> ${accepted}; exit 0; fi\nexit 1`,
      ),
      'ring.c',
      10_000,
    );
    const input = ring.replace('static unsigned checksum', '/* KILN_MARKER */ static unsigned checksum');
    const committed: string[] = [];
    try {
      const r = await reduceText({
        text: input,
        test,
        jobs: 2,
        onEvent: (e) => void (e.kind === 'commit' && committed.push(e.text)),
      });
      expect(r.text).toContain('KILN_MARKER');
      expect(r.bytes).toBeLessThan(input.length / 10);
      const ok = new Set(readFileSync(accepted, 'utf8').split('\n'));
      const { createHash } = await import('node:crypto');
      for (const t of committed) expect(ok.has(createHash('sha1').update(t).digest('hex'))).toBe(true);
      expect(committed.at(-1)).toBe(r.text);
    } finally {
      test.dispose();
    }
  });

  it('runs candidates in parallel, commits the winner and kills the others’ process groups', async () => {
    const pids = join(dir, 'pids');
    const test = new InterestingnessTest(
      // The winner answers after a short delay (so the losers have started); losers would sleep 60 s.
      script(
        'slow.sh',
        `if grep -q FAST f.c; then sleep 0.5; exit 0; fi\nmkdir -p ${pids}; echo $$ > ${pids}/$$\nexec sleep 60`,
      ),
      'f.c',
      120_000,
    );
    const t0 = Date.now();
    try {
      const r = await reduceText({
        text: 'FAST x x x x x x\n',
        test,
        jobs: 4,
        passes: { first: [fixedPass(['FAST x\n', 'slow 1\n', 'slow 2\n', 'slow 3\n'])], main: [], last: [] },
      });
      expect(r.text).toBe('FAST x\n');
      expect(Date.now() - t0).toBeLessThan(20_000);
      const started = existsSync(pids) ? readdirSync(pids).map(Number) : [];
      expect(started.length).toBe(3);
      for (const pid of started) expect(isAlive(pid)).toBe(false);
    } finally {
      test.dispose();
    }
  });

  it('commits the earliest success in pass order, not the first to finish', async () => {
    const test = new InterestingnessTest(
      script('order.sh', 'if grep -q FIRST f.c; then sleep 1; exit 0; fi\ngrep -q SECOND f.c'),
      'f.c',
      10_000,
    );
    try {
      const r = await reduceText({
        text: 'FIRST SECOND padding padding\n',
        test,
        jobs: 2,
        passes: { first: [fixedPass(['FIRST\n', 'SECOND\n'])], main: [], last: [] },
      });
      expect(r.text).toBe('FIRST\n');
    } finally {
      test.dispose();
    }
  });

  it('caches verdicts by content: a candidate proposed twice runs once', async () => {
    const runs = join(dir, 'runs.log');
    const test = new InterestingnessTest(
      script('count.sh', `echo run >> ${runs}\ngrep -q KEEP f.c && ! grep -q DROP f.c`),
      'f.c',
      10_000,
    );
    try {
      const r = await reduceText({
        text: 'KEEP padding\n',
        test,
        jobs: 1,
        passes: { first: [fixedPass(['DROP\n', 'DROP\n', 'DROP\n'])], main: [], last: [] },
      });
      expect(r.text).toBe('KEEP padding\n');
      expect(readFileSync(runs, 'utf8').trim().split('\n')).toHaveLength(2);
      expect(r.cacheHits).toBe(2);
    } finally {
      test.dispose();
    }
  });

  it('refuses a test that rejects the original with KILN_NOT_INTERESTING', async () => {
    const test = new InterestingnessTest(script('never.sh', 'exit 1'), 'ring.c', 10_000);
    try {
      const err = await reduceText({ text: ring, test }).catch((e: unknown) => e);
      expect(isKilnError(err) && err.code).toBe('KILN_NOT_INTERESTING');
    } finally {
      test.dispose();
    }
  });

  it('rejects a test script that is not executable with KILN_BAD_TEST', () => {
    const p = join(dir, 'plain.sh');
    writeFileSync(p, 'exit 0\n');
    let err: unknown;
    try {
      new InterestingnessTest(p, 'ring.c', 1000);
    } catch (e) {
      err = e;
    }
    expect(isKilnError(err) && err.code).toBe('KILN_BAD_TEST');
  });

  it('stops at the time limit with the best text so far', async () => {
    const test = new InterestingnessTest(script('sleepy.sh', 'sleep 0.4; grep -q main ring.c'), 'ring.c', 10_000);
    try {
      const r = await reduceText({ text: ring, test, jobs: 2, maxTimeMs: 1000 });
      expect(r.stoppedBy).toBe('time-limit');
      expect(r.text).toContain('main');
    } finally {
      test.dispose();
    }
  });

  it('with strictSyntax, tests no candidate that parses worse than the current text (line pass included)', async () => {
    const input = ring.replace('static unsigned checksum', '/* KILN_MARKER */ static unsigned checksum');
    const parser = new CParser();
    const tested = async (strictSyntax: boolean): Promise<string[]> => {
      const seen: string[] = [];
      const test = {
        run: async (t: string) => {
          seen.push(t);
          return t.includes('KILN_MARKER') ? ('interesting' as const) : ('boring' as const);
        },
      };
      await reduceText({
        text: input,
        test,
        jobs: 1,
        strictSyntax,
        groups: { first: [], main: ['lines'], last: [] },
      });
      return seen;
    };
    expect((await tested(true)).every((t) => parser.errorCount(t) === 0)).toBe(true);
    // The option is what keeps them out: the line pass proposes broken texts.
    expect((await tested(false)).some((t) => parser.errorCount(t) > 0)).toBe(true);
  });

  describe('deferred guards (a cheap test for candidates, the whole test at checkpoints)', () => {
    // The cheap test wants the marker; the whole test also wants the guard line, which the cheap
    // test lets candidates remove: exactly the case of a reduction step that introduces UB only
    // the last guard (MSan, valgrind) sees.
    const input = ring
      .replace('static unsigned checksum', '/* KILN_MARKER */ static unsigned checksum')
      .replace('int main', '/* KILN_GUARD */\nint main');
    const fake = (need: readonly string[], log: string[]) => ({
      run: async (text: string): Promise<'interesting' | 'boring'> => {
        log.push(text);
        return need.every((m) => text.includes(m)) ? 'interesting' : 'boring';
      },
    });

    it('keeps only what the whole test accepts, goes back when a checkpoint rejects, seldom runs it all', async () => {
      const cheapRuns: string[] = [];
      const fullRuns: string[] = [];
      const written: string[] = [];
      const r = await reduceText({
        text: input,
        test: fake(['KILN_MARKER'], cheapRuns),
        verify: fake(['KILN_MARKER', 'KILN_GUARD'], fullRuns),
        jobs: 2,
        strictAfter: 1000,
        onEvent: (e) => {
          if ((e.kind === 'commit' && !e.provisional) || e.kind === 'verified') written.push(e.text);
        },
      });
      expect(r.text).toContain('KILN_MARKER');
      expect(r.text).toContain('KILN_GUARD');
      expect(r.bytes).toBeLessThan(input.length / 5);
      // Some step removed the guard line, and a checkpoint undid it.
      expect(r.reverts).toBeGreaterThanOrEqual(1);
      expect(r.verifications).toBe(fullRuns.length);
      // Every text offered as kept passes the whole test; the last one is the result.
      for (const t of written) expect(t.includes('KILN_MARKER') && t.includes('KILN_GUARD')).toBe(true);
      expect(written.at(-1)).toBe(r.text);
      expect(fullRuns.length).toBeLessThan(cheapRuns.length / 3);
    });

    it('checkpoints within a long pass too (checkpointMs), so the kept text follows the reduction', async () => {
      const events: string[] = [];
      const r = await reduceText({
        text: input,
        test: fake(['KILN_MARKER'], []),
        verify: fake(['KILN_MARKER', 'KILN_GUARD'], []),
        jobs: 1,
        checkpointMs: 0,
        strictAfter: 1000,
        groups: { first: [], main: ['lines'], last: [] },
        onEvent: (e) =>
          void ((e.kind === 'commit' && e.provisional) || e.kind === 'verified' ? events.push(e.kind) : undefined),
      });
      expect(r.text).toContain('KILN_GUARD');
      // Every provisional commit is judged before the next one.
      expect(events.length).toBeGreaterThan(2);
      for (let i = 0; i < events.length; i += 2) expect(events.slice(i, i + 2)).toEqual(['commit', 'verified']);
    });

    it('on an abort returns the last text the whole test accepted, without running it again', async () => {
      const stop = new AbortController();
      const fullRuns: string[] = [];
      let cheap = 0;
      let atAbort = -1;
      const test = {
        run: async (text: string): Promise<'interesting' | 'boring'> => {
          if (++cheap === 8) {
            atAbort = fullRuns.length;
            stop.abort();
          }
          return text.includes('KILN_MARKER') ? 'interesting' : 'boring';
        },
      };
      const r = await reduceText({
        text: input,
        test,
        verify: fake(['KILN_MARKER', 'KILN_GUARD'], fullRuns),
        jobs: 1,
        signal: stop.signal,
        groups: { first: [], main: ['lines'], last: [] },
      });
      expect(r.stoppedBy).toBe('interrupted');
      expect(fullRuns.length).toBe(atAbort);
      expect(fullRuns).toContain(r.text);
      expect(r.text).toContain('KILN_GUARD');
    });

    it('after strictAfter rejections judges every candidate with the whole test', async () => {
      const cheapRuns: string[] = [];
      const fullRuns: string[] = [];
      const r = await reduceText({
        text: input,
        test: fake(['KILN_MARKER'], cheapRuns),
        verify: fake(['KILN_MARKER', 'KILN_GUARD'], fullRuns),
        jobs: 1,
        strictAfter: 1,
      });
      expect(r.reverts).toBe(1);
      expect(r.text).toContain('KILN_GUARD');
      // After the switch, candidates go to the whole test: it ran more than the checkpoints alone would.
      expect(fullRuns.length).toBeGreaterThan(cheapRuns.length / 3);
    });

    it('checks the result with the whole test when the time limit stops the reduction', async () => {
      const fullRuns: string[] = [];
      const slow = {
        run: async (text: string): Promise<'interesting' | 'boring'> => {
          await new Promise((res) => setTimeout(res, 50));
          return text.includes('KILN_MARKER') ? 'interesting' : 'boring';
        },
      };
      const r = await reduceText({
        text: input,
        test: slow,
        verify: fake(['KILN_MARKER', 'KILN_GUARD'], fullRuns),
        jobs: 1,
        maxTimeMs: 1500,
      });
      expect(r.stoppedBy).toBe('time-limit');
      // The whole test judged the result (the original was its first run).
      expect(fullRuns).toContain(r.text);
      expect(r.text).toContain('KILN_GUARD');
    });
  });
});
