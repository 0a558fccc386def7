// The candidate budget: a reduction bounded by work, not by time. Candidates are counted in pass
// order as their verdicts settle it, so however the test's runs finish (in order, reversed, with
// one job or many), the same budget gives the same text.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../src/reduce/text/interesting.js';
import { reduceText } from '../../../src/reduce/text/manager.js';

const ring = readFileSync(new URL('./fixtures/ring.c', import.meta.url), 'utf8');
const MARKER = '/* KILN_MARKER */';
const input = ring.replace('static unsigned checksum', `${MARKER} static unsigned checksum`);

/** Interesting: the marker survives with a `return` and eight semicolons (about 120 candidates to the fixpoint). */
function interesting(text: string): boolean {
  return text.includes(MARKER) && text.includes('return') && text.split(';').length > 8;
}

/**
 * An in-process test (see {@link interesting}) whose runs finish after a number of
 * event-loop turns drawn from the text, so parallel runs finish out of order: `delays` picks the
 * turns, and every run is counted.
 */
function markerTest(delays: (text: string) => number): {
  run: (text: string, signal?: AbortSignal) => Promise<Verdict>;
  runs: () => number;
} {
  let runs = 0;
  return {
    runs: () => runs,
    run: async (text: string, signal?: AbortSignal): Promise<Verdict> => {
      runs++;
      for (let i = delays(text); i > 0; i--) {
        await new Promise((r) => setImmediate(r));
        if (signal?.aborted) return 'cancelled';
      }
      return interesting(text) ? 'interesting' : 'boring';
    },
  };
}

/** A spread of finishing orders: by length, against it, and by a hash of the text. */
const ORDERS: Record<string, (text: string) => number> = {
  longestFirst: (t) => 1 + (t.length % 7),
  shortestFirst: (t) => 8 - (t.length % 7),
  scrambled: (t) => 1 + (Array.from(t).reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 13),
};

describe('text reduction under a candidate budget', () => {
  it('gives the same text for one budget whatever the jobs and finishing order, and stops at the budget', async () => {
    for (const budget of [1, 6, 30, 80]) {
      const texts = new Set<string>();
      for (const jobs of [1, 2, 5]) {
        for (const [name, delays] of Object.entries(ORDERS)) {
          const test = markerTest(delays);
          const r = await reduceText({ text: input, test, jobs, maxCandidates: budget });
          expect(r.stoppedBy, `budget ${budget}, ${jobs} jobs, ${name}`).toBe('candidate-limit');
          expect(interesting(r.text)).toBe(true);
          // Runs beyond the budget are candidates cancelled by an earlier success, at most jobs - 1 per commit.
          expect(r.tests).toBeGreaterThanOrEqual(Math.min(budget, 1));
          if (jobs === 1) expect(test.runs()).toBeLessThanOrEqual(budget + 1);
          texts.add(r.text);
        }
      }
      expect(texts.size, `budget ${budget}`).toBe(1);
    }
  });

  it('a larger budget reduces at least as far, and an ample one reaches the fixpoint', async () => {
    const sizes: number[] = [];
    for (const budget of [10, 40, 100]) {
      const r = await reduceText({ text: input, test: markerTest(ORDERS.scrambled!), jobs: 3, maxCandidates: budget });
      sizes.push(r.bytes);
    }
    expect(sizes[0]!).toBeLessThan(input.length);
    expect(sizes[1]!).toBeLessThanOrEqual(sizes[0]!);
    expect(sizes[2]!).toBeLessThanOrEqual(sizes[1]!);
    const free = await reduceText({ text: input, test: markerTest(ORDERS.scrambled!), jobs: 3 });
    expect(free.stoppedBy).toBe('fixpoint');
    const ample = await reduceText({
      text: input,
      test: markerTest(ORDERS.longestFirst!),
      jobs: 2,
      maxCandidates: 1_000_000,
    });
    expect(ample.stoppedBy).toBe('fixpoint');
    expect(ample.text).toBe(free.text);
  });
});
